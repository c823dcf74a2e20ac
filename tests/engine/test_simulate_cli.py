"""`cardtrail simulate`: mirrored bot-vs-bot games in-process."""

import json

from click.testing import CliRunner

from cardtrail.cli import main


def test_simulate_plays_mirrored_games_and_reports_each_bot():
    result = CliRunner().invoke(
        main, ["simulate", "--bots", "greedy,random", "--games", "3", "--seed", "t", "--json"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["games"] == 6 and summary["mirrored"] == 2
    bots = summary["bots"]
    assert set(bots) == {"greedy", "random"}
    assert bots["greedy"]["wins"] + bots["random"]["wins"] == 6
    low, high = bots["greedy"]["win_rate_ci95"]
    assert 0 <= low <= bots["greedy"]["win_rate"] <= high + 1e-9 <= 1 + 1e-9


def test_simulate_prints_a_line_per_bot():
    result = CliRunner().invoke(main, ["simulate", "--bots", "greedy,random", "--games", "2"])
    assert result.exit_code == 0, result.output
    assert "greedy: won" in result.output and "random: won" in result.output
