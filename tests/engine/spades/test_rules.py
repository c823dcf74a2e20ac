"""The rules of play: dealing, bidding in turn, following suit, breaking spades, tricks."""

import pytest

from engine import IllegalMove, table
from engine.cards import standard_pack
from tests.engine.spades.helpers import GAME, Table, suit_cards

NO_BLIND = {"blind_nil": False, "blind_bids": False}

# Seat 0 has 11 clubs and two top spades, seat 1 no clubs, seat 3 no clubs either.
BREAKING = {
    0: suit_cards("C", "A K Q J 10 9 8 7 6 5 4") + ["AS", "KS"],
    1: ["2S", "3S", "4S"] + suit_cards("H", "A K Q J 10 9 8 7 6 5"),
    2: ["3C", "2C"] + suit_cards("D", "A K Q J 10 9 8 7 6 5 4"),
    3: suit_cards("S", "Q J 10 9 8 7 6 5") + ["3D", "2D", "4H", "3H", "2H"],
}


def test_the_deal_goes_one_card_at_a_time_from_the_dealers_left():
    t = Table(dealer=1, options=NO_BLIND)
    deck = t.events[1]["deck"]
    assert [t.cards(seat)[0] for seat in (2, 3, 0, 1)] == deck[:4]
    assert all(len(t.cards(seat)) == 13 for seat in range(4))
    assert t.hand.dealer == 1 and t.hand.turn == 2 and t.hand.phase == "bidding"
    assert sorted(card for seat in range(4) for card in t.cards(seat)) == sorted(standard_pack())


def test_the_dealer_rotates_and_the_player_on_the_left_bids_and_leads_first():
    t = Table(dealer=1, options=NO_BLIND)
    assert GAME.to_act(t.state) == [2]
    t.bids(3, 3, 3, 3)
    assert t.hand.phase == "playing" and t.hand.turn == 2
    t.play_out()
    assert t.hand.number == 2 and t.hand.dealer == 2 and t.hand.turn == 3
    assert t.state.hands_played == 1


def test_bids_go_round_in_turn_and_are_checked():
    t = Table(options=NO_BLIND)
    t.refuse(1, "not_your_turn", "bid", tricks=3)
    t.refuse(0, "invalid_bid", "bid", tricks=14)
    t.refuse(0, "invalid_bid", "bid", tricks=-1)
    t.refuse(0, "invalid_bid", "bid", tricks="3")
    t.refuse(0, "invalid_bid", "bid", tricks=True)
    t.refuse(0, "invalid_bid", "bid", tricks=3, blind="yes")
    t.refuse(0, "still_bidding", "play", card=t.cards(0)[0])
    t.refuse(0, "not_blind", "bid", tricks=0, blind=True)
    t.refuse(0, "already_seen", "look")
    events = t.bid(0, 0)
    assert events == [{"type": "bid_made", "v": 1, "seat": 0, "tricks": 0, "blind": False}]
    t.bids(4, 13, 2)
    assert t.hand.bids == ((0, False), (4, False), (13, False), (2, False))
    t.refuse(0, "bidding_over", "bid", tricks=1)


def test_nil_can_be_turned_off():
    t = Table(options={**NO_BLIND, "nil": False})
    t.refuse(0, "nil_not_allowed", "bid", tricks=0)
    assert {"type": "bid", "tricks": 0} not in GAME.legal_moves(t.state, 0)


def test_spades_cannot_be_led_until_broken():
    t = Table(BREAKING, options=NO_BLIND)
    t.bids(5, 3, 3, 2)
    t.refuse(0, "spades_not_broken", "play", card="AS")
    assert {m["card"] for m in GAME.legal_moves(t.state, 0)} == set(BREAKING[0][:11])
    t.card(0, "AC")
    assert not t.hand.broken
    t.refuse(2, "not_your_turn", "play", card="2C")
    t.card(1, "2S")  # void in clubs: trumps, and breaks spades
    assert t.hand.broken
    t.refuse(2, "must_follow_suit", "play", card="AD")
    t.card(2, "2C")
    events = t.card(3, "5S")
    won = events[-1]
    assert won["type"] == "trick_won" and won["seat"] == 3 and won["trick"] == 1
    assert won["leader"] == 0 and won["cards"] == [[0, "AC"], [1, "2S"], [2, "2C"], [3, "5S"]]
    assert t.hand.turn == 3 and t.hand.tricks_won == (0, 0, 0, 1)
    t.card(3, "QS")  # spades are broken: they may be led
    t.refuse(0, "must_follow_suit", "play", card="KC")
    t.card(0, "KS")
    t.refuse(1, "must_follow_suit", "play", card="AH")


def test_a_spade_discarded_on_another_suit_breaks_spades_even_when_it_loses():
    t = Table(BREAKING, options=NO_BLIND)
    t.bids(5, 3, 3, 2)
    t.trick("AC", "AH", "3C", "5S")
    assert t.hand.broken and t.hand.tricks_won == (0, 0, 0, 1)


def test_following_with_a_spade_on_a_spade_lead_does_not_count_as_breaking():
    hands = {0: suit_cards("S"), 1: suit_cards("H"), 2: suit_cards("D"), 3: suit_cards("C")}
    t = Table(hands, options=NO_BLIND)
    t.bids(13, 0, 0, 0)
    assert {m["card"] for m in GAME.legal_moves(t.state, 0)} == set(hands[0])  # only spades
    t.trick("2S", "2H", "2D", "2C")
    assert t.hand.tricks_won[0] == 1
    assert not t.hand.broken  # led, not played on another suit's trick


def test_the_highest_card_of_the_suit_led_wins_without_spades():
    t = Table(BREAKING, options=NO_BLIND)
    t.bids(5, 3, 3, 2)
    t.trick("AC", "2S", "2C", "5S")
    t.trick("QS", "AS", "3S", "AD")  # seat 3 leads; seat 2 has no spades
    assert t.hand.turn == 0 and t.hand.tricks_won == (1, 0, 0, 1)
    t.trick("KC", "AH", "3C", "2H")
    assert t.hand.tricks_won == (2, 0, 0, 1)


def test_a_hand_ends_after_the_last_trick_with_every_card_public():
    t = Table(options=NO_BLIND)
    t.bids(3, 3, 3, 3)
    dealt = [list(cards) for cards in t.state.hand.hands]
    t.play_out()
    ended = t.ended()
    assert sum(ended["tricks"]) == 13 and ended["hand"] == 1
    assert [sorted(cards) for cards in ended["hands"]] == [sorted(cards) for cards in dealt]
    assert t.state.hand.number == 2 and t.state.hand.phase == "bidding"


def test_forfeit_ends_the_game_and_the_partnership_loses():
    t = Table(options=NO_BLIND)
    t.refuse(7, "unknown_seat", "forfeit")
    events = t.play(2, "forfeit")  # not seat 2's turn: forfeiting needs none
    assert events[-1]["winners"] == [1, 3] and events[-1]["reason"] == "forfeit"
    assert GAME.is_finished(t.state) and GAME.to_act(t.state) == []
    t.refuse(0, "game_over", "bid", tricks=3)


def test_forfeit_in_solo_gives_the_game_to_the_best_other_score():
    t = Table(preset="solo")
    events = t.play(1, "forfeit")
    assert events[-1]["winners"] == [0, 2, 3]  # all on 0: a shared win


def test_unknown_commands_and_deals_out_of_time():
    t = Table(options=NO_BLIND)
    t.refuse(0, "unknown_command", "draw")
    with pytest.raises(IllegalMove) as caught:
        GAME.decide(t.state, {"type": "deal", "deck": list(standard_pack()), "shuffle_key": "k"})
    assert caught.value.code == "not_time_to_deal"


def test_play_refusals():
    t = Table(BREAKING, options=NO_BLIND)
    t.bids(5, 3, 3, 2)
    t.refuse(0, "invalid_card", "play", card="ZZ")
    t.refuse(0, "card_not_in_hand", "play", card="AH")
    t.refuse(1, "not_your_turn", "play", card="AH")


def test_spades_for_three():
    t = Table(players=3, preset="solo", dealer=2)
    assert [len(t.cards(seat)) for seat in range(3)] == [17, 17, 17]
    assert "2C" not in {card for seat in range(3) for card in t.cards(seat)}
    t.bids(5, 5, 5)
    t.play_out()
    ended = t.ended()
    assert sum(ended["tricks"]) == 17 and len(ended["deltas"]) == 3
    assert [side["seats"] for side in ended["sides"]] == [[0], [1], [2]]


def test_deals_are_deterministic_from_the_seed():
    first = table.new_game("spades", 4, table.seed_key("same"))
    second = table.new_game("spades", 4, table.seed_key("same"))
    other = table.new_game("spades", 4, table.seed_key("different"))
    assert first == second and first[1][1]["deck"] != other[1][1]["deck"]
