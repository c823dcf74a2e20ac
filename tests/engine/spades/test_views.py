"""Seat views, redacted events, reveal and describe."""

import json

from engine import games
from tests.engine.spades.helpers import GAME, Table, suit_cards

NO_BLIND = {"blind_nil": False, "blind_bids": False}


def test_a_seat_sees_its_own_hand_and_the_public_table_only():
    t = Table(options=NO_BLIND)
    t.bids(3, 4, 0, 2)
    t.card(0, GAME.legal_moves(t.state, 0)[0]["card"])
    view = GAME.view(t.state, 1)
    assert view["game"] == "spades" and view["mode"] == "pairs" and view["phase"] == "playing"
    assert sorted(view["you"]["hand"]) == sorted(t.cards(1))
    assert view["hand_counts"] == [12, 13, 13, 13]
    assert view["bids"] == [
        {"tricks": 3, "blind": False},
        {"tricks": 4, "blind": False},
        {"tricks": 0, "blind": False},
        {"tricks": 2, "blind": False},
    ]
    assert view["trick"] == [[0, t.hand.trick[0][1]]] and view["turn"] == 1
    assert view["sides"] == [[0, 2], [1, 3]] and view["scores"] == [0, 0, 0, 0]
    assert view["bags"] == [0, 0] and view["tricks_won"] == [0, 0, 0, 0]
    others = {card for seat in (0, 2, 3) for card in t.cards(seat)}
    private = {k: v for k, v in view.items() if k != "trump_order"}  # the order, not holdings
    assert not others & set(json.dumps(private).split('"'))
    spectator = GAME.view(t.state, None)
    assert "you" not in spectator and spectator["hand_counts"] == view["hand_counts"]


def test_tricks_played_stay_public_for_the_hand():
    t = Table(options=NO_BLIND)
    t.bids(3, 3, 3, 3)
    for _ in range(8):
        seat = t.hand.turn
        t.card(seat, GAME.legal_moves(t.state, seat)[0]["card"])
    view = GAME.view(t.state, 2)
    assert len(view["tricks"]) == 2
    assert view["tricks"][0]["cards"] == [list(p) for p in t.hand.tricks[0]["cards"]]
    assert view["tricks"][1]["winner"] == t.hand.tricks[1]["winner"]


def test_a_redacted_deal_has_no_deck_and_only_the_seats_own_cards():
    t = Table(options=NO_BLIND)
    dealt = t.events[1]
    for seat in range(4):
        shown = GAME.redact(dealt, seat, t.state)
        assert "deck" not in shown and "shuffle_key" not in shown
        assert sorted(shown["cards"]) == sorted(t.cards(seat))
        assert shown["hand"] == 1 and shown["hand_counts"] == [13, 13, 13, 13]
    assert "cards" not in GAME.redact(dealt, None, t.state)


def test_a_seat_that_may_bid_blind_does_not_see_its_cards_anywhere():
    t = Table()
    dealt = t.events[1]
    for seat in range(4):
        assert "cards" not in GAME.redact(dealt, seat, t.state)
        assert GAME.view(t.state, seat)["you"]["hand"] == []
    events = t.look(1)
    assert GAME.redact(events[0], 1, t.state)["cards"] == list(t.cards(1))
    for seat in (None, 0, 2, 3):
        assert "cards" not in GAME.redact(events[0], seat, t.state)
    assert sorted(GAME.view(t.state, 1)["you"]["hand"]) == sorted(t.cards(1))
    assert GAME.view(t.state, 0)["you"]["hand"] == []
    assert GAME.view(t.state, 0)["unseen"] == [0, 2, 3]


def test_reveal_shows_every_hand():
    t = Table(options=NO_BLIND)
    revealed = GAME.reveal(t.state)
    assert [sorted(h) for h in revealed["hands"]] == [sorted(h) for h in t.state.hand.hands]


def test_describe_says_what_happened_in_one_sentence():
    hands = {0: suit_cards("S"), 1: suit_cards("H"), 2: suit_cards("D"), 3: suit_cards("C")}
    t = Table(hands)
    names = ["ann", "bob", "carol", "dave"]
    t.look(0)
    t.bid(0, 13)
    t.bid(1, 0, blind=True)
    t.bid(2, 0)
    t.bid(3, 5, blind=True)
    t.trick("QS", "2H", "2D", "2C")
    said = [GAME.describe(e, names) for e in t.events]
    assert said[0] == "A game of Spades (pairs) for 4 players began."
    assert said[1] == "Hand 1 was dealt by dave."
    assert "ann looked at their cards." in said
    assert "ann bid 13." in said and "bob bid blind nil." in said
    assert "carol bid nil." in said and "dave bid 5 blind." in said
    assert "ann played Q♠." in said and said[-1] == "ann won the trick."
    t.play_out()
    ended = GAME.describe(t.ended(), names)
    assert ended.startswith("Hand 1 ended: ann & carol ")
    forfeit = {"type": "game_ended", "winners": [1, 3], "reason": "forfeit", "forfeited": 0}
    assert GAME.describe(forfeit, names) == "ann forfeited; winner: bob, dave."
    joker = {"type": "card_played", "seat": 2, "card": "JL"}
    assert GAME.describe(joker, names) == "carol played the little joker."


def test_seats_are_named_by_compass_point_clockwise_in_the_order_of_play():
    """Play passes left: South, West, North, East; partners (0 & 2, 1 & 3) face each other."""
    assert [GAME.seat_name(seat, 4) for seat in range(4)] == ["South", "West", "North", "East"]
    assert [GAME.seat_name(seat, 3) for seat in range(3)] == ["South", "West", "North"]
    opposite = {"South": "North", "West": "East", "North": "South", "East": "West"}
    for seat in range(4):
        partner = (seat + 2) % 4
        assert opposite[GAME.seat_name(seat, 4)] == GAME.seat_name(partner, 4)


def test_a_game_without_places_counts_its_seats_from_one():
    rummy = games.get("rummy")
    assert [rummy.seat_name(seat, 3) for seat in range(3)] == ["Seat 1", "Seat 2", "Seat 3"]
