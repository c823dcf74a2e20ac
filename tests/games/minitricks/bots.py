"""Minitricks' bots, from one seat's view only (the trick is public, so no memory is needed).

* `random`: a uniformly random legal move.
* `greedy`: the lowest card that takes the trick so far, else its lowest card; leading,
  its highest card.
"""

import random
from typing import Any

from minitricks.decider import power

Command = dict[str, Any]


def choose_random(view: dict[str, Any], memory: list[Any], rng: random.Random) -> Command:
    return dict(rng.choice(view["you"]["legal_moves"]))


def choose_greedy(view: dict[str, Any], memory: list[Any], rng: random.Random) -> Command:
    cards = sorted((move["card"] for move in view["you"]["legal_moves"]), key=power)
    trick = view["trick"]
    if not trick:
        return {"type": "play", "card": cards[-1]}
    led = trick[0][1][-1]
    best = max(power(card) for _, card in trick if card[-1] == led)
    winning = [card for card in cards if card[-1] == led and power(card) > best]
    return {"type": "play", "card": (winning or cards)[0]}


BOTS = {"random": choose_random, "greedy": choose_greedy}
