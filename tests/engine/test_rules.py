"""Basic Rummy as Pagat describes it: the deal, the turn, melds, laying off,
discarding, going out, scoring and the end of the game.

Tables are stacked (see rummy_helpers): with two players seat 1 deals and seat 0
plays first unless a test says otherwise.
"""

import random
from collections import Counter
from dataclasses import replace

import pytest

from engine import IllegalMove, InvalidOptions, table
from engine.cards import standard_pack
from engine.rummy.melds import arrange, lay_off
from engine.rummy.options import resolve
from engine.rummy.scoring import card_points
from tests.engine.rummy_helpers import GAME, Table

STANDARD = resolve("pagat", None, 2)


def play_out_hand(t, seed=0):
    """Finish the current hand with random legal moves (the next hand is dealt by `table`)."""
    rng = random.Random(seed)
    played = t.state.hands_played
    for _ in range(20_000):
        if t.state.hands_played > played or GAME.is_finished(t.state):
            return
        seat = GAME.to_act(t.state)[0]
        t.play(seat, **rng.choice(GAME.legal_moves(t.state, seat)))
    raise AssertionError("the hand did not end")


# -- the deal ------------------------------------------------------------------


@pytest.mark.parametrize(("players", "size"), [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_hand_sizes_by_player_count(players, size):
    state, _ = table.new_game("rummy", players, table.seed_key("sizes"), preset="pagat")
    hand = state.hand
    assert [len(cards) for cards in hand.hands] == [size] * players
    assert len(hand.discard_pile) == 1  # the upcard
    assert len(hand.stock) == 52 - players * size - 1


def test_deal_is_one_card_at_a_time_from_the_dealers_left():
    deck = list(standard_pack())
    state, events = table.new_game(
        "rummy", 3, table.seed_key("x"), options={"first_dealer": 1}, deck=deck
    )
    hand = state.hand
    assert hand.dealer == 1
    # seat 2 (dealer's left) gets deck[0], deck[3], …; seat 0 deck[1], …; the dealer last.
    assert hand.hands[2] == tuple(deck[0:21:3])
    assert hand.hands[0] == tuple(deck[1:21:3])
    assert hand.hands[1] == tuple(deck[2:21:3])
    assert hand.discard_pile == (deck[21],)  # the upcard
    assert hand.stock == tuple(deck[22:])  # the next card is the top of the stock
    assert hand.turn == 2 and hand.phase == "draw"  # the player to the dealer's left starts
    assert events[0]["deck_source"] == "explicit"
    assert events[1]["type"] == "hand_dealt" and events[1]["deck"] == deck


def test_the_first_dealer_comes_from_the_seed_unless_an_option_names_one():
    dealers = set()
    for n in range(20):
        key = table.seed_key(f"dealer {n}")
        state, _ = table.new_game("rummy", 4, key)
        assert state.hand.dealer == table.first_dealer(key, 4)
        assert state.first_dealer == state.hand.dealer
        dealers.add(state.hand.dealer)
    assert len(dealers) > 1
    state, _ = table.new_game("rummy", 4, key, options={"first_dealer": 3})
    assert state.hand.dealer == 3 and state.hand.turn == 0


def test_a_bad_explicit_deck_is_refused():
    with pytest.raises(InvalidOptions) as caught:
        table.new_game("rummy", 2, table.seed_key("x"), deck=list(standard_pack())[:-1])
    assert caught.value.field == "deck"
    with pytest.raises(InvalidOptions):
        table.new_game("rummy", 2, table.seed_key("x"), deck=["AS"] * 52)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_deal_rotates_to_the_left_each_hand(players):
    t = Table(players=players, dealer=0)
    dealers, starters = [], []
    for number in range(1, 4):
        assert t.hand.number == number
        dealers.append(t.hand.dealer)
        starters.append(t.hand.turn)
        play_out_hand(t, seed=number)
        if GAME.is_finished(t.state):
            break
    expected = [n % players for n in range(len(dealers))]
    assert dealers == expected
    assert starters == [(d + 1) % players for d in dealers]
    assert [e["dealer"] for e in t.events if e["type"] == "hand_dealt"][: len(dealers)] == dealers


# -- the turn ------------------------------------------------------------------


def test_a_turn_is_draw_then_discard_and_play_passes_to_the_left():
    t = Table(players=3, stock=["9S"])
    assert t.hand.turn == 0 and t.hand.phase == "draw"
    t.draw(0)
    assert "9S" in t.cards(0) and t.hand.phase == "play"
    t.discard(0, "9S")
    assert t.hand.turn == 1 and t.hand.phase == "draw"
    assert t.hand.discard_pile[-1] == "9S"


def test_must_draw_first():
    t = Table(hands={0: ["4H", "5H", "6H"]})
    card = t.cards(0)[0]
    t.refuse(0, "must_draw_first", "discard", card=card)
    t.refuse(0, "must_draw_first", "meld", cards=["4H", "5H", "6H"])
    assert GAME.legal_moves(t.state, 0) == [
        {"type": "draw", "source": "stock"},
        {"type": "draw", "source": "discard"},
    ]


def test_already_drew():
    t = Table()
    t.draw(0)
    t.refuse(0, "already_drew", "draw", source="stock")
    t.refuse(0, "already_drew", "draw", source="discard")


def test_not_your_turn():
    t = Table(players=3)
    refused = t.refuse(1, "not_your_turn", "draw", source="stock")
    assert refused.message == "It is seat 1's turn, not yours."  # seat 0, counted from 1
    t.draw(0)
    t.refuse(2, "not_your_turn", "discard", card=t.cards(2)[0])
    assert GAME.legal_moves(t.state, 1) == [] and GAME.to_act(t.state) == [0]


def test_card_not_in_hand():
    t = Table(hands={0: ["4H", "5H", "2C"]}, stock=["9S"])
    t.draw(0)
    t.refuse(0, "card_not_in_hand", "discard", card="KS")
    t.refuse(0, "card_not_in_hand", "meld", cards=["4H", "5H", "6H"])
    t.refuse(0, "card_not_in_hand", "meld", cards=["4H", "4H", "4H"])


def test_malformed_commands_are_refused_with_codes():
    t = Table()
    t.refuse(0, "unknown_command", "shuffle")
    t.refuse(0, "invalid_source", "draw", source="deck")
    with pytest.raises(IllegalMove) as caught:
        GAME.decide(t.state, {"type": "draw", "source": "stock", "seat": 7})
    assert caught.value.code == "unknown_seat"
    t.draw(0)
    t.refuse(0, "invalid_card", "discard", card="11H")
    t.refuse(0, "invalid_meld", "meld", cards="4H 5H 6H")
    t.refuse(0, "unknown_meld", "lay_off", card=t.cards(0)[0], meld=1)


def test_draw_takes_the_top_of_the_stock_or_of_the_discard_pile():
    t = Table(players=3, upcard="QD", stock=["2S", "3S"])
    t.draw(0, "stock")
    assert t.cards(0)[-1] == "2S" and t.hand.stock[0] == "3S"
    t.discard(0, "2S")
    t.draw(1, "discard")
    assert t.cards(1)[-1] == "2S" and t.hand.discard_pile == ("QD",)


# -- discarding ----------------------------------------------------------------


def test_cannot_discard_the_card_just_taken_from_the_discard_pile():
    t = Table(players=2, upcard="QD")
    t.draw(0, "discard")
    t.refuse(0, "cannot_discard_drawn_discard", "discard", card="QD")
    assert {"type": "discard", "card": "QD"} not in GAME.legal_moves(t.state, 0)
    other = t.cards(0)[0]
    t.discard(0, other)
    # ... but may discard it on a later turn
    t.draw(1)
    t.discard(1, t.cards(1)[-1])
    t.draw(0)
    t.discard(0, "QD")
    assert t.hand.discard_pile[-1] == "QD"


def test_a_card_drawn_from_the_stock_may_be_discarded_at_once():
    t = Table(stock=["QD"])
    t.draw(0)
    t.discard(0, "QD")
    assert t.hand.discard_pile[-1] == "QD" and "QD" not in t.cards(0)


def test_a_turn_must_keep_a_card_that_may_be_discarded():
    # taking QD from the pile, seat 0 may not meld everything else and be left with only QD
    t = Table(
        hands={0: ["4H", "5H", "6H"], 1: ["KS", "QS", "JS"]}, upcard="QD", options={"hand_size": 3}
    )
    t.draw(0, "discard")
    t.refuse(0, "must_keep_a_discard", "meld", cards=["4H", "5H", "6H"])
    assert [m["type"] for m in GAME.legal_moves(t.state, 0)] == ["discard"] * 3


def test_laying_off_may_not_leave_only_the_card_taken_from_the_pile():
    t = Table(
        hands={0: ["4H", "5H", "6H", "7H"], 1: ["KS", "QS", "JS", "2C"]},
        stock=["10D", "8S"],
        options={"hand_size": 4},
    )
    t.draw(0)  # 10D
    t.meld(0, "4H", "5H", "6H")
    t.discard(0, "10D")  # keeps 7H
    t.draw(1)  # 8S
    t.discard(1, "8S")
    t.draw(0, "discard")  # holds 7H and 8S, which it may not discard this turn
    t.refuse(0, "must_keep_a_discard", "lay_off", card="7H", meld=1)
    assert GAME.legal_moves(t.state, 0) == [{"type": "discard", "card": "7H"}]


def test_drawing_the_discard_may_not_leave_nothing_to_discard():
    # only possible with jokers: a lone joker in hand and a joker on the pile
    t = Table(preset="wrotham", hands={0: ["JK", "2C", "3D", "4S", "5H", "6C", "7D", "8S"]})
    t.discard(0, "JK")
    hand = replace(t.hand, hands=(t.hand.hands[0], ("JK",)))
    state = replace(t.state, hand=hand)
    with pytest.raises(IllegalMove) as caught:
        GAME.decide(state, {"type": "draw", "source": "discard", "seat": 1})
    assert caught.value.code == "must_keep_a_discard"
    assert GAME.legal_moves(state, 1) == [{"type": "draw", "source": "stock"}]


# -- melds -----------------------------------------------------------------------


def meld_of(*cards, options=STANDARD):
    return arrange(list(cards), 0, 1, options)


@pytest.mark.parametrize(
    "cards",
    [
        ("7C", "7D", "7H"),
        ("7C", "7D", "7H", "7S"),
        ("AS", "AH", "AD"),
        ("AH", "2H", "3H"),
        ("4S", "5S", "6S"),
        ("8D", "9D", "10D", "JD"),
        ("JC", "QC", "KC"),
        ("AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC"),
        ("6S", "4S", "5S"),  # any order
    ],
)
def test_valid_melds(cards):
    meld = meld_of(*cards)
    assert meld is not None
    assert Counter(meld.cards) == Counter(cards)


@pytest.mark.parametrize(
    "cards",
    [
        ("7C", "7D"),  # two cards
        ("7C",),
        (),
        ("QH", "KH", "AH"),  # aces are low: Q-K-A is no run
        ("KH", "AH", "2H"),  # no round-the-corner
        ("4S", "5S", "7S"),  # a gap
        ("4S", "5H", "6S"),  # mixed suits
        ("7C", "7D", "8C"),
        ("2C", "3C", "4C", "4D"),
    ],
)
def test_invalid_melds(cards):
    assert meld_of(*cards) is None


def test_runs_are_laid_out_in_order_and_groups_by_suit():
    run = meld_of("6S", "4S", "5S")
    assert run.kind == "run" and run.cards == ("4S", "5S", "6S") and run.start == 4
    group = meld_of("7S", "7C", "7H")
    assert group.kind == "group" and group.cards == ("7C", "7H", "7S") and group.rank == 7


def test_meld_command_accepts_cards_in_any_order_and_records_the_meld():
    t = Table(hands={0: ["6H", "4H", "5H", "9C", "9D", "9S"]})
    t.draw(0)
    events = t.meld(0, "5H", "6H", "4H")
    assert events[0]["type"] == "melded"
    assert events[0]["meld"] == {
        "id": 1,
        "owner": 0,
        "kind": "run",
        "cards": ["4H", "5H", "6H"],
        "suit": "H",
        "start": 4,
    }
    assert not {"4H", "5H", "6H"} & set(t.cards(0))
    assert t.hand.melds[0].cards == ("4H", "5H", "6H")


def test_an_invalid_meld_is_refused():
    t = Table(hands={0: ["QH", "KH", "AH", "7C", "7D", "8C"]})
    t.draw(0)
    t.refuse(0, "invalid_meld", "meld", cards=["QH", "KH", "AH"])
    t.refuse(0, "invalid_meld", "meld", cards=["7C", "7D", "8C"])
    t.refuse(0, "invalid_meld", "meld", cards=["7C", "7D"])
    assert t.hand.melds == ()


def test_melding_is_optional():
    t = Table(hands={0: ["4H", "5H", "6H"]}, stock=["KS"])
    t.draw(0)
    t.discard(0, "KS")
    assert t.hand.melds == () and t.hand.turn == 1


# -- laying off ------------------------------------------------------------------


@pytest.mark.parametrize("card", ["3H", "7H"])
def test_pagat_lay_off_3_or_7_on_4_5_6(card):
    run = meld_of("4H", "5H", "6H")
    extended = lay_off(run, card, STANDARD)
    assert extended is not None and len(extended.cards) == 4
    assert extended.cards[0 if card == "3H" else -1] == card
    assert lay_off(run, "8H", STANDARD) is None
    assert lay_off(run, "3S", STANDARD) is None


def test_pagat_no_rearranging_to_lay_off_the_ace():
    # 2-2-2-2 and 3-4-5 are on the table: the A cannot go on the run by moving a 2 across.
    t = Table(
        hands={0: ["2C", "2D", "2H", "2S", "3S", "4S", "5S", "AS", "9D", "KC"]},
        stock=["QH", "JD"],
        options={"melds_per_turn": "any"},
    )
    t.draw(0)
    t.meld(0, "2C", "2D", "2H", "2S")
    t.meld(0, "3S", "4S", "5S")
    t.refuse(0, "cannot_lay_off", "lay_off", card="AS", meld=2)
    t.refuse(0, "cannot_lay_off", "lay_off", card="AS", meld=1)
    moves = GAME.legal_moves(t.state, 0)
    assert not [m for m in moves if m["type"] == "lay_off" and m["card"] == "AS"]
    assert t.meld_cards(1) == ("2C", "2D", "2H", "2S") and t.meld_cards(2) == ("3S", "4S", "5S")


def test_lay_off_on_own_and_on_others_melds():
    t = Table(
        hands={0: ["4H", "5H", "6H", "9C", "AC", "10S"], 1: ["7H", "8H", "KD", "KC", "KS", "2H"]},
        stock=["2C", "QH", "3D", "JD"],
        options={"hand_size": 6},
    )
    t.draw(0)
    t.meld(0, "4H", "5H", "6H")
    t.discard(0, "2C")
    t.draw(1)  # QH
    t.meld(1, "KD", "KC", "KS")
    t.lay_off(1, "7H", 1)  # on seat 0's meld
    t.lay_off(1, "8H", 1)  # on it again: no limit on lay-offs
    assert t.meld_cards(1) == ("4H", "5H", "6H", "7H", "8H")
    t.discard(1, "QH")
    t.draw(0)  # 3D
    t.refuse(0, "cannot_lay_off", "lay_off", card="3D", meld=1)
    t.refuse(0, "cannot_lay_off", "lay_off", card="9C", meld=2)
    t.discard(0, "3D")
    t.draw(1)  # JD
    assert t.hand.melds[0].owner == 0 and t.hand.melds[1].owner == 1


def test_groups_take_a_fourth_card_but_not_a_fifth():
    group = meld_of("7C", "7D", "7H")
    full = lay_off(group, "7S", STANDARD)
    assert full.cards == ("7C", "7D", "7H", "7S")
    assert lay_off(full, "7S", STANDARD) is None
    assert lay_off(group, "8S", STANDARD) is None


def test_runs_do_not_extend_past_the_ace_or_the_king():
    low = meld_of("AH", "2H", "3H")
    assert lay_off(low, "KH", STANDARD) is None
    assert lay_off(low, "4H", STANDARD).cards == ("AH", "2H", "3H", "4H")
    high = meld_of("JS", "QS", "KS")
    assert lay_off(high, "AS", STANDARD) is None
    assert lay_off(high, "10S", STANDARD).cards == ("10S", "JS", "QS", "KS")


# -- going out and scoring ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "points"),
    [("KS", 10), ("QH", 10), ("JD", 10), ("10C", 10), ("AS", 1), ("9H", 9), ("2C", 2), ("5D", 5)],
)
def test_card_values(card, points):
    assert card_points(card, STANDARD) == points


def test_going_out_by_melding_ends_the_hand_at_once():
    t = Table(hands={0: ["4H", "5H"], 1: ["KS", "QD"]}, stock=["6H"], options={"hand_size": 2})
    t.draw(0)
    events = t.meld(0, "4H", "5H", "6H")
    assert [e["type"] for e in events[:3]] == ["melded", "hand_ended", "hand_dealt"]
    ended = events[1]
    assert ended["winner"] == 0 and ended["reason"] == "went_out"
    assert ended["hands"] == [[], ["KS", "QD"]]
    assert ended["points"] == [0, 20] and ended["deltas"] == [20, 0]
    assert t.state.scores == (20, 0)
    assert t.hand.number == 2  # the next hand was dealt at once


def test_going_out_by_laying_off_the_last_card():
    # seat 0 holds 4-5-6 and two cards that fit it; going out needs a card to lay off last.
    t = Table(
        hands={0: ["4H", "5H", "6H", "3H", "7H"], 1: ["KS", "QD", "JC", "AS", "2D"]},
        stock=["9C", "8C", "8H"],
        options={"hand_size": 5},
    )
    t.draw(0)  # 9C
    t.meld(0, "4H", "5H", "6H")
    t.discard(0, "9C")
    t.draw(1)  # 8C
    t.discard(1, "8C")
    t.draw(0)  # 8H
    t.lay_off(0, "3H", 1)
    t.lay_off(0, "7H", 1)
    events = t.lay_off(0, "8H", 1)
    assert [e["type"] for e in events[:2]] == ["laid_off", "hand_ended"]
    ended = events[1]
    assert ended["winner"] == 0
    assert ended["hands"][1] == ["KS", "QD", "JC", "AS", "2D"]
    assert ended["deltas"] == [10 + 10 + 10 + 1 + 2, 0]


def test_going_out_by_discarding_ends_the_hand_and_scores_the_others_cards():
    t = Table(
        players=3,
        hands={
            0: ["4H", "5H", "6H", "7H"],
            1: ["KS", "QD", "JC", "10H"],
            2: ["AS", "5C", "2D", "9S"],
        },
        stock=["KC"],
        options={"hand_size": 4},
    )
    t.draw(0)  # KC
    t.meld(0, "4H", "5H", "6H")
    t.lay_off(0, "7H", 1)
    assert t.state.hands_played == 0  # one card (KC) left: not out yet
    events = t.discard(0, "KC")
    assert [e["type"] for e in events] == ["discarded", "hand_ended", "hand_dealt"]
    ended = events[1]
    assert ended["winner"] == 0 and ended["reason"] == "went_out"
    assert ended["hands"] == [[], ["KS", "QD", "JC", "10H"], ["AS", "5C", "2D", "9S"]]
    assert ended["points"] == [0, 40, 17]
    assert ended["deltas"] == [57, 0, 0] and ended["scores"] == [57, 0, 0]
    assert t.state.scores == (57, 0, 0)


def test_after_going_out_nobody_plays_on_in_that_hand():
    t = Table(hands={0: ["4H", "5H"], 1: ["KS", "QD"]}, stock=["6H"], options={"hand_size": 2})
    t.draw(0)
    t.meld(0, "4H", "5H", "6H")
    # the state has moved on to hand 2: seat 1's old cards are gone
    assert t.hand.number == 2 and t.hand.melds == ()
    assert t.hand.turn == 1  # the deal moved to seat 0, so seat 1 starts


# -- the end of the game -------------------------------------------------------------


def test_the_game_ends_at_the_target_score():
    t = Table(
        hands={0: ["4H", "5H"], 1: ["KS", "QD"]},
        stock=["6H"],
        options={"hand_size": 2, "target_score": 20},
    )
    t.draw(0)
    events = t.meld(0, "4H", "5H", "6H")
    assert [e["type"] for e in events] == ["melded", "hand_ended", "game_ended"]
    assert events[-1]["winners"] == [0] and events[-1]["scores"] == [20, 0]
    assert GAME.is_finished(t.state) and GAME.to_act(t.state) == []
    assert t.state.result == events[-1]
    t.refuse(1, "game_over", "draw", source="stock")


def test_the_game_goes_on_below_the_target_score():
    t = Table(
        hands={0: ["4H", "5H"], 1: ["KS", "QD"]},
        stock=["6H"],
        options={"hand_size": 2, "target_score": 21},
    )
    t.draw(0)
    t.meld(0, "4H", "5H", "6H")
    assert not GAME.is_finished(t.state) and t.hand.number == 2


@pytest.mark.parametrize("deals", [1, 2, 3])
def test_the_game_ends_after_the_agreed_number_of_deals(deals):
    t = Table(players=3, options={"game_end": "deals", "deals": deals})
    for number in range(1, deals + 1):
        assert not GAME.is_finished(t.state) and t.hand.number == number
        play_out_hand(t, seed=number)
    assert GAME.is_finished(t.state)
    assert t.state.hands_played == deals and t.state.result["hands_played"] == deals
    best = max(t.state.scores)
    assert t.state.result["winners"] == [s for s in range(3) if t.state.scores[s] == best]


def test_fold_of_the_events_rebuilds_the_state():
    t = Table(players=3)
    for number in range(1, 3):
        play_out_hand(t, seed=number)
    assert table.fold(GAME, t.events) == t.state
