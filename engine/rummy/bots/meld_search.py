"""The strong bot's core: an exact minimum-deadwood partition of a hand, jokers included.

`Rules` holds what the search needs from the options (card values, which cards can share
a meld), computed once per option set and cached with its memo tables (`rules_for`), since
a bot asks about thousands of hands that differ in one card. Candidate melds ("cores")
are enumerated per suit and per rank, memoised on the cards held there; then a memoised
search that always places the lowest card left picks disjoint ones, preferring fewer
melds among equals (fewer turns to lay them). `best_partition` is the readable face of it
(cards, not masks) that tests check on examples.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations
from typing import Any

from engine.cards import CARD_RANK, CARD_SUIT, JOKER, SUITS, make_card
from engine.rummy.bots.encoding import BIT, CARD_OF_BIT, SUIT_MASKS, bits, cards_of, mask_of
from engine.rummy.options import Options, from_dict
from engine.rummy.scoring import card_points

_EPS = 1e-3  # per meld in a partition: among equal deadwood, fewer melds (fewer turns)
_NO_DISCARD_PENALTY = 1000.0  # a "going out" partition that keeps nothing to discard


class Rules:
    """What the partition search needs from the options, computed once per option set."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.joker_points = options.joker_points
        self.ace_high = options.aces == "high_or_low"
        self.corner = options.round_the_corner
        self.value: dict[int, int] = {bit: card_points(card, options) for card, bit in BIT.items()}
        self.rank_mask = [
            sum(BIT[make_card(rank, suit)] for suit in SUITS) for rank in range(1, 14)
        ]
        self.core_cache: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
        self.solve_cache: dict[tuple[Any, ...], tuple[float, tuple[tuple[int, int], ...]]] = {}
        # neighbours[reach][bit]: cards that could share a meld with this one when
        # `reach` positions separate them in a suit (2, or more with jokers in hand).
        self.neighbours: dict[int, dict[int, int]] = {}
        # partner pairs: the two-card completions that make a three-card meld with a card.
        self.pairs: dict[int, list[tuple[int, int]]] = {}
        for card, bit in BIT.items():
            rank, suit = CARD_RANK[card], CARD_SUIT[card]
            others = [BIT[make_card(rank, s)] for s in SUITS if s != suit]
            pairs = list(combinations(others, 2))
            positions = [rank] + ([14] if rank == 1 and self.ace_high else [])
            for position in positions:
                for low in (-2, -1, 0):
                    window = [position + low + k for k in range(3)]
                    cards = [c for c in (self._at(r, suit) for r in window) if c is not None]
                    if len(cards) < 3:  # the window runs off the end of the suit
                        continue
                    pair = tuple(BIT[c] for c in cards if c != card)
                    if len(pair) == 2 and pair not in pairs:
                        pairs.append(pair)
            self.pairs[bit] = pairs

    def _at(self, position: int, suit: str) -> str | None:
        """The card at a run position in this suit, None off the end (no wrap allowed)."""
        if self.corner:
            return make_card((position - 1) % 13 + 1, suit)
        if 1 <= position <= 13:
            return make_card(position, suit)
        if position == 14 and self.ace_high:
            return make_card(1, suit)
        return None

    def neighbourhood(self, reach: int) -> dict[int, int]:
        table = self.neighbours.get(reach)
        if table is None:
            table = {}
            for card, bit in BIT.items():
                rank, suit = CARD_RANK[card], CARD_SUIT[card]
                mask = self.rank_mask[rank - 1] & ~bit
                positions = [rank] + ([14] if rank == 1 and self.ace_high else [])
                for position in positions:
                    for delta in range(-reach, reach + 1):
                        other = self._at(position + delta, suit)
                        if other is not None and other != card:
                            mask |= BIT[other]
                table[bit] = mask
            self.neighbours[reach] = table
        return table

    # -- candidate melds ("cores": the natural cards of a meld, jokers counted apart)

    def cores(self, hand: int, jokers: int) -> list[tuple[int, int, int]]:
        """Every (natural mask, jokers needed, room for more jokers) meld within `hand`.

        Runs come per suit and groups per rank, each memoised on the cards held there:
        a bot asks about thousands of hands that differ in one card."""
        found: list[tuple[int, int, int]] = []
        cache = self.core_cache
        small = jokers == 0
        for suit_mask in SUIT_MASKS:
            held = hand & suit_mask
            if held & (held - 1) and not (small and held.bit_count() < 3):
                key = (held, jokers)
                runs = cache.get(key)
                if runs is None:
                    shift = (suit_mask & -suit_mask).bit_length() - 1
                    runs = [
                        (mask << shift, need, room)
                        for mask, need, room in self._runs(held >> shift, jokers)
                    ]
                    cache[key] = runs
                found += runs
        for rank_mask in self.rank_mask:
            held = hand & rank_mask
            if held & (held - 1) and not (small and held.bit_count() < 3):
                key = (held, jokers)
                groups = cache.get(key)
                if groups is None:
                    groups = cache[key] = self._groups(held, jokers)
                found += groups
        return found

    def _groups(self, held: int, jokers: int) -> list[tuple[int, int, int]]:
        cards = list(bits(held))
        found = []
        for size in range(2, len(cards) + 1):
            need = max(0, 3 - size)
            if need > jokers:
                continue
            for chosen in combinations(cards, size):
                found.append((sum(chosen), need, 4 - size - need))
        return found

    def _runs(self, held: int, jokers: int) -> list[tuple[int, int, int]]:
        """Runs of one suit (13-bit rank pattern), with up to `jokers` jokers filling in."""
        ranks = [r for r in range(1, 14) if held >> (r - 1) & 1]
        if self.corner:
            positions = ranks + [r + 13 for r in ranks]
            starts = range(len(ranks))
        else:
            positions = ranks + ([14] if self.ace_high and ranks[0] == 1 else [])
            starts = range(len(positions))
        best: dict[int, int] = {}
        for i in starts:
            limit = i + len(ranks) if self.corner else len(positions)
            for j in range(i + 1, limit):
                span = positions[j] - positions[i] + 1
                if span > 13:
                    break
                inner = positions[i + 1 : j]
                base_need = max(3, span) - (len(inner) + 2)
                for dropped in range(0, len(inner) + 1):
                    need = base_need + dropped
                    if need > jokers:
                        break
                    for removed in combinations(inner, dropped):
                        kept = [positions[i], positions[j], *(p for p in inner if p not in removed)]
                        mask = 0
                        for p in kept:
                            mask |= 1 << ((p - 1) % 13)
                        if best.get(mask, 99) > need:
                            best[mask] = need
        return [(mask, need, 13 - mask.bit_count() - need) for mask, need in best.items()]

    # -- the partition search ---------------------------------------------------

    def solve(
        self,
        hand: int,
        jokers: int,
        free: int = 0,
        free_joker: bool = False,
        discard: bool = False,
        keep: int = 0,
        need_discard: bool = False,
    ) -> tuple[float, tuple[tuple[int, int], ...]]:
        """Minimum deadwood of a hand and the melds that achieve it.

        `free` cards cost nothing when left out of a meld (they can be laid off on the
        table), `free_joker` likewise for jokers. With `discard`, one card (not `keep`,
        the card taken from the discard pile) may be thrown for nothing: that is the
        hand after this turn's discard, or whether a hand can go out. `need_discard`
        (must-discard-to-go-out) penalises a partition that leaves nothing to throw.
        Among equal deadwood it prefers fewer melds. Returns (cost, ((mask, jokers), …)).
        """
        free &= hand
        keep &= hand
        key = (hand, jokers, free, free_joker, discard, keep, need_discard)
        cached = self.solve_cache.get(key)
        if cached is not None:
            return cached
        cores = self.cores(hand, jokers)
        if not cores and not jokers:
            result = self._loose_only(hand, free, discard, keep, need_discard)
            self._remember(key, result)
            return result
        covered = 0
        by_card: dict[int, list[tuple[int, int, int]]] = {}
        for core in cores:
            mask = core[0]
            covered |= mask
            # The search always places the lowest card left, so a meld can only start
            # there: index each meld by its lowest card alone.
            by_card.setdefault(mask & -mask, []).append(core)
        value = self.value
        joker_points = self.joker_points
        base = 0
        top = 0  # the most valuable card outside every meld that may be thrown
        throwable = False
        for bit in bits(hand & ~covered):
            points = 0 if bit & free else value[bit]
            base += points
            if bit != keep:
                throwable = True
                top = max(top, points)
        memo: dict[tuple[int, int, int, bool], tuple[float, tuple[tuple[int, int], ...]]] = {}

        def leaf(left_jokers: int, room: int, may_throw: bool) -> float:
            loose = 0 if free_joker else max(0, left_jokers - room)
            cost = float(loose * joker_points)
            if may_throw:
                if loose or top:
                    cost -= max(joker_points if loose else 0, top)
                elif not (throwable or left_jokers) and need_discard:
                    cost += _NO_DISCARD_PENALTY
            return cost

        def search(rest: int, left: int, room: int, may_throw: bool):
            state = (rest, left, room, may_throw)
            hit = memo.get(state)
            if hit is not None:
                return hit
            if not rest:
                result = (leaf(left, room, may_throw), ())
                memo[state] = result
                return result
            bit = rest & -rest
            after = rest ^ bit
            cost, melds = search(after, left, room, may_throw)
            best_cost = cost + (0 if bit & free else value[bit])
            best_melds = melds
            if may_throw and bit != keep:
                cost, melds = search(after, left, room, False)
                if cost < best_cost:
                    best_cost, best_melds = cost, melds
            for mask, need, extra in by_card.get(bit, ()):
                if mask & rest == mask and need <= left:
                    cost, melds = search(
                        rest & ~mask, left - need, min(room + extra, jokers), may_throw
                    )
                    cost += _EPS
                    if cost < best_cost:
                        best_cost, best_melds = cost, ((mask, need), *melds)
            result = (best_cost, best_melds)
            memo[state] = result
            return result

        cost, melds = search(covered, jokers, 0, discard)
        result = (cost + base, melds)
        self._remember(key, result)
        return result

    def _remember(self, key: tuple[Any, ...], result: tuple[float, Any]) -> None:
        if len(self.solve_cache) > 200_000:
            self.solve_cache.clear()
        self.solve_cache[key] = result

    def _loose_only(
        self, hand: int, free: int, discard: bool, keep: int, need_discard: bool
    ) -> tuple[float, tuple[tuple[int, int], ...]]:
        """`solve` for a hand without jokers that holds no meld: every card is loose."""
        value = self.value
        base = top = 0
        throwable = False
        for bit in bits(hand):
            points = 0 if bit & free else value[bit]
            base += points
            if bit != keep:
                throwable = True
                if points > top:
                    top = points
        if discard:
            if top:
                base -= top
            elif not throwable and need_discard:
                return (base + _NO_DISCARD_PENALTY, ())
        return (float(base), ())


_RULES: dict[tuple[Any, ...], Rules] = {}


def rules_for(options: dict[str, Any]) -> Rules:
    """The shared `Rules` (and so the shared memo tables) for an option set: only the
    aces, round-the-corner runs and joker points change what the search computes."""
    key = (options["aces"], options["round_the_corner"], options["joker_points"])
    rules = _RULES.get(key)
    if rules is None:
        rules = _RULES[key] = Rules(from_dict(options))
    return rules


class Partition(tuple):
    """(deadwood, melds): the result of `best_partition`, melds as lists of cards."""

    @property
    def deadwood(self) -> int:
        return self[0]

    @property
    def melds(self) -> list[list[str]]:
        return self[1]


def best_partition(
    hand: Iterable[str], options: dict[str, Any] | Options | None = None
) -> Partition:
    """The minimum deadwood of a hand (card points outside any meld) and one best set of
    melds (each with the jokers it needs; spare jokers count as deadwood unless a meld
    has room for them). Exposed so tests can check the strong bot's core on examples."""
    if options is None:
        options = Options()
    if isinstance(options, Options):
        options = options.as_dict()
    rules = rules_for(options)
    mask, jokers = mask_of(hand)
    cost, melds = rules.solve(mask, jokers)
    listed = [cards_of(meld) + [JOKER] * need for meld, need in melds]
    used = sum(need for _, need in melds)
    spare = jokers - used
    # spare jokers that fit: put them in the melds with room, as the search assumed
    for listed_meld, (meld, _need) in zip(listed, melds, strict=True):
        limit = 4 if _is_group(meld) else 13
        while spare and len(listed_meld) < limit:
            listed_meld.append(JOKER)
            spare -= 1
    return Partition((round(cost - _EPS * len(melds)), listed))


def _is_group(mask: int) -> bool:
    ranks = {CARD_RANK[CARD_OF_BIT[bit]] for bit in bits(mask)}
    return len(ranks) == 1


def points_of(rules: Rules, cards: Iterable[str]) -> int:
    """The points of some cards under these rules: what they cost left in a hand."""
    return sum(rules.joker_points if c == JOKER else rules.value[BIT[c]] for c in cards)


def card_order(rules: Rules, card: str | None) -> tuple[int, int]:
    """How discards rank, highest first: by points, then by rank (a joker above a king);
    a move without a card lowest."""
    if card is None:
        return (-1, 0)
    if card == JOKER:
        return (rules.joker_points, 14)
    return (rules.value[BIT[card]], CARD_RANK[card])
