"""The engine benchmark runs and reports every figure (sizes tiny; no timing is asserted)."""

import json

from bench import engine_bench


def test_a_tiny_run_reports_fold_hands_baselines_and_ratios():
    result = engine_bench.run(rounds=1, games_count=1, deals=1, spades_deals=1)
    assert result["fold"]["events"] > 10
    assert result["hands"]["hands"] >= 1
    spades = result["spades"]
    assert (spades["players"], spades["preset"]) == (4, "pairs")
    assert spades["fold"]["events"] > 10
    assert spades["hands"]["hands"] >= 1
    assert set(result["baseline"]) == {
        "json_roundtrip_events_per_s",
        "deepcopy_events_per_s",
        "loop_iterations_per_s",
        "spades_json_roundtrip_events_per_s",
        "spades_deepcopy_events_per_s",
    }
    for figures in (
        result["fold"]["events_per_s"],
        result["hands"]["hands_per_s"],
        spades["fold"]["events_per_s"],
        spades["hands"]["hands_per_s"],
        *result["baseline"].values(),
    ):
        assert figures["best"] > 0 and figures["median"] > 0
    assert set(result["ratios"]) == {
        "fold_per_json_roundtrip",
        "fold_per_deepcopy",
        "hands_per_s_per_mloop_per_s",
        "spades_fold_per_json_roundtrip",
        "spades_fold_per_deepcopy",
        "spades_hands_per_s_per_mloop_per_s",
    }
    json.dumps(result)


def test_the_text_report_names_each_figure(capsys):
    engine_bench.main(["--quick"])
    out = capsys.readouterr().out
    for word in ("fold", "hands", "json", "copy", "loop", "ratios", "spades"):
        assert word in out
