"""What one seat knows of the deal, and deals of the unseen cards consistent with it.

From its view alone: its hand, the trick in progress and every trick played, each
seat's card count, and the voids the play revealed (a seat that did not follow suit
holds none of it; a seat that led spades before they were broken held nothing else).
`sample` deals the cards it has not seen to the other seats within those limits: the
determinization the strong bot plays its candidates forward in.
"""

from __future__ import annotations

import random
from typing import Any

from engine.spades.bots.deck import Deck, T
from engine.spades.bots.weights import DEAL_TRIES


def _learn(
    suit: list[int], plays: list[tuple[int, int]], voids: list[set[int]], broken: bool
) -> None:
    """Add the voids that one trick's plays (in order) reveal."""
    if not plays:
        return
    led = suit[plays[0][1]]
    if led == T and not broken:
        voids[plays[0][0]].update((0, 1, 2))  # led spades unbroken: held nothing else
    for seat, card in plays[1:]:
        if suit[card] != led:
            voids[seat].add(led)


class Memory:
    """The seat's knowledge, read from its view once: cards as ints (see `deck`)."""

    def __init__(self, view: dict[str, Any], deck: Deck, rng: random.Random) -> None:
        self.rng = rng
        self.deck = deck
        you = view["you"]
        self.me = you["seat"]
        self.players = players = view["players"]
        self.hand = [deck.id[c] for c in you["hand"]]
        self.trick = [(seat, deck.id[card]) for seat, card in view["trick"]]
        self.broken = view["spades_broken"]
        self.counts = list(view["hand_counts"])
        # what has been seen: played cards and voids
        seen = set(self.hand)
        voids: list[set[int]] = [set() for _ in range(players)]
        suit = deck.suit
        broken = False
        for trick in view["tricks"]:
            plays = [(s, deck.id[c]) for s, c in trick["cards"]]
            _learn(suit, plays, voids, broken)
            for _, c in plays:
                seen.add(c)
                if not broken and suit[c] == T and suit[plays[0][1]] != T:
                    broken = True
        _learn(suit, self.trick, voids, broken)
        for _, c in self.trick:
            seen.add(c)
        self.voids = voids
        self.unknown = [i for i in range(len(deck.cards)) if i not in seen]

    def sample(self) -> list[list[list[int]]]:
        """Hands for every seat (per suit, ascending power) consistent with the voids."""
        rng = self.rng
        deck = self.deck
        players = self.players
        me = self.me
        need = list(self.counts)
        need[me] = 0
        voids = self.voids
        cards = self.unknown[:]
        rng.shuffle(cards)
        suit = deck.suit
        # most constrained first: cards whose suit few seats may hold
        open_seats = [
            [s for s in range(players) if s != me and su not in voids[s]] for su in range(4)
        ]
        cards.sort(key=lambda c: len(open_seats[suit[c]]))
        for _ in range(DEAL_TRIES):
            left = list(need)
            hands: list[list[int]] = [[] for _ in range(players)]
            ok = True
            for card in cards:
                seats = open_seats[suit[card]]
                total = 0
                for s in seats:
                    total += left[s]
                if total == 0:
                    ok = False
                    break
                pick = rng.randrange(total)
                for s in seats:
                    pick -= left[s]
                    if pick < 0:
                        break
                hands[s].append(card)
                left[s] -= 1
            if ok:
                hands[me] = list(self.hand)
                return [self._split(h) for h in hands]
            rng.shuffle(cards)
            cards.sort(key=lambda c: len(open_seats[suit[c]]))
        # the voids cannot all be honoured (should not happen): deal ignoring them
        hands = [[] for _ in range(players)]
        position = 0
        for s in range(players):
            if s == me:
                continue
            hands[s] = cards[position : position + need[s]]
            position += need[s]
        hands[me] = list(self.hand)
        return [self._split(h) for h in hands]

    def _split(self, cards: list[int]) -> list[list[int]]:
        suits: list[list[int]] = [[], [], [], []]
        suit = self.deck.suit
        for card in cards:
            suits[suit[card]].append(card)
        power = self.deck.power
        for cards_of_suit in suits:
            cards_of_suit.sort(key=power.__getitem__)
        return suits
