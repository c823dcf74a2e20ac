"""`strong`: bids from a model of each card's chance to take a trick (by suit length,
honours above it and the trumps behind it), bids nil when the hand is safe (few, low
spades, no unguarded high cards, a partner who can carry the side), and plays by
determinized Monte Carlo: it samples deals of the unseen cards consistent with
everything seen (each seat's card count; voids revealed by not following suit, and by
leading spades before they were broken), plays every distinct candidate card forward in
each sample with a fast policy that knows the bids (make our bid, set theirs, protect a
partner's nil, break an opponent's nil, shed cards to avoid bags) and picks the card
with the best mean score difference for its side. The number of samples shrinks with
the cards left, keeping a decision within a few milliseconds.

The parts: `bidding` (the bid), `memory` (what the seat knows, and the sampled deals),
`playout` (the fast policy), `evaluation` (what a played-out hand is worth); this module
puts them together into one decision.
"""

from __future__ import annotations

import random
from typing import Any

from engine.spades.bots.bidding import before_looking, bid_strong
from engine.spades.bots.commands import Command, by_type
from engine.spades.bots.deck import T, current_best, deck_for, options_of
from engine.spades.bots.evaluation import Evaluation
from engine.spades.bots.memory import Memory
from engine.spades.bots.playout import Playout
from engine.spades.bots.weights import MAX_SAMPLES, MIN_SAMPLES, PLAY_BUDGET
from engine.spades.options import Options


class Play(Memory):
    """One card decision of the strong bot: the view read into ints once."""

    def __init__(self, view: dict[str, Any], options: Options, rng: random.Random) -> None:
        deck = deck_for(options)
        super().__init__(view, deck, rng)
        players = self.players
        sides = [tuple(side) for side in view["sides"]]
        side_of = [0] * players
        for index, side in enumerate(sides):
            for seat in side:
                side_of[seat] = index
        bids = [bid["tricks"] if bid else 0 for bid in view["bids"]]
        blind = [bool(bid and bid["blind"]) for bid in view["bids"]]
        self.won = list(view["tricks_won"])
        self.playout = Playout(deck, players, sides, side_of, bids)
        self.evaluation = Evaluation(options, sides, side_of, bids, blind, self.me)

    def candidates(self, legal: list[int]) -> list[int]:
        """One card of each run of equivalent cards (no card out between them)."""
        deck = self.deck
        mine = set(self.hand)
        out = set(self.unknown)
        chosen = []
        for su in range(4):
            in_suit = sorted((c for c in legal if deck.suit[c] == su), key=deck.power.__getitem__)
            if not in_suit:
                continue
            order = deck.by_suit[su]
            position = {c: i for i, c in enumerate(order)}
            previous = None
            for card in in_suit:
                if previous is not None:
                    between = order[position[previous] + 1 : position[card]]
                    if all(c in mine or c not in out for c in between):
                        continue  # equivalent to the previous (lower) card
                chosen.append(card)
                previous = card
        return chosen

    def choose(self, legal: list[int]) -> int:
        """The candidate with the best total value over the sampled deals (the earliest
        candidate on a tie)."""
        candidates = self.candidates(legal)
        if len(candidates) == 1:
            return candidates[0]
        left_cards = sum(self.counts)
        samples = _samples_for(left_cards, len(candidates))
        totals = [0.0] * len(candidates)
        players = self.players
        suit = self.deck.suit
        run = self.playout.run
        value = self.evaluation.value
        for _ in range(samples):
            hands = self.sample()
            for index, card in enumerate(candidates):
                copy = [[list(cards) for cards in seat_hands] for seat_hands in hands]
                copy[self.me][suit[card]].remove(card)
                trick = self.trick + [(self.me, card)]
                broken = self.broken or (
                    bool(self.trick) and suit[card] == T and suit[self.trick[0][1]] != T
                )
                won = list(self.won)
                turn = (self.me + 1) % players
                if len(trick) == players:
                    full = current_best(self.deck, trick)
                    assert full is not None  # a full trick has a winner
                    winner = full[0]
                    won[winner] += 1
                    trick = []
                    turn = winner
                result = run(copy, trick, turn, won, broken, left_cards - 1)
                totals[index] += value(result)
        best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
        return candidates[best]


def _samples_for(cards_left: int, candidates: int) -> int:
    """Deals to sample: about PLAY_BUDGET card plays per decision, at least MIN_SAMPLES
    deals, at most MAX_SAMPLES."""
    return max(MIN_SAMPLES, min(MAX_SAMPLES, PLAY_BUDGET // max(1, cards_left * candidates)))


def choose_strong(
    view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random
) -> Command:
    """The thinker: a trick-probability bidding model and Monte Carlo card play."""
    you = view["you"]
    moves = by_type(you["legal_moves"])
    options = options_of(view)
    if "look" in moves and view["turn"] == you["seat"]:
        return before_looking(view, options, moves)
    if "bid" in moves:
        return bid_strong(view, options, moves["bid"])
    play = Play(view, options, rng)
    legal = [play.deck.id[m["card"]] for m in moves["play"]]
    return {"type": "play", "card": play.deck.cards[play.choose(legal)]}
