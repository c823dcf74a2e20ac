"""Cards as bits of an int, so the partition search runs on integer masks.

A natural card is bit `suit * 13 + rank - 1` (suits in `SUITS` order, ace = rank 1), so
one suit is 13 consecutive bits and a hand is an int: union, difference and "lowest card
left" are single integer operations. A single pack holds no natural twice, so a mask
loses nothing; jokers, which are interchangeable, are a count kept beside the mask.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.cards import CARD_RANK, CARD_SUIT, JOKER, SUITS

SUIT_INDEX = {suit: index for index, suit in enumerate(SUITS)}
BIT: dict[str, int] = {
    card: 1 << (SUIT_INDEX[CARD_SUIT[card]] * 13 + CARD_RANK[card] - 1) for card in CARD_RANK
}
CARD_OF_BIT: dict[int, str] = {bit: card for card, bit in BIT.items()}
ALL_NATURALS = (1 << 52) - 1
SUIT_MASK = 0x1FFF
SUIT_MASKS = tuple(SUIT_MASK << (13 * suit) for suit in range(4))


def bits(mask: int) -> Iterable[int]:
    """The single-card bits of a mask, lowest first (the order the search places them)."""
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


def mask_of(cards: Iterable[str]) -> tuple[int, int]:
    """(natural mask, joker count) of some cards (a single pack: no natural twice)."""
    mask = jokers = 0
    for card in cards:
        if card == JOKER:
            jokers += 1
        else:
            mask |= BIT[card]
    return mask, jokers


def cards_of(mask: int) -> list[str]:
    """The cards of a natural mask, back in notation (for commands and tests)."""
    return [CARD_OF_BIT[bit] for bit in bits(mask)]


def without(hand: int, jokers: int, card: str) -> tuple[int, int]:
    """(mask, jokers) of a hand less one card: the hand a discard or a meld would leave."""
    if card == JOKER:
        return hand, jokers - 1
    return hand & ~BIT[card], jokers
