"""Seeded random-vs-random games (engine.simulation) and `cardtrail simulate --players`."""

import json
import random

import pytest
from click.testing import CliRunner

from cardtrail.cli import main
from engine import games, table
from engine.simulation.random_play import play_random_game, simulate_random

GAME = games.get("rummy")


@pytest.mark.parametrize(
    ("preset", "players"),
    [("pagat", 2), ("block", 5), ("penalty", 3), ("wrotham", 4), ("classic-online", 2)],
)
def test_a_random_game_ends_and_its_events_fold_back_to_its_state(preset, players):
    state, events = play_random_game("rummy", players, f"rp {preset}", preset=preset)
    assert GAME.is_finished(state)
    assert events[0]["type"] == "game_created" and events[-1]["type"] == "game_ended"
    assert table.fold(GAME, events) == state
    json.dumps(events)  # plain data


def test_the_same_seeds_replay_the_same_game_and_another_rng_seed_plays_another():
    first = play_random_game("rummy", 2, "same", rng=random.Random(7))[1]
    again = play_random_game("rummy", 2, "same", rng=random.Random(7))[1]
    other = play_random_game("rummy", 2, "same", rng=random.Random(8))[1]
    assert first == again
    assert first[:2] == other[:2]  # the deal depends on the game seed only
    assert first != other


def test_the_global_random_state_is_neither_used_nor_touched():
    random.seed(1)
    before = random.getstate()
    play_random_game("rummy", 2, "global")
    assert random.getstate() == before


def test_a_game_that_does_not_end_in_time_is_reported():
    with pytest.raises(RuntimeError, match="did not finish"):
        play_random_game("rummy", 2, "short", max_commands=3)


def test_simulate_random_reports_each_seat_from_the_events():
    done = []
    summary = simulate_random("rummy", 3, 4, "sim", "pagat", progress=done.append)
    assert done == [1, 2, 3, 4]
    assert summary["games"] == 4 and summary["players"] == 3
    assert sum(seat["wins"] for seat in summary["seats"]) == pytest.approx(4)
    assert summary["hands"] >= 4
    assert summary["hands_per_game"] == summary["hands"] / 4
    # winner-takes-the-points scoring: every hand's deltas are non-negative
    assert all(seat["points_per_hand"] >= 0 for seat in summary["seats"])
    assert simulate_random("rummy", 3, 4, "sim", "pagat") == summary


def test_cli_players_plays_random_seats_and_prints_each_seat():
    args = ["simulate", "--game", "rummy", "--preset", "pagat", "--players", "2"]
    result = CliRunner().invoke(main, [*args, "--games", "3", "--seed", "S"])
    assert result.exit_code == 0, result.output
    assert "3 games of rummy (pagat), 2 random seats" in result.output
    assert "hands/game" in result.output
    assert "seat 1: won" in result.output and "seat 2: won" in result.output  # from 1


def test_cli_players_json():
    args = ["simulate", "--players", "2", "--games", "2", "--seed", "S", "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["games"] == 2 and len(summary["seats"]) == 2
    assert summary["seconds"] > 0 and summary["hands_per_second"] > 0


def test_cli_players_refuses_bots_too_and_bad_seat_counts():
    both = CliRunner().invoke(main, ["simulate", "--players", "2", "--bots", "random,random"])
    assert both.exit_code == 2 and "--players or --bots" in both.output
    many = CliRunner().invoke(main, ["simulate", "--players", "7", "--games", "1"])
    assert many.exit_code == 2 and "2 to 6 players" in many.output
