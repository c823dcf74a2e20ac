"""`python -m bench` reports the Spades bot figures (one deal; no timing is asserted)."""

import json

from bench.__main__ import GOALS, _spades


def test_a_one_deal_spades_match_reports_every_figure_and_goal():
    figures = _spades(1)
    assert figures["spades_games"] == 2  # one deal, played once per side swap
    assert figures["spades_hands"] >= 2
    assert figures["spades_strong_decisions"] > 0
    for key in (
        "spades_strong_decision_p50_ms",
        "spades_strong_decision_p99_ms",
        "spades_strong_decision_cpu_p99_ms",
        "spades_bot_hands_per_s",
    ):
        assert figures[key] > 0
    low, high = figures["spades_strong_win_ci95"]
    assert 0 <= low <= figures["spades_strong_win_rate"] <= high <= 1
    assert figures["spades_strong_win_ci95_low"] == low
    spades_goals = {key for key, *_ in GOALS if "spades" in key}
    assert spades_goals == {
        "spades_strong_decision_p99_ms",
        "spades_strong_win_ci95_low",
        "spades_strong_win_rate",
        "spades_bot_hands_per_s",
    }
    assert spades_goals <= set(figures)
    json.dumps(figures)
