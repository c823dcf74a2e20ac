"""`greedy`: looks at its cards, bids its high cards and long spades, and plays the lowest
card that wins the trick so far, or else its lowest card (partner or not).

Its counting rule is fixed, not tuned: it describes a casual player, the yardstick the
strong bot is measured against."""

from __future__ import annotations

import random
from typing import Any

from engine.spades.bots.commands import Command, by_type
from engine.spades.bots.deck import Deck, T, beats, current_best, deck_for, options_of


def _greedy_estimate(deck: Deck, hand: list[int]) -> int:
    """High cards and long spades: the count a casual player makes."""
    lengths = [0, 0, 0, 0]
    for card in hand:
        lengths[deck.suit[card]] += 1
    tricks = 0
    for card in hand:
        suit, top = deck.suit[card], deck.from_top[card]
        if suit == T:
            if top <= 1 or (top == 2 and lengths[T] >= 3):
                tricks += 1
        elif top == 0 or (top == 1 and lengths[suit] >= 2):
            tricks += 1
    tricks += max(0, lengths[T] - 3)
    return tricks


def _closest_bid(bids: list[Command], wanted: float) -> Command:
    return dict(min(bids, key=lambda m: (abs(m["tricks"] - wanted), m["tricks"])))


def choose_greedy(
    view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random
) -> Command:
    """The obvious player: it never plans ahead, never counts cards and never minds its
    partner, so it is the yardstick that shows what the strong bot's thinking is worth."""
    you = view["you"]
    moves = by_type(you["legal_moves"])
    if "look" in moves and view["turn"] == you["seat"]:
        return {"type": "look"}
    deck = deck_for(options_of(view))
    hand = [deck.id[c] for c in you["hand"]]
    if "bid" in moves:
        return _closest_bid(moves["bid"], max(1, _greedy_estimate(deck, hand)))
    plays = [deck.id[m["card"]] for m in moves["play"]]
    trick = [(seat, deck.id[card]) for seat, card in view["trick"]]
    best = current_best(deck, trick)
    power = deck.power
    if best is not None:
        winners = [c for c in plays if beats(deck, c, best[1])]
        if winners:
            return {"type": "play", "card": deck.cards[min(winners, key=power.__getitem__)]}
    return {"type": "play", "card": deck.cards[min(plays, key=power.__getitem__)]}
