"""Melds: what makes a group or a run, laying off, joker swaps, and listing melds.

Runs are laid out on positions: ace-low games use 1 (A) … 13 (K); with aces high
or low the ace may also sit at 14 (Q-K-A); round-the-corner runs wrap, so any
position maps to rank ((p - 1) % 13) + 1. A meld needs at least two natural
cards, which fixes whether it is a group or a run. A meld command is a multiset:
jokers fill gaps first, then extend the run upwards, then downwards (documented
in docs/rules.md), so each set of cards has one arrangement.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from engine.cards import CARD_RANK, CARD_SUIT, JOKER, RANKS, SUITS, make_card, sort_cards
from engine.rummy.options import Options

MAX_RUN = 13


@dataclass(frozen=True, slots=True)
class Meld:
    id: int
    owner: int
    kind: str  # "group" | "run"
    cards: tuple[str, ...]  # runs: in position order; groups: naturals by suit, then jokers
    rank: int = 0  # groups only
    suit: str = ""  # runs only
    start: int = 0  # runs only: position of cards[0]

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "owner": self.owner,
            "kind": self.kind,
            "cards": list(self.cards),
        }
        if self.kind == "run":
            data["suit"] = self.suit
            data["start"] = self.start
        else:
            data["rank"] = self.rank
        return data

    def represents(self) -> list[str]:
        """What each card stands for: itself, or for a joker the card (run) or rank (group)."""
        if self.kind == "run":
            return [make_card(_rank_at(self.start + i), self.suit) for i in range(len(self.cards))]
        rank = make_card(self.rank, "C")[:-1]
        return [card if card != JOKER else rank for card in self.cards]


def meld_from_dict(data: dict[str, Any]) -> Meld:
    return Meld(
        id=data["id"],
        owner=data["owner"],
        kind=data["kind"],
        cards=tuple(data["cards"]),
        rank=data.get("rank", 0),
        suit=data.get("suit", ""),
        start=data.get("start", 0),
    )


def _rank_at(position: int) -> int:
    return (position - 1) % 13 + 1


def _top_position(options: Options) -> int:
    return 13 if options.aces == "low" else 14


def _place_run(ranks: list[int], length: int, options: Options) -> tuple[int, list[int]] | None:
    """Return (start, natural positions) for a run of `length` holding these ranks."""
    if options.round_the_corner:
        ordered = sorted(ranks)
        gaps = [(ordered[(i + 1) % len(ordered)] - ordered[i]) % 13 for i in range(len(ordered))]
        anchor = ordered[(gaps.index(max(gaps)) + 1) % len(ordered)]
        positions = [(r - anchor) % 13 + anchor for r in ranks]
        if max(positions) - anchor + 1 <= length:
            return anchor, positions
        return None
    variants = [list(ranks)]
    if options.aces == "high_or_low" and 1 in ranks:
        variants.append([14 if r == 1 else r for r in ranks])
    top = _top_position(options)
    for positions in variants:
        low, high = min(positions), max(positions)
        for start in range(low, low - length, -1):
            if start < 1:
                break
            end = start + length - 1
            if end > top:
                continue
            if high <= end:
                return start, positions
    return None


def arrange(cards: Sequence[str], owner: int, meld_id: int, options: Options) -> Meld | None:
    """The meld these cards make, or None when they make none."""
    total = len(cards)
    if total < 3:
        return None
    naturals = [card for card in cards if card != JOKER]
    jokers = total - len(naturals)
    if len(naturals) < 2:
        return None
    ranks = [CARD_RANK[card] for card in naturals]
    suits = [CARD_SUIT[card] for card in naturals]
    if len(set(ranks)) == 1:
        if total > 4 or len(set(suits)) != len(suits):
            return None
        ordered = sort_cards(naturals) + (JOKER,) * jokers
        return Meld(meld_id, owner, "group", ordered, rank=ranks[0])
    if len(set(suits)) != 1 or len(set(ranks)) != len(ranks) or total > MAX_RUN:
        return None
    placed = _place_run(ranks, total, options)
    if placed is None:
        return None
    start, positions = placed
    by_position = dict(zip(positions, naturals, strict=True))
    ordered = tuple(by_position.get(start + i, JOKER) for i in range(total))
    return Meld(meld_id, owner, "run", ordered, suit=suits[0], start=_normal_start(start, options))


def _normal_start(start: int, options: Options) -> int:
    return _rank_at(start) if options.round_the_corner else start


def lay_off(meld: Meld, card: str, options: Options) -> Meld | None:
    """The meld with `card` added at an end (or to the group), or None if it does not fit."""
    if meld.kind == "group":
        if len(meld.cards) >= 4:
            return None
        if card == JOKER:
            return Meld(meld.id, meld.owner, "group", meld.cards + (JOKER,), rank=meld.rank)
        naturals = [c for c in meld.cards if c != JOKER]
        if CARD_RANK[card] != meld.rank or any(CARD_SUIT[c] == CARD_SUIT[card] for c in naturals):
            return None
        jokers = len(meld.cards) - len(naturals)
        ordered = sort_cards([*naturals, card]) + (JOKER,) * jokers
        return Meld(meld.id, meld.owner, "group", ordered, rank=meld.rank)
    length = len(meld.cards)
    if length >= MAX_RUN:
        return None
    if options.round_the_corner:
        can_low = can_high = True
    else:
        can_low = meld.start > 1
        can_high = meld.start + length <= _top_position(options)
    if card == JOKER:
        if can_high:
            return _run(meld, meld.cards + (JOKER,), meld.start, options)
        if can_low:
            return _run(meld, (JOKER,) + meld.cards, meld.start - 1, options)
        return None
    if CARD_SUIT[card] != meld.suit:
        return None
    rank = CARD_RANK[card]
    if can_high and _rank_at(meld.start + length) == rank:
        return _run(meld, meld.cards + (card,), meld.start, options)
    if can_low and _rank_at(meld.start - 1) == rank:
        return _run(meld, (card,) + meld.cards, meld.start - 1, options)
    return None


def _run(meld: Meld, cards: tuple[str, ...], start: int, options: Options) -> Meld:
    return Meld(
        meld.id, meld.owner, "run", cards, suit=meld.suit, start=_normal_start(start, options)
    )


def swap_joker(meld: Meld, card: str) -> Meld | None:
    """The meld with `card` put in place of the joker it stands for, or None."""
    if card == JOKER or JOKER not in meld.cards:
        return None
    if meld.kind == "run":
        for index, (held, stands_for) in enumerate(zip(meld.cards, meld.represents(), strict=True)):
            if held == JOKER and stands_for == card:
                cards = meld.cards[:index] + (card,) + meld.cards[index + 1 :]
                return Meld(meld.id, meld.owner, "run", cards, suit=meld.suit, start=meld.start)
        return None
    naturals = [c for c in meld.cards if c != JOKER]
    if CARD_RANK[card] != meld.rank or any(CARD_SUIT[c] == CARD_SUIT[card] for c in naturals):
        return None
    jokers = len(meld.cards) - len(naturals) - 1
    ordered = sort_cards([*naturals, card]) + (JOKER,) * jokers
    return Meld(meld.id, meld.owner, "group", ordered, rank=meld.rank)


_FITS_CACHE: dict[tuple[Any, ...], frozenset[str]] = {}
_FITS_CACHE_LIMIT = 100_000


def layoff_cards(meld: Meld, options: Options) -> frozenset[str]:
    """Every card `lay_off` would accept on this meld (memoised: bots ask for it every turn).

    The candidates (the group's missing suits, the cards next to a run's ends, a joker)
    are a superset; `lay_off` itself decides, so this can never disagree with it.
    """
    shape = (meld.kind, meld.cards, meld.rank, meld.suit, meld.start)
    key = (shape, options.aces, options.round_the_corner)
    fits = _FITS_CACHE.get(key)
    if fits is None:
        if meld.kind == "group":
            candidates = [make_card(meld.rank, suit) for suit in SUITS]
        else:
            length = len(meld.cards)
            candidates = [
                make_card(_rank_at(meld.start + length), meld.suit),
                make_card(_rank_at(meld.start - 1), meld.suit),
            ]
        candidates.append(JOKER)
        fits = frozenset(card for card in candidates if lay_off(meld, card, options) is not None)
        if len(_FITS_CACHE) >= _FITS_CACHE_LIMIT:
            _FITS_CACHE.clear()
        _FITS_CACHE[key] = fits
    return fits


def candidate_melds(hand: Iterable[str], options: Options) -> list[tuple[str, ...]]:
    """Every distinct meld (canonical sorted cards) that can be formed from the hand."""
    cards = hand if type(hand) is tuple else list(hand)
    if not options.round_the_corner:
        try:
            mask = sum(map(_CARD_BIT_OF, cards))
        except KeyError:  # a joker, or not a card: the general path
            mask = 0
        if mask.bit_count() == len(cards):  # distinct naturals: no bit was added twice
            return _natural_melds(mask, options.aces == "high_or_low")
    cards = list(cards)
    jokers = cards.count(JOKER)
    by_rank: dict[int, list[str]] = {}
    by_suit: dict[str, dict[int, str]] = {}
    for card in cards:
        if card == JOKER:
            continue
        by_rank.setdefault(CARD_RANK[card], []).append(card)
        by_suit.setdefault(CARD_SUIT[card], {})[CARD_RANK[card]] = card
    found: set[tuple[str, ...]] = set()
    for same_rank in by_rank.values():
        for size in range(2, min(4, len(same_rank)) + 1):
            for chosen in combinations(same_rank, size):
                for extra in range(0, min(jokers, 4 - size) + 1):
                    if size + extra >= 3:
                        found.add(sort_cards(chosen) + (JOKER,) * extra)
    for suit in SUITS:
        held = by_suit.get(suit)
        if held is None or len(held) < 2 or len(held) + jokers < 3:
            continue
        if jokers == 0:
            _runs_without_jokers(held, options, found)
        else:
            _runs_with_jokers(held, jokers, options, found)
    return sorted(found)


# Each natural card is one bit: suit lane (16 bits: clubs, diamonds, hearts, spades) +
# rank (bits 1-13; bit 14 is an ace that may be high; bits 0 and 15 stay clear, so
# runs found by shifting never cross from one suit into the next).
_CARD_BIT = {
    card: 1 << (16 * SUITS.index(CARD_SUIT[card]) + rank) for card, rank in CARD_RANK.items()
}
_CARD_BIT_OF = _CARD_BIT.__getitem__  # KeyError for a joker or a non-card
_ACES = sum(1 << (16 * lane + 1) for lane in range(4))
_LANE = 0xFFFF


def _natural_melds(held: int, ace_high: bool) -> list[tuple[str, ...]]:
    """`candidate_melds` for distinct natural cards without round-the-corner runs, made fast.

    Bots list moves every turn and most hands hold no meld, so the hand is one bit
    mask (`_CARD_BIT`): a rank held in three suits makes groups, three consecutive
    bits in a lane make runs.
    """
    if ace_high:
        held |= (held & _ACES) << 13
    masks = [held & _LANE, held >> 16 & _LANE, held >> 32 & _LANE, held >> 48]
    clubs, diamonds, hearts, spades = masks
    in_three_suits = (clubs & diamonds & (hearts | spades)) | (hearts & spades & (clubs | diamonds))
    runs = held & (held >> 1) & (held >> 2)
    if not in_three_suits and not runs:
        return []
    found: set[tuple[str, ...]] = set()
    in_three_suits &= 0x3FFE  # ranks 1-13 (bit 14 would be the high ace again)
    for rank in range(1, 14):
        if in_three_suits >> rank & 1:
            # Built in suit order, so every combination is already in canonical order.
            same = [RANKS[rank - 1] + SUITS[i] for i in range(4) if masks[i] >> rank & 1]
            found.update(combinations(same, 3))
            if len(same) == 4:
                found.add(tuple(same))
    for index, mask in enumerate(masks):
        if not runs >> (16 * index) & _LANE:
            continue
        suit = SUITS[index]
        positions = [p for p in range(1, 15) if mask >> p & 1]
        stretch_start = previous = positions[0]
        for position in positions[1:] + [0]:
            if position == previous + 1:
                previous = position
                continue
            for low in range(stretch_start, previous - 1):
                for high in range(low + 2, min(previous, low + MAX_RUN - 1) + 1):
                    run = tuple(RANKS[(p - 1) % 13] + suit for p in range(low, high + 1))
                    if high == 14:  # canonical order puts the ace first
                        run = run[-1:] + run[:-1]
                    found.add(run)
            stretch_start = previous = position
    return sorted(found)


def _windows(options: Options, max_length: int) -> Iterable[tuple[int, int]]:
    limit = min(MAX_RUN, max_length)
    if options.round_the_corner:
        for start in range(1, 14):
            for length in range(3, limit + 1):
                yield start, length
        return
    top = _top_position(options)
    for start in range(1, top - 1):
        for length in range(3, min(limit, top - start + 1) + 1):
            yield start, length


def _runs_without_jokers(held: dict[int, str], options: Options, found: set) -> None:
    for start, length in _windows(options, len(held)):
        window = []
        for position in range(start, start + length):
            card = held.get(_rank_at(position))
            if card is None:
                break
            window.append(card)
        else:
            found.add(sort_cards(window))


def _runs_with_jokers(held: dict[int, str], jokers: int, options: Options, found: set) -> None:
    for start, length in _windows(options, len(held) + jokers):
        present = [
            held[r] for r in (_rank_at(p) for p in range(start, start + length)) if r in held
        ]
        missing = length - len(present)
        if missing > jokers or len(present) < 2:
            continue
        for dropped in range(0, min(jokers - missing, len(present) - 2) + 1):
            for removed in combinations(present, dropped):
                kept = [card for card in present if card not in removed]
                found.add(sort_cards(kept) + (JOKER,) * (length - len(kept)))
