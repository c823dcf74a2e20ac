"""Scoring: bids made and set, bags and their roll-over, nil and blind bids, game end."""

import pytest

from engine.spades import scoring
from engine.spades.options import resolve
from tests.engine.spades.helpers import GAME, Table, suit_cards

NO_BLIND = {"blind_nil": False, "blind_bids": False}
PAIRS = resolve("pairs", None, 4)


def side(options, bids, tricks, bags=0, members=(0, 2)):
    return scoring.score_side(options, members, bids, tricks, bags)


def plain(*tricks):
    return [(t, False) for t in tricks]


def test_a_made_bid_scores_ten_a_trick_and_a_point_a_bag():
    result = side(PAIRS, plain(3, 0, 2, 0), [4, 0, 3, 0])
    assert result["bid"] == 5 and result["made"] is True
    assert result["points"] == 52 and result["new_bags"] == 2 and result["bags"] == 2


def test_a_side_short_of_its_bid_scores_nothing_by_the_source():
    result = side(PAIRS, plain(5, 0, 4, 0), [4, 0, 4, 0])
    assert result["made"] is False and result["points"] == 0 and result["bags"] == 0


def test_a_side_short_of_its_bid_loses_ten_a_trick_by_the_book_rule():
    options = resolve("pairs", {"set_scoring": "minus"}, 4)
    assert side(options, plain(5, 0, 4, 0), [4, 0, 4, 0])["points"] == -90


def test_ten_bags_cost_a_hundred_and_roll_over():
    result = side(PAIRS, plain(2, 0, 2, 0), [5, 0, 3, 0], bags=8)  # 4 new bags: 12
    assert result["bag_penalties"] == 1 and result["bags"] == 2
    assert result["points"] == 40 + 4 - 100
    exactly = side(PAIRS, plain(2, 0, 2, 0), [3, 0, 3, 0], bags=8)  # 2 new: exactly 10
    assert exactly["bags"] == 0 and exactly["points"] == 42 - 100


def test_twenty_bags_at_once_cost_twice():
    options = resolve("solo", None, 4)  # five bags to a penalty of 50
    result = scoring.score_side(options, (0,), plain(1, 5, 5, 2), [12, 0, 0, 1], 0)
    assert result["new_bags"] == 11 and result["bag_penalties"] == 2 and result["bags"] == 1
    assert result["points"] == 10 + 11 - 100


def test_nil_made_and_failed():
    made = side(PAIRS, plain(0, 0, 4, 0), [0, 0, 5, 0])
    assert made["nils"] == [{"seat": 0, "blind": False, "made": True}]
    assert made["points"] == 100 + 41
    failed = side(PAIRS, plain(0, 0, 4, 0), [2, 0, 4, 0])
    assert failed["nils"][0]["made"] is False
    # the nil bidder's two tricks are bags for the side, never toward the partner's bid
    assert failed["points"] == -100 + 40 + 2 and failed["bags"] == 2


def test_a_nil_bidders_tricks_do_not_make_the_partners_bid():
    result = side(PAIRS, plain(0, 0, 4, 0), [3, 0, 2, 0])
    assert result["made"] is False and result["points"] == -100 + 3 and result["bags"] == 3


def test_nil_tricks_may_count_toward_the_bid_or_be_ignored():
    counting = resolve("pairs", {"nil_tricks": "bid"}, 4)
    result = side(counting, plain(0, 0, 4, 0), [3, 0, 2, 0])
    assert result["made"] is True and result["points"] == -100 + 41 and result["bags"] == 1
    ignored = resolve("pairs", {"nil_tricks": "ignored"}, 4)
    result = side(ignored, plain(0, 0, 4, 0), [3, 0, 4, 0])
    assert result["points"] == -100 + 40 and result["bags"] == 0


def test_double_nil_side_and_its_tricks():
    result = side(PAIRS, plain(0, 0, 0, 0), [0, 0, 1, 0])
    assert result["bid"] == 0 and result["made"] is None
    assert result["points"] == 100 - 100 + 1 and result["bags"] == 1


def test_blind_nil_scores_double_both_ways():
    made = side(PAIRS, [(0, True), (0, False), (3, False), (0, False)], [0, 0, 4, 0])
    assert made["points"] == 200 + 31
    failed = side(PAIRS, [(0, True), (0, False), (3, False), (0, False)], [1, 0, 3, 0])
    assert failed["points"] == -200 + 30 + 1


def test_a_blind_bid_adds_or_costs_two_hundred():
    made = side(PAIRS, [(4, True), (0, False), (2, False), (0, False)], [3, 0, 3, 0])
    assert made["points"] == 60 + 200
    failed = side(PAIRS, [(4, True), (0, False), (2, False), (0, False)], [3, 0, 2, 0])
    assert failed["points"] == -200
    literal = resolve("pairs", {"blind_bid_penalty": 0}, 4)
    assert (
        side(literal, [(4, True), (0, False), (2, False), (0, False)], [3, 0, 2, 0])["points"] == 0
    )


def test_solo_nil_is_worth_fifty():
    options = resolve("solo", None, 4)
    assert scoring.score_side(options, (1,), plain(3, 0, 3, 3), [4, 0, 4, 5], 0)["points"] == 50
    assert scoring.score_side(options, (1,), plain(3, 0, 3, 3), [4, 1, 4, 4], 0)["points"] == -49


def test_the_game_ends_at_the_target_with_a_single_leader():
    assert scoring.game_over(PAIRS, [499, 120], 5) is None
    assert scoring.game_over(PAIRS, [510, 120], 5) == ([0], "target")
    assert scoring.game_over(PAIRS, [510, 530], 5) == ([1], "target")
    assert scoring.game_over(PAIRS, [510, 510], 5) is None  # tied: play another hand


def test_losing_score_and_hand_limit():
    options = resolve("solo", {"losing_score": -200, "max_hands": 10}, 4)
    assert scoring.game_over(options, [10, -200, 40, 30], 3) == ([2], "losing_score")
    assert scoring.game_over(options, [10, -190, 40, 30], 3) is None
    assert scoring.game_over(options, [40, -190, 40, 30], 10) == ([0, 2], "max_hands")


# -- whole hands --------------------------------------------------------------------

ALL_SPADES = {0: suit_cards("S"), 1: suit_cards("H"), 2: suit_cards("D"), 3: suit_cards("C")}


def play_all_spades(bids, options=None):
    t = Table(ALL_SPADES, options={**NO_BLIND, **(options or {})})
    t.bids(*bids)
    t.play_out()
    return t


def test_a_whole_hand_scores_both_sides_and_keeps_the_bags():
    t = play_all_spades([13, 0, 0, 0])
    ended = t.ended()
    assert ended["tricks"] == [13, 0, 0, 0]
    assert ended["side_deltas"] == [130 + 100, 200]
    assert ended["deltas"] == [230, 200, 230, 200] and ended["scores"] == ended["deltas"]
    assert t.state.scores == (230, 200) and t.state.bags == (0, 0)
    assert GAME.view(t.state, 1)["scores"] == [230, 200, 230, 200]


def test_a_failed_nil_gives_its_tricks_as_bags_and_they_roll_over():
    t = play_all_spades([0, 1, 1, 1])  # seat 0 bid nil and takes all thirteen tricks
    ended = t.ended()
    result = ended["sides"][0]
    assert result["nils"] == [{"seat": 0, "blind": False, "made": False}]
    assert result["made"] is False  # seat 2's one trick was never taken
    assert result["new_bags"] == 13 and result["bag_penalties"] == 1 and result["bags"] == 3
    assert result["points"] == -100 + 13 - 100
    assert t.state.bags == (3, 0) and ended["bags"] == [3, 0]
    assert ended["side_deltas"][1] == 0  # seats 1 and 3 bid one each and took nothing


def test_boston_wins_the_game_outright():
    t = play_all_spades([13, 0, 0, 0], {"boston": True})
    assert t.ended()["boston"] == 0
    assert t.state.result["winners"] == [0, 2] and t.state.result["reason"] == "boston"
    assert GAME.is_finished(t.state)


def test_without_boston_all_thirteen_tricks_are_just_a_good_hand():
    t = play_all_spades([13, 0, 0, 0])
    assert t.ended()["boston"] is None and not GAME.is_finished(t.state)


def test_reaching_the_target_ends_the_game():
    t = play_all_spades([13, 0, 0, 0], {"target_score": 220})
    assert t.state.result["winners"] == [0, 2] and t.state.result["reason"] == "target"
    assert t.state.result["scores"] == [230, 200, 230, 200]


def test_the_game_ends_after_max_hands():
    t = play_all_spades([13, 0, 0, 0], {"max_hands": 1})
    assert t.state.result["reason"] == "max_hands" and t.state.result["winners"] == [0, 2]


@pytest.mark.parametrize("blind", [True, False])
def test_blind_nil_both_ways_in_a_whole_hand(blind):
    # seat 1 holds every heart: as blind nil it can only win when hearts are led
    t = Table(ALL_SPADES)
    t.bid(0, 13)
    if blind:  # seat 1 never looked: its blind nil succeeds (spades are led every trick)
        t.bid(1, 0, blind=True)
    else:
        t.bid(1, 0)
    t.bid(2, 0)
    t.bid(3, 0)
    t.play_out()
    result = t.ended()["sides"][1]
    assert result["nils"][0] == {"seat": 1, "blind": blind, "made": True}
    assert result["points"] == (200 if blind else 100) + 100


def test_a_failed_blind_nil_costs_two_hundred():
    hands = {0: suit_cards("H"), 1: suit_cards("S"), 2: suit_cards("D"), 3: suit_cards("C")}
    t = Table(hands)
    t.bid(0, 3)
    t.bid(1, 0, blind=True)
    t.bid(2, 3)
    t.bid(3, 3)
    t.play_out()
    ended = t.ended()
    assert ended["tricks"][1] == 13
    result = ended["sides"][1]
    assert result["nils"][0] == {"seat": 1, "blind": True, "made": False}
    assert result["points"] == -200 + 13 + 0 - 100  # 13 bags: one penalty, 3 roll over
    assert ended["bags"][1] == 3
