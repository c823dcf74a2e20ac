"""Options and presets: every mode resolves, every bad value names its field."""

import pytest

from engine import games, table
from engine.errors import InvalidOptions
from engine.spades.options import PRESETS, resolve

GAME = games.get("spades")


def test_registered_as_a_game():
    assert "spades" in games.names() and "rummy" in games.names()
    assert GAME.name == "spades" and GAME.presets == tuple(PRESETS)
    assert set(GAME.command_types) == {"look", "bid", "play", "forfeit"}
    assert set(GAME.bots) == {"random", "greedy", "strong"}


def test_default_preset_is_pairs_with_blind_bidding():
    options = resolve(None, None, 4)
    assert options == resolve("pairs", {}, 4)
    assert options.mode == "pairs" and options.blind_nil and options.blind_bids
    assert options.target_score == 500 and options.bag_limit == 10 and options.bag_penalty == 100
    assert options.set_scoring == "zero" and options.nil_bonus == 100
    assert options.blind_nil_bonus == 200 and options.blind_bid_bonus == 200


@pytest.mark.parametrize("preset", ["solo", "suicide", "whiz", "mirror"])
def test_other_modes_have_no_blind_bids(preset):
    options = resolve(preset, None, 4)
    assert options.mode == preset and not options.blind_nil and not options.blind_bids


def test_solo_reads_the_source():
    options = resolve("solo", None, 4)
    assert (options.bag_limit, options.bag_penalty, options.nil_bonus) == (5, 50, 50)


def test_options_override_the_preset_and_are_recorded():
    options = resolve("pairs", {"target_score": 300, "set_scoring": "minus"}, 4)
    assert options.target_score == 300 and options.set_scoring == "minus"
    state, events = table.new_game("spades", 4, table.seed_key("o"), options={"boston": True})
    assert events[0]["options"]["boston"] is True and state.options.boston


def test_three_players_is_solo_with_three_seats():
    assert resolve("solo", None, 3).three_players
    assert not resolve("solo", None, 4).three_players
    with pytest.raises(InvalidOptions) as caught:
        resolve("pairs", None, 3)
    assert caught.value.field == "seats"
    with pytest.raises(InvalidOptions) as caught:
        resolve("solo", {"three_players": True}, 4)
    assert caught.value.field == "options.three_players"


@pytest.mark.parametrize(
    ("preset", "options", "players", "field"),
    [
        ("hearts", None, 4, "preset"),
        ("pairs", {"colour": "red"}, 4, "options.colour"),
        ("pairs", {"mode": "duet"}, 4, "options.mode"),
        ("pairs", {"target_score": 0}, 4, "options.target_score"),
        ("pairs", {"target_score": "500"}, 4, "options.target_score"),
        ("pairs", {"losing_score": 100}, 4, "options.losing_score"),
        ("pairs", {"bag_limit": True}, 4, "options.bag_limit"),
        ("pairs", {"boston": "yes"}, 4, "options.boston"),
        ("pairs", {"trumps": "jokers"}, 4, "options.trumps"),
        ("pairs", {"deuce_order": "SSDC"}, 4, "options.deuce_order"),
        ("pairs", {"set_scoring": "half"}, 4, "options.set_scoring"),
        ("pairs", {"nil_tricks": "count"}, 4, "options.nil_tricks"),
        ("pairs", {"first_dealer": 4}, 4, "options.first_dealer"),
        ("solo", {"first_dealer": 3}, 3, "options.first_dealer"),
        ("solo", {"blind_nil": True}, 4, "options.blind_nil"),
        ("suicide", {"blind_bids": True}, 4, "options.blind_bids"),
        ("pairs", {"nil": False}, 4, "options.blind_nil"),
        ("suicide", {"nil": False}, 4, "options.nil"),
        ("whiz", {"nil": False}, 4, "options.nil"),
        ("mirror", {"nil": False}, 4, "options.nil"),
        ("pairs", {"blind_bid_min": 14}, 4, "options.blind_bid_min"),
        ("pairs", None, 5, "seats"),
        ("solo", None, 2, "seats"),
        ("whiz", None, 3, "seats"),
    ],
)
def test_bad_options_name_their_field(preset, options, players, field):
    with pytest.raises(InvalidOptions) as caught:
        resolve(preset, options, players)
    assert caught.value.field == field


def test_options_must_be_an_object():
    with pytest.raises(InvalidOptions) as caught:
        resolve("pairs", ["boston"], 4)
    assert caught.value.field == "options"


def test_deuce_order_is_normalised():
    assert resolve("pairs", {"trumps": "deuces_high", "deuce_order": "hcds"}, 4).deuce_order == (
        "HCDS"
    )


def test_new_game_reports_a_bad_stacked_deck_as_options():
    with pytest.raises(InvalidOptions) as caught:
        table.new_game("spades", 4, table.seed_key("d"), deck=["AS"] * 52)
    assert caught.value.field == "deck"
