"""The pack as small ints, and who wins a trick: the encoding every bot reads cards in.

A card is its index in the pack of the game's options. Each has an effective suit 0-3
(C D H S; 3 is trumps, which include jokers, Bauers and high deuces) and a power (higher
wins), read once from `engine.spades.ranking` and cached per option set, so that the
strong bot's playouts compare ints in lists instead of strings in dicts.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from engine.spades.options import Options, from_dict
from engine.spades.ranking import Ranking, ranking

SUIT_INDEX = {"C": 0, "D": 1, "H": 2, "S": 3}
T = 3  # the trump suit's index


class Deck:
    """A pack as ints: effective suit and power per card, per option set (cached)."""

    def __init__(self, rank: Ranking) -> None:
        self.rank = rank
        self.cards: tuple[str, ...] = rank.pack
        self.id: dict[str, int] = {card: i for i, card in enumerate(self.cards)}
        self.suit: list[int] = [SUIT_INDEX[rank.suit[c]] for c in self.cards]
        self.power: list[int] = [rank.power[c] for c in self.cards]
        # every card of each suit, ascending power
        self.by_suit: list[list[int]] = [
            sorted(
                (i for i in range(len(self.cards)) if self.suit[i] == s), key=self.power.__getitem__
            )
            for s in range(4)
        ]
        # position of each card from the top of its suit (0: the highest)
        self.from_top: list[int] = [0] * len(self.cards)
        for ids in self.by_suit:
            for position, i in enumerate(reversed(ids)):
                self.from_top[i] = position


@cache
def _deck_of(trumps: str, deuce_order: str, three_players: bool) -> Deck:
    # keyed by the only options that change the pack, so every game shares a few decks
    return Deck(
        ranking(Options(trumps=trumps, deuce_order=deuce_order, three_players=three_players))
    )


def deck_for(options: Options) -> Deck:
    """The (shared, cached) deck of a game's options."""
    return _deck_of(options.trumps, options.deuce_order, options.three_players)


_OPTIONS: dict[int, tuple[dict[str, Any], Options]] = {}


def options_of(view: dict[str, Any]) -> Options:
    """The options of the view's game, rebuilt once per options dict, not per decision.

    Keyed by the dict's id, with the dict kept beside it so that an id reused by a new
    dict is not mistaken for the old one."""
    raw = view["options"]
    entry = _OPTIONS.get(id(raw))
    if entry is not None and entry[0] is raw:
        return entry[1]
    options = from_dict(raw)
    if len(_OPTIONS) > 256:
        _OPTIONS.clear()
    _OPTIONS[id(raw)] = (raw, options)
    return options


def current_best(deck: Deck, trick: list[tuple[int, int]]) -> tuple[int, int] | None:
    """(seat, card id) winning the trick so far."""
    if not trick:
        return None
    suit, power = deck.suit, deck.power
    best_seat, best = trick[0]
    for seat, card in trick[1:]:
        if suit[card] == suit[best]:
            if power[card] > power[best]:
                best_seat, best = seat, card
        elif suit[card] == T:
            best_seat, best = seat, card
    return best_seat, best


def beats(deck: Deck, card: int, best: int) -> bool:
    """Whether `card` played now would take the trick from `best`."""
    if deck.suit[card] == deck.suit[best]:
        return deck.power[card] > deck.power[best]
    return deck.suit[card] == T
