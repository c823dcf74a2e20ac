"""Bags past the limit: carried toward the next penalty (the common house rule, the
default) or dropped (the source).

The source (shared/rules/000_…, Pairs): "If they make more tricks – one additional point
is scored. This point is called “bag”. When a team has 10 bags, they obtain a penalty of
-100 points and the bags are reset again to 0." Solo: "The maximum number of bags is 5".
"""

import pytest

from engine import InvalidOptions, table
from engine.spades import scoring
from engine.spades.options import OPTION_NAMES, resolve
from tests.engine.spades.helpers import GAME, Table, suit_cards

NO_BLIND = {"blind_nil": False, "blind_bids": False}
# Seat 0 holds every spade and takes all thirteen tricks.
ALL_SPADES = {0: suit_cards("S"), 1: suit_cards("H"), 2: suit_cards("D"), 3: suit_cards("C")}


def plain(*tricks):
    return [(t, False) for t in tricks]


def whole_hand(bags_past_limit):
    """Seats 0 and 2 bid one each and take thirteen: eleven bags in one hand."""
    options = (
        {**NO_BLIND}
        if bags_past_limit is None
        else {**NO_BLIND, "bags_past_limit": bags_past_limit}
    )
    t = Table(ALL_SPADES, options=options)
    t.bids(1, 1, 1, 1)
    t.play_out()
    return t


def test_carrying_the_bags_past_the_limit_is_the_default():
    assert resolve("pairs", None, 4).bags_past_limit == "carry"
    assert resolve("solo", None, 4).bags_past_limit == "carry"


@pytest.mark.parametrize(("bags_past_limit", "kept"), [(None, 1), ("carry", 1), ("reset", 0)])
def test_ten_bags_cost_a_hundred_and_the_rest_are_carried_or_reset(bags_past_limit, kept):
    t = whole_hand(bags_past_limit)
    ended = t.ended()
    result = ended["sides"][0]
    assert ended["tricks"] == [13, 0, 0, 0]
    assert result["bid"] == 2 and result["made"] is True and result["new_bags"] == 11
    assert result["bag_penalties"] == 1
    assert result["points"] == 2 * 10 + 11 - 100  # ten a trick bid, a point a bag, −100
    assert result["bags"] == kept and ended["bags"] == [kept, 0] and t.state.bags == (kept, 0)
    assert GAME.view(t.state, 1)["bags"] == [kept, 0]


def test_the_carried_bags_count_toward_the_next_penalty_and_reset_ones_do_not():
    carry = resolve("pairs", None, 4)
    reset = resolve("pairs", {"bags_past_limit": "reset"}, 4)
    # the hand after: a bid of 4 made with 13 (9 bags) on top of the 1 kept or the 0
    after_carry = scoring.score_side(carry, (0, 2), plain(2, 0, 2, 0), [7, 0, 6, 0], 1)
    after_reset = scoring.score_side(reset, (0, 2), plain(2, 0, 2, 0), [7, 0, 6, 0], 0)
    assert after_carry["bag_penalties"] == 1 and after_carry["bags"] == 0
    assert after_carry["points"] == 40 + 9 - 100
    assert after_reset["bag_penalties"] == 0 and after_reset["bags"] == 9
    assert after_reset["points"] == 40 + 9


def test_exactly_at_the_limit_both_ways_agree():
    for rule in ("carry", "reset"):
        options = resolve("pairs", {"bags_past_limit": rule}, 4)
        result = scoring.score_side(options, (0, 2), plain(2, 0, 2, 0), [3, 0, 3, 0], 8)
        assert result["bags"] == 0 and result["bag_penalties"] == 1
        assert result["points"] == 42 - 100


def test_a_hand_that_passes_the_limit_twice_costs_once_when_the_bags_reset():
    """Solo's limit is 5: 4 bags and 11 more are 15. Carried, that is three penalties
    and none kept; reset, the count reached the limit once and starts again from 0."""
    carry = resolve("solo", None, 4)
    reset = resolve("solo", {"bags_past_limit": "reset"}, 4)
    bids, tricks = plain(1, 5, 5, 2), [12, 0, 0, 1]
    carried = scoring.score_side(carry, (0,), bids, tricks, 4)
    dropped = scoring.score_side(reset, (0,), bids, tricks, 4)
    assert carried["new_bags"] == dropped["new_bags"] == 11
    assert (carried["bag_penalties"], carried["bags"]) == (3, 0)
    assert carried["points"] == 10 + 11 - 3 * 50
    assert (dropped["bag_penalties"], dropped["bags"]) == (1, 0)
    assert dropped["points"] == 10 + 11 - 50


def test_a_bad_value_is_refused_naming_the_option():
    for value in ("drop", None, True):
        with pytest.raises(InvalidOptions) as caught:
            resolve("pairs", {"bags_past_limit": value}, 4)
        assert caught.value.field == "options.bags_past_limit"
        assert caught.value.reason == "must be one of carry, reset"


def test_the_option_is_recorded_only_when_set_otherwise():
    """Games recorded before the option existed carried their bags; their first event
    holds no such field, and re-creating them (the audit does) must give that event."""
    state, events = table.new_game("spades", 4, table.seed_key("bags"))
    assert set(events[0]["options"]) == set(OPTION_NAMES) - {"bags_past_limit"}
    assert GAME.view(state, 0)["options"]["bags_past_limit"] == "carry"  # views: every field
    recorded = dict(events[0]["options"])
    assert resolve(None, recorded, 4).recorded() == recorded
    state, events = table.new_game(
        "spades", 4, table.seed_key("bags"), options={"bags_past_limit": "reset"}
    )
    assert events[0]["options"]["bags_past_limit"] == "reset"
    assert state.options.bags_past_limit == "reset"
