"""Modes and variations at the table: Suicide, Whiz and Mirror bids; blind bidding;
Bauer trumps, deuces high and jokers high in play."""

from engine.spades.options import resolve
from engine.spades.ranking import ranking
from tests.engine.spades.helpers import GAME, Table, suit_cards

NO_BLIND = {"blind_nil": False, "blind_bids": False}

# Seat 0: five spades; seat 1: none; seat 2: two; seat 3: six.
SPADE_COUNTS = {
    0: suit_cards("S", "A K Q J 10") + suit_cards("H", "A K Q J 10 9 8 7"),
    1: suit_cards("H", "6 5 4 3 2") + suit_cards("D", "A K Q J 10 9 8 7"),
    2: suit_cards("S", "9 8") + suit_cards("D", "6 5 4 3 2") + suit_cards("C", "A K Q J 10 9"),
    3: suit_cards("S", "7 6 5 4 3 2") + suit_cards("C", "8 7 6 5 4 3 2"),
}


def bids_listed(t, seat):
    return sorted(m["tricks"] for m in GAME.legal_moves(t.state, seat) if m["type"] == "bid")


def test_whiz_bids_are_nil_or_the_number_of_spades():
    t = Table(SPADE_COUNTS, preset="whiz")
    assert bids_listed(t, 0) == [0, 5]
    t.refuse(0, "whiz_bid", "bid", tricks=4)
    t.bid(0, 5)
    assert bids_listed(t, 1) == [0]  # no spades: nil
    t.refuse(1, "whiz_bid", "bid", tricks=1)
    t.bid(1, 0)
    assert bids_listed(t, 2) == [0, 2]
    t.bid(2, 0)
    t.bid(3, 6)
    assert t.hand.phase == "playing"


def test_mirror_bids_are_exactly_the_number_of_spades():
    t = Table(SPADE_COUNTS, preset="mirror")
    assert bids_listed(t, 0) == [5]
    t.refuse(0, "mirror_bid", "bid", tricks=0)
    t.bid(0, 5)
    assert bids_listed(t, 1) == [0]  # nil with none
    t.bid(1, 0)
    assert bids_listed(t, 2) == [2] and (t.bid(2, 2) or True)
    assert bids_listed(t, 3) == [6]


def test_whiz_counts_bauers_as_spades():
    hands = {0: suit_cards("S", "A K") + ["JC"] + suit_cards("H", "A K Q J 10 9 8 7 6 5")}
    t = Table(hands, preset="whiz", options={"trumps": "bauers"})
    assert bids_listed(t, 0) == [0, 3]


def test_suicide_one_partner_nil_the_other_at_least_four():
    t = Table(preset="suicide")
    most = list(range(4, 14))
    assert bids_listed(t, 0) == [0, *most]
    t.refuse(0, "suicide_bid", "bid", tricks=3)
    t.bid(0, 0)
    assert bids_listed(t, 1) == [0, *most]
    t.bid(1, 5)
    assert bids_listed(t, 2) == most  # partner bid nil: at least four
    t.refuse(2, "suicide_bid", "bid", tricks=0)
    t.refuse(2, "suicide_bid", "bid", tricks=2)
    t.bid(2, 4)
    assert bids_listed(t, 3) == [0]  # partner bid tricks: nil
    t.refuse(3, "suicide_bid", "bid", tricks=4)
    t.bid(3, 0)
    assert t.hand.phase == "playing"


# -- blind bidding --------------------------------------------------------------------


def test_in_pairs_every_seat_starts_without_seeing_its_cards():
    t = Table()
    assert t.hand.unseen == (True, True, True, True)
    assert t.events[-1]["unseen"] == [0, 1, 2, 3]
    view = GAME.view(t.state, 0)
    assert view["you"]["hand"] == [] and view["you"]["hand_hidden"] is True
    moves = GAME.legal_moves(t.state, 0)
    assert moves[0] == {"type": "look"}
    assert [m["tricks"] for m in moves[1:]] == [0, *range(4, 14)]
    assert all(m["blind"] is True for m in moves[1:])
    assert GAME.legal_moves(t.state, 2) == [{"type": "look"}]  # may look before its turn
    t.refuse(0, "look_first", "bid", tricks=3)
    t.refuse(0, "blind_bid_too_low", "bid", tricks=2, blind=True)


def test_looking_shows_the_cards_and_ends_the_blind_option():
    t = Table()
    events = t.look(2)
    assert events == [{"type": "cards_seen", "v": 1, "seat": 2, "cards": list(t.cards(2))}]
    assert GAME.view(t.state, 2)["you"]["hand"] != []
    t.look(0)
    t.refuse(0, "not_blind", "bid", tricks=0, blind=True)
    assert all("blind" not in m for m in GAME.legal_moves(t.state, 0))


def test_a_blind_bid_reveals_the_cards_after_bidding():
    t = Table()
    events = t.bid(0, 5, blind=True)
    assert [e["type"] for e in events] == ["bid_made", "cards_seen"]
    assert events[0]["blind"] is True and events[1]["cards"] == list(t.cards(0))
    assert not t.hand.unseen[0] and GAME.view(t.state, 0)["you"]["hand_hidden"] is False


def test_blind_bids_can_be_limited_to_blind_nil():
    t = Table(options={"blind_bids": False})
    assert [m for m in GAME.legal_moves(t.state, 0) if m["type"] == "bid"] == [
        {"type": "bid", "tricks": 0, "blind": True}
    ]
    t.refuse(0, "blind_bid_not_allowed", "bid", tricks=5, blind=True)


def test_blind_bids_off_means_cards_are_seen_at_once():
    t = Table(options=NO_BLIND)
    assert t.hand.unseen == (False,) * 4 and t.events[-1]["unseen"] == []


def test_blind_deficit_lets_only_a_trailing_side_bid_blind():
    hands = {0: suit_cards("S"), 1: suit_cards("H"), 2: suit_cards("D"), 3: suit_cards("C")}
    t = Table(hands, options={"blind_deficit": 100})
    assert t.hand.unseen == (False,) * 4  # nobody trails at the start
    t.bids(13, 1, 0, 1)
    t.play_out()  # side 0: 130 and a nil, 230; side 1 is set: 0
    assert t.state.scores == (230, 0)
    assert t.hand.unseen == (False, True, False, True)


def test_only_pairs_play_blind():
    for preset in ("solo", "suicide", "whiz", "mirror"):
        assert Table(preset=preset).hand.unseen == (False,) * 4


# -- variations in play -----------------------------------------------------------------


def test_bauer_left_bauer_follows_as_a_spade_not_a_club():
    hands = {
        0: suit_cards("C", "A K Q 10 9 8 7 6 5 4 3 2") + ["2H"],
        1: ["JC"] + suit_cards("H", "A K Q J 10 9 8 7 6 5 4 3"),
        2: suit_cards("S", "A K Q J 10 9 8 7 6 5 4 3 2"),
    }
    t = Table(hands, options={**NO_BLIND, "trumps": "bauers"})
    t.bids(3, 3, 3, 3)
    t.card(0, "AC")
    # seat 1's only "club" is the left bauer, a spade: it is void in clubs
    assert len(GAME.legal_moves(t.state, 1)) == 13
    events = t.trick("JC", "AS", t.cards(3)[0])
    assert events[-1]["seat"] == 1  # the left bauer beats the ace of spades


def test_deuces_high_make_every_deuce_a_trump():
    hands = {
        0: suit_cards("D", "A K Q J 10 9 8 7 6 5 4 3") + ["3S"],
        1: ["2D"] + suit_cards("H", "A K Q J 10 9 8 7 6 5 4 3"),
        2: suit_cards("C"),
    }
    t = Table(hands, options={**NO_BLIND, "trumps": "deuces_high"})
    assert set(t.cards(3)) == {"2H", "2S", "AS"} | set(suit_cards("S", "K Q J 10 9 8 7 6 5 4"))
    t.bids(3, 3, 3, 3)
    t.card(0, "AD")
    assert len(GAME.legal_moves(t.state, 1)) == 13  # the 2♦ is a spade: void in diamonds
    t.card(1, "2D")
    assert t.hand.broken
    t.card(2, "2C")  # the lowest deuce, still a trump
    events = t.card(3, "2S")
    assert events[-1]["seat"] == 3  # 2♠ > 2♥ > 2♦ > 2♣ > A♠


def test_jokers_high_deal_and_win():
    options = resolve("pairs", {"trumps": "jokers_high"}, 4)
    assert "JK" in ranking(options).pack and "JL" in ranking(options).pack
    hands = {
        0: ["JL"] + suit_cards("S", "A K Q J 10 9 8 7 6 5 4 3"),
        1: ["JK"] + suit_cards("H", "A K Q J 10 9 8 7 6 5 4 3"),
    }
    t = Table(hands, options={**NO_BLIND, "trumps": "jokers_high"})
    assert "2S" in t.cards(3) and "AC" in t.cards(2)
    t.bids(3, 3, 3, 3)
    t.refuse(0, "invalid_card", "play", card="JX")
    t.card(0, "AS")  # only trumps in hand: may lead them
    t.refuse(1, "must_follow_suit", "play", card="AH")  # the big joker is a spade
    events = t.trick("JK", "AC", "2S")
    assert events[-1]["type"] == "trick_won" and events[-1]["seat"] == 1
    t.card(1, "AH")
    assert t.hand.turn == 2
