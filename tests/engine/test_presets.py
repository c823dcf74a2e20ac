"""Presets are named sets of options with the documented settings."""

import pytest

from engine import InvalidOptions, table
from engine.rummy.options import Options, resolve
from tests.engine.rummy_helpers import GAME


def changed(preset, players=2):
    """The options a preset sets differently from the standard defaults."""
    resolved = resolve(preset, None, players).as_dict()
    defaults = Options().as_dict()
    return {name: value for name, value in resolved.items() if defaults[name] != value}


def test_the_game_lists_its_presets():
    assert set(GAME.presets) == {"pagat", "block", "penalty", "wrotham", "classic-online"}


def test_pagat_is_the_standard_game_with_pagats_stock_limit():
    assert changed("pagat") == {"max_stock_reuses": 2}
    options = resolve("pagat", None, 4)
    assert options.target_score == 100 and options.scoring == "winner"
    assert (options.min_players, options.max_players) == (2, 6)


def test_block():
    assert changed("block") == {"stock_exhausted": "end"}


def test_penalty():
    assert changed("penalty") == {"max_stock_reuses": 2, "scoring": "penalty"}
    assert resolve("penalty", None, 3).target_score == 100


def test_wrotham():
    assert changed("wrotham") == {
        "jokers": 3,
        "hand_size": 7,
        "starter_extra_card": True,
        "all_at_once_from_deal": 4,
        "game_end": "deals",
        "deals": 6,
        "max_stock_reuses": 2,
    }


def test_classic_online():
    assert changed("classic-online") == {
        "melds_per_turn": "any",
        "stock_exhausted": "shuffle",
        "stock_exhausted_at": "last_card",
        "max_stock_reuses": 1,
        "no_winner": "stalemate",
        "going_rummy": "double",
        "target_score_by_players": {"2": 100, "3": 75, "4": 50},
        "max_players": 4,
    }
    options = resolve("classic-online", None, 2)
    assert options.scoring == "winner" and options.aces == "low"
    assert not options.round_the_corner


@pytest.mark.parametrize(("players", "target", "size"), [(2, 100, 10), (3, 75, 7), (4, 50, 7)])
def test_classic_online_targets_and_hand_sizes_by_player_count(players, target, size):
    options = resolve("classic-online", None, players)
    assert options.target_for(players) == target
    state, _ = table.new_game("rummy", players, table.seed_key("online"), preset="classic-online")
    assert [len(h) for h in state.hand.hands] == [size] * players


@pytest.mark.parametrize("players", [1, 5, 6])
def test_classic_online_takes_two_to_four_players(players):
    with pytest.raises(InvalidOptions) as caught:
        table.new_game("rummy", players, table.seed_key("x"), preset="classic-online")
    assert caught.value.field == "seats"


@pytest.mark.parametrize("preset", ["pagat", "block", "penalty", "wrotham"])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_presets_take_two_to_six_players(preset, players):
    state, _ = table.new_game("rummy", players, table.seed_key("x"), preset=preset)
    assert state.players == players and state.status == "playing"
