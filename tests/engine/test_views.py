"""Views and redacted events: a seat sees its own hand and the public table only."""

from engine import table
from tests.engine.rummy_helpers import GAME, Table


def others_cards(t, seat):
    return {
        card for other, cards in enumerate(t.state.hand.hands) if other != seat for card in cards
    }


def test_a_seat_sees_its_hand_and_the_table_but_not_other_hands_or_the_stock():
    t = Table(players=3, hands={0: ["4H", "5H", "6H"]}, upcard="QD", stock=["KS"])
    t.draw(0)
    t.meld(0, "4H", "5H", "6H")
    shown = GAME.view(t.state, 1)
    assert shown["you"]["seat"] == 1 and shown["you"]["hand"] == list(t.cards(1))
    assert shown["you"]["legal_moves"] == []
    assert shown["hand_counts"] == [5, 7, 7]
    assert shown["stock_count"] == len(t.hand.stock)
    assert shown["discard_pile"] == ["QD"]
    assert shown["melds"][0]["cards"] == ["4H", "5H", "6H"]
    assert shown["scores"] == [0, 0, 0] and shown["turn"] == 0 and shown["phase"] == "play"
    text = repr(shown)
    for card in others_cards(t, 1) | set(t.hand.stock):
        assert repr(card) not in text
    assert t.hand.shuffle_key not in text


def test_the_player_to_act_sees_its_legal_moves():
    t = Table()
    shown = GAME.view(t.state, 0)
    assert shown["you"]["legal_moves"] == GAME.legal_moves(t.state, 0)


def test_a_spectator_sees_the_table_only():
    t = Table(players=2, upcard="QD")
    shown = GAME.view(t.state, None)
    assert "you" not in shown
    text = repr(shown)
    for card in others_cards(t, None) | set(t.hand.stock):
        assert repr(card) not in text
    assert shown["discard_pile"] == ["QD"] and shown["hand_counts"] == [10, 10]


def test_a_view_before_the_deal():
    state, events = table.new_game("rummy", 2, table.seed_key("v"))
    created = table.fold(GAME, events[:1])
    shown = GAME.view(created, 0)
    assert shown["you"]["hand"] == [] and shown["you"]["legal_moves"] == []
    assert shown["stock_count"] == 0 and shown["hand_number"] == 0
    assert GAME.view(state, 0)["hand_number"] == 1


def test_a_deal_is_redacted_to_the_seats_own_cards():
    t = Table(players=2, upcard="QD")
    dealt = t.events[1]
    for seat in (0, 1):
        shown = GAME.redact(dealt, seat, t.state)
        assert "deck" not in shown and "shuffle_key" not in shown
        assert shown["hand"] == 1 and shown["dealer"] == dealt["dealer"]
        assert shown["cards"] == list(t.cards(seat))
        assert shown["upcard"] == "QD"
        assert shown["hand_counts"] == [10, 10] and shown["stock_count"] == 31
    spectator = GAME.redact(dealt, None, t.state)
    assert "cards" not in spectator and "deck" not in spectator
    assert spectator["upcard"] == "QD"
    assert "deck" not in GAME.redact(dealt, 0)  # without a state: no cards at all


def test_a_stock_draw_is_hidden_from_the_others_a_discard_draw_is_not():
    t = Table(players=3, upcard="QD", stock=["KS"])
    drawn = t.draw(0)[0]
    assert GAME.redact(drawn, 0, t.state)["card"] == "KS"
    for seat in (1, 2, None):
        shown = GAME.redact(drawn, seat, t.state)
        assert "card" not in shown and shown["source"] == "stock" and shown["seat"] == 0
    t.discard(0, "KS")
    taken = t.draw(1, "discard")[0]
    for seat in (0, 1, 2, None):
        assert GAME.redact(taken, seat, t.state)["card"] == "KS"


def test_a_replenished_stock_is_hidden():
    t = Table(upcard="QD", options={"hand_size": 20, "stock_exhausted": "shuffle"})
    while t.hand.stock:
        seat = t.hand.turn
        t.draw(seat)
        t.discard(seat, t.cards(seat)[-1])
    replenished = t.draw(t.hand.turn)[0]
    assert replenished["type"] == "stock_replenished"
    for seat in (0, 1, None):
        shown = GAME.redact(replenished, seat, t.state)
        assert "stock" not in shown and shown["stock_count"] == 12


def test_hands_are_shown_when_the_hand_ends():
    t = Table(hands={0: ["4H", "5H"], 1: ["KS", "QD"]}, stock=["6H"], options={"hand_size": 2})
    t.draw(0)
    t.meld(0, "4H", "5H", "6H")
    ended = t.ended()
    for seat in (0, 1, None):
        assert GAME.redact(ended, seat, t.state) == ended
        assert GAME.view(t.state, seat)["last_hand"] == ended
