"""Which cards the table's melds can take: lay-off chains, memoised per table.

A card that fits a meld now may open the way for the next one (8♥ then 9♥ on 5-6-7♥),
so the strong bot counts a held chain prefix as cards it can shed rather than deadwood.
"""

from __future__ import annotations

from typing import Any

from engine.cards import JOKER
from engine.rummy.bots.encoding import BIT
from engine.rummy.bots.meld_search import Rules
from engine.rummy.melds import lay_off, layoff_cards

_CHAINS: dict[tuple[Any, ...], tuple[tuple[tuple[int, ...], ...], bool]] = {}


def layoff_chains(melds: list[Any], rules: Rules) -> tuple[tuple[tuple[int, ...], ...], bool]:
    """The lay-off chains of the table: for each card that fits a meld now, the cards
    that would fit after it in the same direction (memoised per table)."""
    options = rules.options
    key = (
        options.aces,
        options.round_the_corner,
        tuple((m.kind, m.cards, m.rank, m.suit, m.start) for m in melds),
    )
    cached = _CHAINS.get(key)
    if cached is not None:
        return cached
    chains: list[tuple[int, ...]] = []
    joker_fits = False
    for meld in melds:
        fits = layoff_cards(meld, options)
        for card in fits:
            if card == JOKER:
                joker_fits = True
                continue
            chain = [BIT[card]]
            current = lay_off(meld, card, options)
            # `layoff_cards` lists only cards that `lay_off` accepts, so `current` and
            # `extended` are never None; the tests say so to the type checker.
            if meld.kind == "run" and current is not None:
                high = current.cards[-1] == card
                while current is not None and len(chain) < 13:
                    following = None
                    for nxt in layoff_cards(current, options):
                        if nxt == JOKER or BIT[nxt] in chain:
                            continue
                        extended = lay_off(current, nxt, options)
                        if extended is not None and (extended.cards[-1] == nxt) == high:
                            following = nxt
                            current = extended
                            break
                    if following is None:
                        break
                    chain.append(BIT[following])
            chains.append(tuple(chain))
    if len(_CHAINS) > 10_000:
        _CHAINS.clear()
    result = (tuple(chains), joker_fits)
    _CHAINS[key] = result
    return result
