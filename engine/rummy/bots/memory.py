"""What one seat knows in this hand: its view, and what it remembers of the history.

The view gives the hand, the public table and the counts; the history (the hand's
events as this seat may see them) adds what the view forgets: the cards each opponent
took from the pile and still holds, what each threw, whether this seat has melded or
laid off in an earlier turn, the card it took from the pile this turn, and, when the
pile was turned over (not shuffled) to become the stock, the stock's exact order.
"""

from __future__ import annotations

from typing import Any

from engine.cards import JOKER
from engine.rummy.bots.commands import Command
from engine.rummy.bots.encoding import mask_of
from engine.rummy.bots.meld_search import rules_for
from engine.rummy.melds import meld_from_dict


class SeatMemory:
    """What a seat knows now: its hand, the public table, and what it remembers."""

    def __init__(self, view: dict[str, Any], history: list[dict[str, Any]]) -> None:
        self.view = view
        self.options: dict[str, Any] = view["options"]
        self.rules = rules_for(self.options)
        you = view["you"]
        self.seat: int = you["seat"]
        self.cards: list[str] = list(you["hand"])
        self.hand, self.jokers = mask_of(self.cards)
        self.moves: list[Command] = you["legal_moves"]
        self.players: int = view["players"]
        self.pile: list[str] = list(view["discard_pile"])
        self.melds = [meld_from_dict(m) for m in view["melds"]]
        self.hand_counts: list[int] = list(view["hand_counts"])
        self.stock_count: int = view["stock_count"]
        self.hand_number: int = view["hand_number"]
        start = self.options.get("all_at_once_from_deal")
        self.all_at_once = start is not None and self.hand_number >= start
        self._read_history(history)

    def _read_history(self, history: list[dict[str, Any]]) -> None:
        """Cards each opponent is known to hold (taken from the pile), what they threw,
        whether this seat has melded, and the card it took from the pile this turn."""
        start = 0
        for index, event in enumerate(history):
            if event.get("type") == "hand_dealt":
                start = index
        known: dict[int, list[str]] = {s: [] for s in range(self.players)}
        thrown: dict[int, list[str]] = {s: [] for s in range(self.players)}
        self.has_melded = False
        self.opened = False  # melded or laid off in an earlier turn
        played_this_turn = False
        self.drawn_from_pile: str | None = None
        # The pile's order is public; when it is turned over (not shuffled) to become
        # the stock, the stock's order is known to anyone who watched.
        pile: list[str] = []
        stock: list[str] | None = None
        for event in history[start:]:
            kind = event.get("type")
            seat = event.get("seat", -1)  # every event that names a seat has one
            if kind == "hand_dealt":
                upcard = event.get("upcard")
                pile = [upcard] if upcard else []
            elif kind == "card_drawn":
                if event.get("source") == "discard":
                    known[seat].append(event["card"])
                    if pile:
                        pile.pop()
                    if seat == self.seat:
                        self.drawn_from_pile = event["card"]
                elif stock is not None:
                    top = stock.pop(0) if stock else None
                    if "card" in event and event["card"] != top:
                        stock = None
            elif kind == "stock_replenished":
                stock = pile if event.get("shuffled") is False else None
                pile = []
            elif kind == "discarded":
                pile.append(event["card"])
                _forget(known[seat], event["card"])
                thrown[seat].append(event["card"])
                if seat == self.seat:
                    self.opened = self.opened or played_this_turn
                    played_this_turn = False
                    self.drawn_from_pile = None
            elif kind == "melded":
                for card in event["meld"]["cards"]:
                    _forget(known[seat], card)
                if seat == self.seat:
                    self.has_melded = True
                    played_this_turn = True
            elif kind == "laid_off":
                _forget(known[seat], event["card"])
                if seat == self.seat:
                    played_this_turn = True
            elif kind == "joker_swapped":
                _forget(known[seat], event["card"])
                known[seat].append(JOKER)
        known[self.seat] = []
        self.known = known
        self.thrown = thrown
        consistent = stock is not None and pile == self.pile and len(stock) == self.stock_count
        self.stock_known = stock if consistent else None

    # -- derived knowledge -----------------------------------------------------

    def may_lay_off(self) -> bool:
        """Whether the options let this seat lay off now (some only after it has melded)."""
        return not self.options["lay_off_after_meld"] or self.has_melded

    def seen(self) -> tuple[int, int]:
        """Cards whose place this seat knows: its hand, the pile, the melds, and the
        cards opponents took from the pile (natural mask, jokers)."""
        mask, jokers = self.hand, self.jokers
        for cards in (self.pile, *(m.cards for m in self.melds)):
            m, j = mask_of(cards)
            mask |= m
            jokers += j
        for seat, cards in self.known.items():
            if seat != self.seat:
                m, j = mask_of(cards)
                mask |= m
                jokers += j
        return mask, jokers


def _forget(cards: list[str], card: str) -> None:
    """A seat played a card: it no longer holds it, if it was known to (it may have
    come from the deal, which nobody else saw)."""
    if card in cards:
        cards.remove(card)
