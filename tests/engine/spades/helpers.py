"""Helpers for Spades engine tests: stacked decks and a small driver around `table`.

A stacked deck is built by replaying the documented deal (the whole pack one card at
a time from the dealer's left) so a test can say which cards each seat holds.
"""

import pytest

from engine import IllegalMove, games, table
from engine.spades.options import resolve
from engine.spades.ranking import ranking

GAME = games.get("spades")


def stacked_deck(players, hands, dealer=3, preset="pairs", options=None):
    """A deck whose deal gives `hands[seat]` to each seat; missing cards are filled
    from the rest of the pack in pack order."""
    opts = resolve(preset, dict(options or {}, first_dealer=dealer), players)
    pack = ranking(opts).pack
    size = len(pack) // players
    placed = [card for cards in hands.values() for card in cards]
    if len(placed) != len(set(placed)) or not set(placed) <= set(pack):
        raise ValueError(f"cards used twice or not in the pack: {placed}")
    filler = [card for card in pack if card not in placed]
    given = {seat: list(hands.get(seat, ())) for seat in range(players)}
    for seat in range(players):
        if len(given[seat]) > size:
            raise ValueError(f"seat {seat} is given more than {size} cards")
        while len(given[seat]) < size:
            given[seat].append(filler.pop(0))
    deck = []
    for position in range(size):
        for offset in range(1, players + 1):
            deck.append(given[(dealer + offset) % players][position])
    assert sorted(deck) == sorted(pack)
    return deck


def suit_cards(suit, ranks="A K Q J 10 9 8 7 6 5 4 3 2"):
    return [rank + suit for rank in ranks.split()]


class Table:
    """One game driven command by command, with the events kept for folding.

    The dealer is seat 3 by default, so seat 0 bids and leads first."""

    def __init__(
        self, hands=None, players=4, preset="pairs", options=None, dealer=3, seed="spades tests"
    ):
        self.key = table.seed_key(seed)
        options = dict(options or {}, first_dealer=dealer)
        self.preset = preset
        deck = None if hands is None else stacked_deck(players, hands, dealer, preset, options)
        self.state, self.events = table.new_game(
            "spades", players, self.key, preset=preset, options=options, deck=deck
        )

    def play(self, seat, type, **fields):
        command = {"type": type, "seat": seat, **fields}
        self.state, events = table.play(GAME, self.state, command, self.key)
        self.events += events
        return events

    def refuse(self, seat, code, type, **fields):
        command = {"type": type, "seat": seat, **fields}
        with pytest.raises(IllegalMove) as caught:
            GAME.decide(self.state, command)
        assert caught.value.code == code, caught.value.message
        return caught.value

    def look(self, seat):
        return self.play(seat, "look")

    def bid(self, seat, tricks, blind=None):
        if self.state.hand.unseen[seat] and not blind:
            self.look(seat)
        fields = {"tricks": tricks} if blind is None else {"tricks": tricks, "blind": blind}
        return self.play(seat, "bid", **fields)

    def bids(self, *tricks):
        """Everyone bids in turn from the first bidder (looking first when needed)."""
        for tricks_bid in tricks:
            self.bid(self.state.hand.turn, tricks_bid)

    def card(self, seat, card):
        return self.play(seat, "play", card=card)

    def trick(self, *cards):
        """Play one card per seat in turn order from whoever is to play."""
        events = []
        for card in cards:
            events += self.card(self.state.hand.turn, card)
        return events

    def play_out(self):
        """Finish the hand with the first legal card each time."""
        number = self.state.hand.number
        while self.state.status == "playing" and self.state.hand.number == number:
            seat = self.state.hand.turn
            move = GAME.legal_moves(self.state, seat)[0]
            self.play(seat, **move)

    @property
    def hand(self):
        return self.state.hand

    def cards(self, seat):
        return self.state.hand.hands[seat]

    def ended(self):
        return [e for e in self.events if e["type"] == "hand_ended"][-1]
