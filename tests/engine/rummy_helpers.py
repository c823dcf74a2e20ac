"""Helpers for Rummy engine tests: stacked decks and a small driver around `table`.

A stacked deck is built by replaying the documented deal (one card at a time
from dealer + 1) so a test can say which cards each seat holds, what the upcard
is and what lies on top of the stock.
"""

from collections import Counter

import pytest

from engine import IllegalMove, games, table
from engine.cards import JOKER, RANKS, SUITS, sort_cards, standard_pack
from engine.rummy.options import resolve

GAME = games.get("rummy")
KEY = table.seed_key("engine tests")

# Filler cards in an order where any ten in a row hold no group and no run:
# card i has rank i mod 13 and suit i mod 4 (a bijection, as 4 and 13 are coprime).
FILLER_ORDER = tuple(RANKS[i % 13] + SUITS[i % 4] for i in range(52))


def stacked_deck(players, hands, upcard=None, stock=(), dealer=0, preset="pagat", options=None):
    """A deck whose deal gives `hands[seat]` to each seat (missing cards are filler).

    `upcard` is the card turned up to start the discard pile (ignored for
    Wrotham-style deals, which have none), `stock` the cards on top of the stock,
    top first. Filler comes from the rest of the pack in FILLER_ORDER.
    """
    opts = resolve(preset, dict(options or {}, first_dealer=dealer), players)
    size = opts.hand_size_for(players)
    starter = (dealer + 1) % players
    wanted = [
        size + (1 if opts.starter_extra_card and seat == starter else 0) for seat in range(players)
    ]
    placed = [card for seat_cards in hands.values() for card in seat_cards]
    placed += list(stock) + ([upcard] if upcard else [])
    pool = Counter(standard_pack(opts.jokers))
    pool.subtract(placed)
    if any(count < 0 for count in pool.values()):
        raise ValueError(f"cards used twice or not in the pack: {+(-pool)}")
    filler = [card for card in FILLER_ORDER if pool[card] > 0] + [JOKER] * pool[JOKER]
    given = {seat: list(hands.get(seat, ())) for seat in range(players)}
    for seat in range(players):
        if len(given[seat]) > wanted[seat]:
            raise ValueError(f"seat {seat} is given more than {wanted[seat]} cards")
        while len(given[seat]) < wanted[seat]:
            given[seat].append(filler.pop(0))
    deck = []
    dealt = [0] * players
    while any(dealt[seat] < wanted[seat] for seat in range(players)):
        for offset in range(1, players + 1):
            seat = (dealer + offset) % players
            if dealt[seat] < wanted[seat]:
                deck.append(given[seat][dealt[seat]])
                dealt[seat] += 1
    if not opts.starter_extra_card:
        deck.append(upcard if upcard else filler.pop(0))
    deck += list(stock)
    deck += filler
    assert Counter(deck) == Counter(standard_pack(opts.jokers))
    return deck


class Table:
    """One game driven command by command, with the events kept for folding."""

    def __init__(
        self,
        players=2,
        hands=None,
        upcard=None,
        stock=(),
        preset="pagat",
        options=None,
        dealer=None,
        seed="engine tests",
    ):
        self.key = table.seed_key(seed)
        dealer = players - 1 if dealer is None else dealer  # seat 0 starts by default
        options = dict(options or {}, first_dealer=dealer)
        deck = stacked_deck(players, hands or {}, upcard, stock, dealer, preset, options)
        self.state, self.events = table.new_game(
            "rummy", players, self.key, preset=preset, options=options, deck=deck
        )

    # -- commands --------------------------------------------------------

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

    def draw(self, seat, source="stock"):
        return self.play(seat, "draw", source=source)

    def meld(self, seat, *cards):
        return self.play(seat, "meld", cards=list(cards))

    def lay_off(self, seat, card, meld):
        return self.play(seat, "lay_off", card=card, meld=meld)

    def discard(self, seat, card):
        return self.play(seat, "discard", card=card)

    # -- looking ---------------------------------------------------------

    @property
    def hand(self):
        return self.state.hand

    def cards(self, seat):
        return self.state.hand.hands[seat]

    def meld_cards(self, meld_id):
        for meld in self.state.hand.melds:
            if meld.id == meld_id:
                return meld.cards
        raise KeyError(meld_id)

    def ended(self):
        """The last hand_ended event."""
        return [e for e in self.events if e["type"] == "hand_ended"][-1]


def canonical(command):
    """A command without its seat, meld cards as a multiset, for comparing move lists."""
    kind = command["type"]
    if kind == "meld":
        return ("meld", sort_cards(command["cards"]))
    if kind == "go_down":
        melds = tuple(sorted(sort_cards(m) for m in command["melds"]))
        return ("go_down", melds, command.get("discard"))
    if kind == "draw":
        return ("draw", command["source"])
    if kind in ("lay_off", "swap_joker"):
        return (kind, command["card"], command["meld"])
    return (kind, command["card"])
