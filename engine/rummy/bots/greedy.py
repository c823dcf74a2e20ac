"""The greedy bot: the obvious moves, no plan and no memory.

It takes the discard when it completes a meld, melds and lays off whatever it can, and
discards its highest card that is in no meld.
"""

from __future__ import annotations

import random
from typing import Any

from engine.cards import JOKER
from engine.rummy.bots.commands import Command, by_type
from engine.rummy.bots.encoding import BIT, mask_of
from engine.rummy.bots.meld_search import Rules, card_order, points_of, rules_for


def choose_greedy(
    view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random
) -> Command:
    """The obvious player: it never plans ahead and never tracks cards, so it is the
    yardstick that shows what planning and memory are worth."""
    you = view["you"]
    moves = by_type(you["legal_moves"])
    rules = rules_for(view["options"])
    hand = list(you["hand"])
    if "draw" in moves:
        pile = view["discard_pile"]
        if len(moves["draw"]) > 1 and _completes_meld(rules, hand, pile[-1]):
            return {"type": "draw", "source": "discard"}
        return {"type": "draw", "source": "stock"}
    if "go_down" in moves:
        return dict(moves["go_down"][0])
    if "meld" in moves:
        return dict(
            max(moves["meld"], key=lambda m: (len(m["cards"]), points_of(rules, m["cards"])))
        )
    if "lay_off" in moves:
        return dict(moves["lay_off"][0])
    mask, jokers = mask_of(hand)
    in_meld = 0
    for core, _, _ in rules.cores(mask, jokers):
        if core.bit_count() >= 3 or jokers:
            in_meld |= core
    discards = moves.get("discard") or you["legal_moves"]
    loose = [m for m in discards if m.get("card") != JOKER and not BIT[m["card"]] & in_meld]
    pool = loose or discards
    return dict(max(pool, key=lambda m: card_order(rules, m.get("card"))))


def _completes_meld(rules: Rules, hand: list[str], card: str) -> bool:
    mask, jokers = mask_of(hand)
    if card == JOKER:
        return False
    bit = BIT[card]
    return any(core & bit for core, _, _ in rules.cores(mask | bit, jokers))
