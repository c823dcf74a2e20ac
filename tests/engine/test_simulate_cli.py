"""`cardtrail simulate`: mirrored bot-vs-bot games in-process."""

import json

import pytest
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


def _simulate_json(*args: str) -> dict:
    result = CliRunner().invoke(main, ["simulate", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_simulate_spades_with_two_bots_plays_a_mirrored_partnership_match():
    args = ("--game", "spades", "--bots", "greedy,random", "--games", "4", "--seed", "pairs")
    summary = _simulate_json(*args)
    assert summary["game"] == "spades" and summary["deals"] == 4
    assert summary["games"] == 2 * summary["deals"] and summary["mirrored"] == 2
    assert summary["sides"] == [[0, 2], [1, 3]]
    bots = summary["bots"]
    assert set(bots) == {"greedy", "random"}  # one entry per bot, not per seat
    assert bots["greedy"]["games"] == bots["random"]["games"] == 8
    assert bots["greedy"]["wins"] + bots["random"]["wins"] == 8  # a side's win counts once
    assert bots["greedy"]["hands"] == bots["random"]["hands"] == summary["hands"] > 0
    for figures in bots.values():
        low, high = figures["win_rate_ci95"]
        assert figures["win_rate"] == figures["wins"] / 8
        assert 0 <= low <= figures["win_rate"] <= high <= 1
    # the same seed plays the same games (decision times aside)
    again = _simulate_json(*args)
    for name in ("greedy", "random"):
        for key in ("wins", "hands", "points_per_hand", "decisions"):
            assert again["bots"][name][key] == bots[name][key]


def test_simulate_partnership_match_names_each_side_swap_in_its_text():
    result = CliRunner().invoke(
        main,
        ["simulate", "--game", "spades", "--preset", "suicide", "--bots", "random,greedy"]
        + ["--games", "1", "--seed", "text"],
    )
    assert result.exit_code == 0, result.output
    assert "2 games (1 deals × 2 side swaps)" in result.output
    assert "greedy: won" in result.output and "random: won" in result.output
    assert "#2" not in result.output


def test_simulate_one_bot_per_seat_stays_a_tournament_in_solo_spades():
    args = ("--game", "spades", "--preset", "solo", "--bots", "greedy,random,greedy")
    summary = _simulate_json(*args, "--games", "1", "--seed", "solo")
    assert summary["sides"] is None and summary["mirrored"] == 3 and summary["games"] == 3
    assert set(summary["bots"]) == {"greedy", "random", "greedy#2"}
    assert sum(bot["wins"] for bot in summary["bots"].values()) == 3


@pytest.mark.parametrize(
    ("preset", "bots", "expected"),
    [
        ("pairs", "greedy,random,greedy", "takes 4 bot names, one per seat, or 2, one per side"),
        ("solo", "greedy,random", "takes 3 or 4 bot names, one per seat"),
        ("pairs", "greedy,greedy", "needs two different bots"),
        ("pairs", "greedy,genius", "unknown bot 'genius'"),
    ],
)
def test_simulate_refuses_names_that_do_not_fit_the_game(preset, bots, expected):
    args = ["simulate", "--game", "spades", "--preset", preset, "--bots", bots, "--games", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert expected in result.output


def _figures(summary: dict) -> dict:
    """Everything but the clock: who won, hands, points, how many decisions."""
    keep = ("games", "wins", "hands", "points_per_hand", "decisions")
    bots = {
        name: {key: value for key, value in figures.items() if key in keep}
        for name, figures in summary["bots"].items()
    }
    return {"games": summary["games"], "hands": summary["hands"], "bots": bots}


@pytest.mark.parametrize(
    "args",
    [
        ["--bots", "greedy,random", "--games", "4", "--preset", "block"],
        ["--game", "spades", "--bots", "greedy,random", "--games", "2"],
    ],
)
def test_simulate_with_worker_processes_gives_the_same_figures(args):
    runner = CliRunner()
    alone = runner.invoke(main, ["simulate", *args, "--seed", "par", "--json"])
    pooled = runner.invoke(main, ["simulate", *args, "--seed", "par", "--json", "--workers", "2"])
    assert alone.exit_code == 0 and pooled.exit_code == 0, (alone.output, pooled.output)
    assert _figures(json.loads(pooled.output)) == _figures(json.loads(alone.output))
    assert json.loads(alone.output)["games"] > 0
