"""Wrotham Rummy: three wild jokers, joker swaps, an eight-card starter who does
not draw at first, six deals, and going down all at once in the last three."""

import random
from collections import Counter

import pytest

from engine import table
from engine.cards import standard_pack
from engine.rummy.melds import arrange, lay_off, swap_joker
from engine.rummy.options import resolve
from tests.engine.rummy_helpers import GAME, Table

WROTHAM = resolve("wrotham", None, 2)
CARDS = ["4H", "JK", "6H", "9C", "9D", "KS", "QD"]


def wrotham(hands, stock=(), players=2, **options):
    return Table(players=players, hands=hands, stock=stock, preset="wrotham", options=options)


def test_a_55_card_pack_with_three_jokers():
    state, events = table.new_game("rummy", 3, table.seed_key("w"), preset="wrotham")
    pack = GAME.pack(state.options)
    assert len(pack) == 55 and Counter(pack)["JK"] == 3
    assert Counter(events[1]["deck"]) == Counter(standard_pack(3))
    hand = state.hand
    held = [card for cards in hand.hands for card in cards] + list(hand.stock)
    assert Counter(held) == Counter(pack)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_eight_cards_to_the_starter_seven_to_the_others_and_no_upcard(players):
    state, _ = table.new_game("rummy", players, table.seed_key("w"), preset="wrotham")
    hand = state.hand
    starter = (hand.dealer + 1) % players
    assert hand.turn == starter
    assert [len(h) for h in hand.hands] == [8 if s == starter else 7 for s in range(players)]
    assert hand.discard_pile == ()
    assert len(hand.stock) == 55 - 8 - 7 * (players - 1)


def test_the_starter_does_not_draw_on_the_first_turn():
    t = wrotham({0: ["4H", "5H", "6H", "9C", "9D", "KS", "QD", "2C"]})
    assert t.hand.phase == "play"
    t.refuse(0, "no_draw_on_first_turn", "draw", source="stock")
    assert not [m for m in GAME.legal_moves(t.state, 0) if m["type"] == "draw"]
    t.meld(0, "4H", "5H", "6H")  # melds and discards without drawing
    t.discard(0, "KS")
    assert t.hand.turn == 1 and t.hand.phase == "draw"
    assert GAME.legal_moves(t.state, 1)[:2] == [
        {"type": "draw", "source": "stock"},
        {"type": "draw", "source": "discard"},
    ]
    t.draw(1, "discard")
    assert t.cards(1)[-1] == "KS"
    t.discard(1, t.cards(1)[0])
    t.draw(0)  # from the second turn on, the starter draws as usual
    t.refuse(0, "already_drew", "draw", source="stock")


@pytest.mark.parametrize(
    ("cards", "kind", "laid_out"),
    [
        (["7C", "7D", "JK"], "group", ("7C", "7D", "JK")),
        (["JK", "7S", "7D", "JK"], "group", ("7D", "7S", "JK", "JK")),
        (["4H", "JK", "6H"], "run", ("4H", "JK", "6H")),
        (["4H", "5H", "JK"], "run", ("4H", "5H", "JK")),  # jokers extend upwards first
        (["QH", "KH", "JK"], "run", ("JK", "QH", "KH")),  # ... and downwards when they must
        (["AH", "JK", "3H", "JK"], "run", ("AH", "JK", "3H", "JK")),
        (["2S", "JK", "JK", "5S"], "run", ("2S", "JK", "JK", "5S")),
        (["2S", "6S", "JK", "JK", "JK"], "run", ("2S", "JK", "JK", "JK", "6S")),
    ],
)
def test_jokers_are_wild_in_groups_and_runs(cards, kind, laid_out):
    meld = arrange(cards, 0, 1, WROTHAM)
    assert meld is not None and meld.kind == kind and meld.cards == laid_out


@pytest.mark.parametrize(
    "cards",
    [
        ["7C", "JK", "JK"],  # a meld needs two natural cards
        ["JK", "JK", "JK"],
        ["7C", "7D", "7H", "JK", "JK"],  # groups stop at four
        ["7C", "7D", "JK", "JK", "JK"],
        ["2S", "7S", "JK", "JK"],  # too far apart
        ["7C", "7C", "JK"],
        ["QH", "KH", "JK", "AH"],
    ],
)
def test_joker_melds_that_are_not_melds(cards):
    assert arrange(cards, 0, 1, WROTHAM) is None


def test_what_a_joker_stands_for():
    assert arrange(["4H", "JK", "6H"], 0, 1, WROTHAM).represents() == ["4H", "5H", "6H"]
    assert arrange(["7C", "7D", "JK"], 0, 1, WROTHAM).represents() == ["7C", "7D", "7"]


def test_laying_off_jokers():
    run = arrange(["4H", "5H", "6H"], 0, 1, WROTHAM)
    assert lay_off(run, "JK", WROTHAM).cards == ("4H", "5H", "6H", "JK")
    top = arrange(["JH", "QH", "KH"], 0, 1, WROTHAM)
    assert lay_off(top, "JK", WROTHAM).cards == ("JK", "JH", "QH", "KH")
    group = arrange(["7C", "7D", "7H"], 0, 1, WROTHAM)
    assert lay_off(group, "JK", WROTHAM).cards == ("7C", "7D", "7H", "JK")
    assert lay_off(lay_off(group, "JK", WROTHAM), "7S", WROTHAM) is None
    # a card laid off next to a joker
    with_joker = arrange(["4H", "JK", "6H"], 0, 1, WROTHAM)
    assert lay_off(with_joker, "7H", WROTHAM).cards == ("4H", "JK", "6H", "7H")
    assert lay_off(with_joker, "5H", WROTHAM) is None


def test_swap_joker_in_melds():
    run = arrange(["4H", "JK", "6H"], 0, 1, WROTHAM)
    assert swap_joker(run, "5H").cards == ("4H", "5H", "6H")
    assert swap_joker(run, "7H") is None
    assert swap_joker(run, "5D") is None
    group = arrange(["7C", "7D", "JK"], 0, 1, WROTHAM)
    assert swap_joker(group, "7S").cards == ("7C", "7D", "7S")
    assert swap_joker(group, "7C") is None
    assert swap_joker(group, "8S") is None
    assert swap_joker(arrange(["7C", "7D", "7H"], 0, 1, WROTHAM), "7S") is None


def test_the_holder_of_the_real_card_swaps_it_for_the_joker():
    t = wrotham(
        {
            0: ["4H", "JK", "6H", "9C", "9D", "KS", "QD", "2C"],
            1: ["5H", "7D", "8D", "10C", "AS", "3C", "8S"],
        },
        stock=["JC", "10S"],
    )
    t.meld(0, "4H", "JK", "6H")
    t.discard(0, "KS")
    t.refuse(1, "must_draw_first", "swap_joker", card="5H", meld=1)
    t.draw(1)  # JC
    t.refuse(1, "cannot_swap_joker", "swap_joker", card="7D", meld=1)
    t.refuse(1, "card_not_in_hand", "swap_joker", card="6H", meld=1)
    t.refuse(1, "unknown_meld", "swap_joker", card="5H", meld=2)
    assert {"type": "swap_joker", "card": "5H", "meld": 1} in GAME.legal_moves(t.state, 1)
    events = t.play(1, "swap_joker", card="5H", meld=1)
    assert events[0]["type"] == "joker_swapped" and events[0]["result"]["cards"] == [
        "4H",
        "5H",
        "6H",
    ]
    assert t.meld_cards(1) == ("4H", "5H", "6H")
    assert "JK" in t.cards(1) and "5H" not in t.cards(1)
    assert len(t.cards(1)) == 8
    # the joker is the swapper's to use: lay it off on the same meld
    t.lay_off(1, "JK", 1)
    assert t.meld_cards(1) == ("4H", "5H", "6H", "JK")
    t.discard(1, "JC")


def test_a_players_own_joker_can_be_swapped_back():
    t = wrotham({0: ["7C", "7D", "JK", "7H", "2C", "5S", "9D", "QD"]})
    t.meld(0, "7C", "7D", "JK")
    t.play(0, "swap_joker", card="7H", meld=1)
    assert t.meld_cards(1) == ("7C", "7D", "7H") and "JK" in t.cards(0)


def test_jokers_left_in_hand_score_15():
    from engine.rummy.scoring import card_points

    assert card_points("JK", WROTHAM) == 15


def play_out_hand(t, rng):
    played = t.state.hands_played
    for _ in range(20_000):
        if t.state.hands_played > played or GAME.is_finished(t.state):
            return
        seat = GAME.to_act(t.state)[0]
        moves = GAME.legal_moves(t.state, seat)
        going_down = [m for m in moves if m["type"] == "go_down"]
        t.play(seat, **rng.choice(going_down or moves))
    raise AssertionError("the hand did not end")


def test_six_deals_and_all_at_once_in_the_last_three():
    t = wrotham({})
    rng = random.Random(6)
    for number in range(1, 7):
        assert t.hand.number == number and not GAME.is_finished(t.state)
        assert WROTHAM.all_at_once(number) is (number >= 4)
        seat = GAME.to_act(t.state)[0]
        if t.hand.phase == "draw":
            t.draw(seat)
        kinds = {m["type"] for m in GAME.legal_moves(t.state, seat)}
        assert not kinds & ({"meld", "lay_off"} if number >= 4 else {"go_down"})
        if number >= 4:
            cards = list(t.cards(seat)[:3])
            t.refuse(seat, "must_go_down_all_at_once", "meld", cards=cards)
            t.refuse(seat, "must_go_down_all_at_once", "lay_off", card=cards[0], meld=1)
        else:
            t.refuse(seat, "go_down_not_allowed", "go_down", melds=[list(t.cards(seat)[:3])])
        play_out_hand(t, rng)
    assert GAME.is_finished(t.state) and t.state.result["hands_played"] == 6
    assert [e["hand"] for e in t.events if e["type"] == "hand_ended"] == [1, 2, 3, 4, 5, 6]


def all_at_once(hands, stock=(), **options):
    return wrotham(hands, stock, all_at_once_from_deal=1, **options)


def test_going_down_with_the_whole_hand_and_a_discard():
    t = all_at_once(
        {
            0: ["4H", "JK", "6H", "9C", "9D", "9S", "9H", "KC"],
            1: ["KS", "QD", "AS", "5C", "2D", "3C", "JK"],
        }
    )
    t.refuse(0, "must_go_down_all_at_once", "meld", cards=["9C", "9D", "9S"])
    t.refuse(0, "must_lay_down_all", "go_down", melds=[["9C", "9D", "9S", "9H"]], discard="KC")
    t.refuse(
        0,
        "invalid_meld",
        "go_down",
        melds=[["4H", "JK", "9C"], ["6H", "9D", "9S", "9H"]],
        discard="KC",
    )
    command = {"melds": [["9H", "9S", "9D", "9C"], ["JK", "6H", "4H"]], "discard": "KC"}
    events = t.play(0, "go_down", **command)
    assert [e["type"] for e in events[:5]] == [
        "melded",
        "melded",
        "discarded",
        "hand_ended",
        "hand_dealt",
    ]
    ended = events[3]
    assert ended["winner"] == 0 and ended["hands"][0] == []
    assert ended["points"][1] == 10 + 10 + 1 + 5 + 2 + 3 + 15
    assert ended["deltas"] == [ended["points"][1], 0]


def test_going_down_with_every_card_in_melds():
    t = all_at_once({0: ["4H", "5H", "6H", "7H", "9C", "9D", "9S", "9H"]})
    events = t.play(
        0, "go_down", melds=[["4H", "5H", "6H", "7H"], ["9C", "9D", "9S", "9H"]], discard=None
    )
    assert events[2]["type"] == "hand_ended" and events[2]["winner"] == 0
    legal = {
        "type": "go_down",
        "melds": [["4H", "5H", "6H", "7H"], ["9C", "9D", "9H", "9S"]],
        "discard": None,
    }
    t2 = all_at_once({0: ["4H", "5H", "6H", "7H", "9C", "9D", "9S", "9H"]})
    assert legal in GAME.legal_moves(t2.state, 0)


def test_going_down_needs_a_discard_when_the_rule_says_so():
    t = all_at_once(
        {0: ["4H", "5H", "6H", "7H", "9C", "9D", "9S", "9H"]}, must_discard_to_go_out=True
    )
    t.refuse(
        0,
        "must_discard_to_go_out",
        "go_down",
        melds=[["4H", "5H", "6H", "7H"], ["9C", "9D", "9S", "9H"]],
    )
    t.play(0, "go_down", melds=[["4H", "5H", "6H"], ["9C", "9D", "9S", "9H"]], discard="7H")
    assert t.ended()["winner"] == 0


def test_going_down_after_drawing_the_discard():
    t = all_at_once(
        {
            0: ["4H", "5H", "6H", "9C", "9D", "9S", "QH", "KC"],
            1: ["JH", "KH", "2C", "2D", "2S", "2H", "5S"],
        }
    )
    t.discard(0, "QH")
    t.draw(1, "discard")
    melds = [["JH", "KH", "5S"], ["2C", "2D", "2S", "2H"]]
    t.refuse(1, "cannot_discard_drawn_discard", "go_down", melds=melds, discard="QH")
    t.refuse(1, "must_lay_down_all", "go_down", melds=[["JH", "QH", "KH"]], discard="5S")
    melds = [["JH", "QH", "KH"], ["2C", "2D", "2S", "2H"]]
    t.play(1, "go_down", melds=melds, discard="5S")
    assert t.ended()["winner"] == 1
