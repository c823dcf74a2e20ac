"""Rummy bots: three levels of play over one seat's view, never the engine state.

Every bot is a pure function `choose(view, history, rng) -> command` (without the
seat). `view` is `game.view(state, seat)`; `history` is the current hand's events as
that seat may see them (`game.redact`). Nothing else is read, so a bot cannot peek at
another hand or the stock order, and the same bot runs in a worker, in `simulate` and
in tests. Randomness comes only from the `rng` passed in, so a game replays exactly.

* `random` picks a uniformly random legal move: the floor any bot must beat.
* `greedy` plays the obvious moves: takes the discard when it completes a meld, melds
  and lays off whatever it can, discards its highest card that is in no meld.
* `strong` plans. Its core is an exact minimum-deadwood partition of a hand (jokers
  included): candidate melds are enumerated per suit and per rank (memoised on the
  cards held there), then a memoised search that always places the lowest card left
  picks disjoint ones, preferring fewer melds among equals (fewer turns to lay them).
  A hand after a discard is valued as a race: the deadwood at risk, less the
  improvement the live cards promise over the next draws (each unseen card's exact
  gain: it completes a meld, fits the table, or replaces a higher loose card), against
  the chance that the next draw goes out (which wins the opponents' points) and the
  chance that an opponent goes out first (from its hand size). Draws weigh the
  discard pile's card against the stock's expectation; discards are chosen by that
  value plus what the card is worth to the next player (card tracking: the cards it
  took from the pile, cards seen in the pile and melds are dead, cards that fit the
  table). With two players and a turned-over stock the stock's order is public (it was
  the pile), so the next draws and the opponent's hand are known exactly. It lays off
  and goes out as soon as the options allow (one meld per turn, must discard to go
  out, lay off only after melding, Wrotham's all-at-once deals through `go_down`,
  joker swaps when the joker is worth more), and holds its melds to go rummy when the
  options reward it and the opponents are far from out.

Cards are encoded as bits of an int (suit * 13 + rank - 1) so the partition search
runs on integer masks; jokers are a count beside the mask.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from itertools import combinations
from typing import Any

from engine.cards import CARD_RANK, CARD_SUIT, JOKER, SUITS, make_card
from engine.rummy.melds import lay_off, layoff_cards, meld_from_dict
from engine.rummy.options import Options, from_dict
from engine.rummy.scoring import card_points

__all__ = [
    "BOTS",
    "Bot",
    "Partition",
    "best_partition",
    "choose_greedy",
    "choose_random",
    "choose_strong",
]

Command = dict[str, Any]
Bot = Callable[[dict[str, Any], list[dict[str, Any]], random.Random], Command]

# -- card encoding -------------------------------------------------------------

_SUIT_INDEX = {suit: index for index, suit in enumerate(SUITS)}
BIT: dict[str, int] = {
    card: 1 << (_SUIT_INDEX[CARD_SUIT[card]] * 13 + CARD_RANK[card] - 1) for card in CARD_RANK
}
CARD_OF_BIT: dict[int, str] = {bit: card for card, bit in BIT.items()}
ALL_NATURALS = (1 << 52) - 1
_SUIT_MASK = 0x1FFF
_SUIT_MASKS = tuple(_SUIT_MASK << (13 * suit) for suit in range(4))


def _bits(mask: int) -> Iterable[int]:
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


def _mask_of(cards: Iterable[str]) -> tuple[int, int]:
    """(natural mask, joker count) of some cards (a single pack: no natural twice)."""
    mask = jokers = 0
    for card in cards:
        if card == JOKER:
            jokers += 1
        else:
            mask |= BIT[card]
    return mask, jokers


def _cards_of(mask: int) -> list[str]:
    return [CARD_OF_BIT[bit] for bit in _bits(mask)]


# -- rules derived from the options, cached per option set ----------------------

_EPS = 1e-3  # per meld in a partition: among equal deadwood, fewer melds (fewer turns)
_NO_DISCARD_PENALTY = 1000.0  # a "going out" partition that keeps nothing to discard


class _Rules:
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
                    cards = [self._at(r, suit) for r in window]
                    if None in cards:
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
        for suit_mask in _SUIT_MASKS:
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
        cards = list(_bits(held))
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
        for bit in _bits(hand & ~covered):
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
        for bit in _bits(hand):
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


_RULES: dict[tuple[Any, ...], _Rules] = {}


def _rules(options: dict[str, Any]) -> _Rules:
    key = (options["aces"], options["round_the_corner"], options["joker_points"])
    rules = _RULES.get(key)
    if rules is None:
        rules = _RULES[key] = _Rules(from_dict(options))
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
    rules = _rules(options)
    mask, jokers = _mask_of(hand)
    cost, melds = rules.solve(mask, jokers)
    listed = [_cards_of(meld) + [JOKER] * need for meld, need in melds]
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
    ranks = {CARD_RANK[CARD_OF_BIT[bit]] for bit in _bits(mask)}
    return len(ranks) == 1


# -- reading the view and the history --------------------------------------------


class _Table:
    """What a seat knows now: its hand, the public table, and what it remembers."""

    def __init__(self, view: dict[str, Any], history: list[dict[str, Any]]) -> None:
        self.view = view
        self.options: dict[str, Any] = view["options"]
        self.rules = _rules(self.options)
        you = view["you"]
        self.seat: int = you["seat"]
        self.cards: list[str] = list(you["hand"])
        self.hand, self.jokers = _mask_of(self.cards)
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
            seat = event.get("seat")
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
        consistent = pile == self.pile and stock is not None
        self.stock_known = stock if consistent and len(stock) == self.stock_count else None

    # -- derived knowledge -----------------------------------------------------

    def may_lay_off(self) -> bool:
        return not self.options["lay_off_after_meld"] or self.has_melded

    def seen(self) -> tuple[int, int]:
        """Cards whose place this seat knows: its hand, the pile, the melds, and the
        cards opponents took from the pile (natural mask, jokers)."""
        mask, jokers = self.hand, self.jokers
        for cards in (self.pile, *(m.cards for m in self.melds)):
            m, j = _mask_of(cards)
            mask |= m
            jokers += j
        for seat, cards in self.known.items():
            if seat != self.seat:
                m, j = _mask_of(cards)
                mask |= m
                jokers += j
        return mask, jokers


_UNSET = object()  # "the default next draw" for `_Strong.assess`
_CHAINS: dict[tuple[Any, ...], tuple[tuple[tuple[int, ...], ...], bool]] = {}


def _chains(melds: list[Any], rules: _Rules) -> tuple[tuple[tuple[int, ...], ...], bool]:
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
            if meld.kind == "run":
                high = current.cards[-1] == card
                while current is not None and len(chain) < 13:
                    following = None
                    for nxt in layoff_cards(current, options):
                        if nxt == JOKER or BIT[nxt] in chain:
                            continue
                        extended = lay_off(current, nxt, options)
                        if (extended.cards[-1] == nxt) == high:
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


def _forget(cards: list[str], card: str) -> None:
    if card in cards:
        cards.remove(card)


def _by_type(moves: list[Command]) -> dict[str, list[Command]]:
    grouped: dict[str, list[Command]] = {}
    for move in moves:
        grouped.setdefault(move["type"], []).append(move)
    return grouped


# -- random ------------------------------------------------------------------------


def choose_random(
    view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random
) -> Command:
    """A uniformly random legal move: the baseline the other bots are measured against."""
    return dict(rng.choice(view["you"]["legal_moves"]))


# -- greedy ------------------------------------------------------------------------


def choose_greedy(
    view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random
) -> Command:
    """The obvious player: it never plans ahead and never tracks cards, so it is the
    yardstick that shows what planning and memory are worth."""
    you = view["you"]
    moves = _by_type(you["legal_moves"])
    rules = _rules(view["options"])
    hand = list(you["hand"])
    if "draw" in moves:
        pile = view["discard_pile"]
        if len(moves["draw"]) > 1 and _completes_meld(rules, hand, pile[-1]):
            return {"type": "draw", "source": "discard"}
        return {"type": "draw", "source": "stock"}
    if "go_down" in moves:
        return dict(moves["go_down"][0])
    if "meld" in moves:
        return dict(max(moves["meld"], key=lambda m: (len(m["cards"]), _points(rules, m["cards"]))))
    if "lay_off" in moves:
        return dict(moves["lay_off"][0])
    mask, jokers = _mask_of(hand)
    in_meld = 0
    for core, _, _ in rules.cores(mask, jokers):
        if core.bit_count() >= 3 or jokers:
            in_meld |= core
    discards = moves.get("discard") or you["legal_moves"]
    loose = [m for m in discards if m.get("card") != JOKER and not BIT[m["card"]] & in_meld]
    pool = loose or discards
    return dict(max(pool, key=lambda m: _card_order(rules, m.get("card"))))


def _completes_meld(rules: _Rules, hand: list[str], card: str) -> bool:
    mask, jokers = _mask_of(hand)
    if card == JOKER:
        return False
    bit = BIT[card]
    return any(core & bit for core, _, _ in rules.cores(mask | bit, jokers))


def _points(rules: _Rules, cards: Iterable[str]) -> int:
    return sum(rules.joker_points if c == JOKER else rules.value[BIT[c]] for c in cards)


def _card_order(rules: _Rules, card: str | None) -> tuple[int, int]:
    if card is None:
        return (-1, 0)
    if card == JOKER:
        return (rules.joker_points, 14)
    return (rules.value[BIT[card]], CARD_RANK[card])


# -- strong ------------------------------------------------------------------------

# Weights, tuned with mirrored hands and tournaments against greedy (engine/tournament.py;
# the figures are in the closing note of issue 4). Module constants so a tuning run can
# set them; nothing else changes them.
HORIZON = 2.0  # how many future draws the live cards' promise is counted for
DECAY_FROM = 6  # once an opponent holds this many cards or fewer, shorten the horizon:
DECAY_MID = 0.5  # × HORIZON while it holds 3 or more
DECAY_END = 0.125  # × HORIZON when it holds 1 or 2 (no decay: edge +1.2 → −0.6 a hand)
TAKE_MARGIN = 1.0  # taking the discard shows a card to the table: demand a little more
MELD_DANGER = 10.0  # points a discard that completes an opponent's meld is worth to them
LAYOFF_DANGER = 8.0  # … and one they can lay off on the table
RUMMY_HOLD_POINTS = 40  # hold melds for rummy while the hand at risk stays below this
MAX_DISCARDS = 7  # discards evaluated in full (the rest lose on deadwood alone)
# The chance an opponent holding n cards goes out on its next turn (n = 0 … 6+), a rough
# model (greedy measured 0.23, 0.09, 0.09, 0.02 for 1-4 cards), scaled: counting the
# opponents as twice as quick played better (it weighs the points at risk).
_THREAT = (0.5, 0.3, 0.15, 0.08, 0.05, 0.03, 0.015)
THREAT_SCALE = 2.0


class _Strong:
    """One decision of the strong bot: the view read once, evaluations memoised."""

    def __init__(self, view: dict[str, Any], history: list[dict[str, Any]]) -> None:
        self.t = t = _Table(view, history)
        self.rules = rules = t.rules
        self.may_lay_off = t.may_lay_off() and not t.all_at_once
        seen_mask, seen_jokers = t.seen()
        self.unseen = ALL_NATURALS & ~seen_mask
        self.unseen_jokers = max(0, int(t.options.get("jokers", 0)) - seen_jokers)
        self.unknown = self.unseen.bit_count() + self.unseen_jokers
        opponents = [s for s in range(t.players) if s != t.seat]
        self.next_seat = (t.seat + 1) % t.players
        shortest = min(t.hand_counts[s] for s in opponents)
        # The closer an opponent is to going out, the less tomorrow's draws are worth.
        late = DECAY_MID if shortest > 2 else DECAY_END
        self.horizon = HORIZON if shortest > DECAY_FROM else HORIZON * late
        # What going out would win: the opponents' known cards, the rest at the mean
        # value of the cards this seat has not seen.
        unseen_points = sum(rules.value[b] for b in _bits(self.unseen))
        unseen_points += self.unseen_jokers * rules.joker_points
        mean = unseen_points / self.unknown if self.unknown else 0.0
        prize = 0.0
        for seat in opponents:
            known = t.known.get(seat, [])
            prize += _points(rules, known) + mean * max(0, t.hand_counts[seat] - len(known))
        # Two players and a turned-over stock: every card is placed. The stock's order
        # is known, so the next draws are known, and the unseen cards not in the stock
        # are the opponent's hand.
        self.stock = t.stock_known if t.stock_known is not None and t.players == 2 else None
        stock_mask, stock_jokers = _mask_of(self.stock or [])
        self.hidden = self.unseen & ~stock_mask
        if self.stock is not None:
            hidden_jokers = max(0, self.unseen_jokers - stock_jokers)
            known = t.known.get(opponents[0], [])
            prize = _points(rules, known) + hidden_jokers * rules.joker_points
            prize += sum(rules.value[b] for b in _bits(self.hidden))
        self.prize = prize
        self.future = self.stock_card(1)
        # The chance that an opponent goes out on its turn, from its hand size.
        self.threat = THREAT_SCALE * sum(_THREAT[min(t.hand_counts[s], 6)] for s in opponents)
        self.next_melds = 1 if t.options["melds_per_turn"] == "one" and not t.all_at_once else 99
        self.values: dict[tuple[int, int, Any], tuple[float, float, float, float]] = {}
        self.free_cache: dict[int, int] = {}
        self.chains, self.joker_fits = _chains(t.melds, rules) if t.melds else ((), False)
        self.table_fits = 0
        if self.may_lay_off:
            for chain in self.chains:
                self.table_fits |= chain[0]

    # -- evaluation --------------------------------------------------------------

    def free(self, hand: int, jokers: int) -> tuple[int, bool]:
        """Cards of `hand` that can be laid off on the table (a chain's held prefix: 8♥
        then 9♥ on 5-6-7♥), and whether a joker can."""
        if not self.may_lay_off:
            return 0, False
        free = self.free_cache.get(hand)
        if free is None:
            free = 0
            for chain in self.chains:
                for bit in chain:
                    if not hand & bit:
                        break
                    free |= bit
            self.free_cache[hand] = free
        return free, self.joker_fits and jokers > 0

    def stock_card(self, index: int) -> str | None:
        """The card `index` places down the known stock, if the stock is known that far.
        After this seat's discard the opponent draws the top card (index 0), so this
        seat's next draw is index 1."""
        if self.stock is None or len(self.stock) <= index:
            return None
        return self.stock[index]

    def assess(
        self, hand: int, jokers: int, future: Any = _UNSET
    ) -> tuple[float, float, float, float]:
        """(value, deadwood, mean one-draw gain, chance the next draw goes out).

        value = `race`(deadwood − horizon × gain, P(out)): the points at risk now, less
        what the live cards promise, against the chance of going out. A live card gains
        when it completes a meld (the exact partition of the hand with it, one card
        thrown), fits the table, or replaces a higher loose card; dead cards (seen in
        the pile, the melds, a known hand) count for nothing. With the stock known, the
        one card this seat will draw next stands for them all. Lower is better.
        """
        if future is _UNSET:
            future = self.future
        key = (hand, jokers, future)
        cached = self.values.get(key)
        if cached is not None:
            return cached
        rules = self.rules
        value = rules.value
        free, free_joker = self.free(hand, jokers)
        cost, melds = rules.solve(hand, jokers, free, free_joker)
        covered = 0
        for mask, _ in melds:
            covered |= mask
        highest = max((value[b] for b in _bits(hand & ~covered & ~free)), default=0)
        ready = cost < 0.5 and len(melds) <= self.next_melds  # any card then goes out
        gain = 0.0
        outs = 0
        if future is not None:  # the next draw is known
            if future == JOKER:
                after, after_melds = rules.solve(hand, jokers + 1, free, free_joker, True)
            else:
                with_card = hand | BIT[future]
                after, after_melds = rules.solve(
                    with_card, jokers, self.free(with_card, jokers)[0], free_joker, True
                )
            gain = max(0.0, cost - after)
            chance = 1.0 if after < 0.5 and len(after_melds) <= self.next_melds else 0.0
        elif self.unknown:
            pairs = rules.pairs
            near = rules.neighbourhood(min(2 + jokers, 5)) if jokers else None
            table_fits = self.table_fits
            solve = rules.solve
            next_melds = self.next_melds
            for bit in _bits(self.unseen):
                if near is not None:
                    related = hand & near[bit]
                else:
                    related = False
                    for a, b in pairs[bit]:
                        if hand & a and hand & b:
                            related = True
                            break
                if related or bit & table_fits:
                    with_card = hand | bit
                    after, after_melds = solve(
                        with_card, jokers, self.free(with_card, jokers)[0], free_joker, True
                    )
                    if after < cost:
                        gain += cost - after
                    if after < 0.5 and len(after_melds) <= next_melds:
                        outs += 1
                else:
                    if highest > value[bit]:
                        gain += highest - value[bit]
                    if ready:
                        outs += 1
            if self.unseen_jokers:
                after, after_melds = solve(hand, jokers + 1, free, free_joker, True)
                gain += max(0.0, cost - after) * self.unseen_jokers
                if after < 0.5 and len(after_melds) <= next_melds:
                    outs += self.unseen_jokers
            gain /= self.unknown
            chance = outs / self.unknown
        else:
            chance = 1.0 if ready else 0.0
        result = (self.race(cost - self.horizon * gain, chance), cost, gain, chance)
        self.values[key] = result
        return result

    def related(self, hand: int, jokers: int, bit: int) -> bool:
        """Whether a card can make a meld (or half of one) with the hand or fits the table."""
        if bit & self.table_fits:
            return True
        return bool(hand & self.rules.neighbourhood(min(2 + jokers, 5))[bit])

    def race(self, deadwood: float, chance: float) -> float:
        """The hand as a race: this seat goes out on a turn with probability `chance`,
        the opponents with `self.threat`; the winner of the race takes the loser's
        points. Returns the expected loss (lower is better)."""
        total = chance + self.threat
        win = chance / total if total else 0.0
        return (1 - win) * deadwood - win * self.prize

    def value(self, hand: int, jokers: int) -> float:
        return self.assess(hand, jokers)[0]

    def danger(self, card: str) -> float:
        """What throwing `card` is worth to the next player: it fits the table (they lay
        it off), or completes a meld with cards they are known to hold or may hold."""
        if card == JOKER:
            return MELD_DANGER
        t = self.t
        bit = BIT[card]
        risk = 0.0
        if bit & self.table_fits or (
            not self.may_lay_off
            and t.melds
            and not t.all_at_once
            and any(card in layoff_cards(m, self.rules.options) for m in t.melds)
        ):
            risk += LAYOFF_DANGER
        known = t.known.get(self.next_seat, [])
        held_mask, _ = _mask_of(known)
        if self.stock is not None:  # the opponent's hand is known exactly
            held_mask |= self.hidden
            p_unknown = 0.0
        else:
            count = t.hand_counts[self.next_seat] - len(known)
            p_unknown = max(0.0, count / self.unknown) if self.unknown else 0.0
        chance = 0.0
        for a, b in self.rules.pairs[bit]:
            pa = 1.0 if a & held_mask else p_unknown if a & self.unseen else 0.0
            pb = 1.0 if b & held_mask else p_unknown if b & self.unseen else 0.0
            chance += pa * pb
        return risk + MELD_DANGER * min(1.0, chance)

    # -- decisions ------------------------------------------------------------------

    def go_out_plan(self, hand: int, jokers: int, keep: int) -> tuple[float, int] | None:
        """Whether this hand can go out this turn: (cost, melds it lays) or None."""
        t = self.t
        free, free_joker = self.free(hand, jokers)
        cost, melds = self.rules.solve(
            hand,
            jokers,
            free,
            free_joker,
            True,
            keep,
            bool(t.options["must_discard_to_go_out"]),
        )
        if cost >= 0.5:
            return None
        return cost, len(melds)

    def melds_allowed(self, moves: dict[str, list[Command]], drawing: bool) -> float:
        t = self.t
        if t.all_at_once or t.options["melds_per_turn"] == "any":
            return float("inf")
        return 1 if drawing or "meld" in moves else 0

    def draw(self, moves: dict[str, list[Command]]) -> Command:
        """Take the discard when it goes out, or when the best hand it leaves beats the
        expected hand after a stock draw (deadwood now, improvements, going-out odds)."""
        t = self.t
        if len(moves["draw"]) < 2:
            return {"type": "draw", "source": "stock"}
        top = t.pile[-1]
        take_hand, take_jokers = _mask_of([*t.cards, top])
        keep = 0 if top == JOKER else BIT[top]
        plan = self.go_out_plan(take_hand, take_jokers, keep)
        if plan is not None and plan[1] <= self.melds_allowed(moves, True):
            return {"type": "draw", "source": "discard"}
        if top != JOKER and not self.related(t.hand, t.jokers, BIT[top]):
            # An unrelated card can only stand in for a higher loose card.
            free, free_joker = self.free(t.hand, t.jokers)
            cost, melds = self.rules.solve(t.hand, t.jokers, free, free_joker)
            covered = 0
            for mask, _ in melds:
                covered |= mask
            loose = t.hand & ~covered & ~free
            highest = max((self.rules.value[b] for b in _bits(loose)), default=0)
            if self.rules.value[BIT[top]] + 3 >= highest:
                return {"type": "draw", "source": "stock"}
        _, cost, gain, chance = self.assess(t.hand, t.jokers)
        drawn = self.stock_card(0)
        if drawn is not None:  # the stock's top card is known: weigh it exactly
            stock = self.after_draw(drawn, self.stock_card(2), moves)
        else:  # goes out now, or one draw's improvement and the race goes on
            later = self.race(cost - (1 + self.horizon) * gain, chance)
            stock = -chance * self.prize + (1 - chance) * later
        candidates = []
        for card in set(t.cards):
            hand, jokers = _without(take_hand, take_jokers, card)
            free, free_joker = self.free(hand, jokers)
            candidates.append((self.rules.solve(hand, jokers, free, free_joker)[0], card))
        candidates.sort()
        best = float("inf")
        for _, card in candidates[:MAX_DISCARDS]:
            hand, jokers = _without(take_hand, take_jokers, card)
            best = min(best, self.value(hand, jokers) + self.danger(card))
        if best + TAKE_MARGIN < stock:
            return {"type": "draw", "source": "discard"}
        return {"type": "draw", "source": "stock"}

    def after_draw(self, card: str, future: str | None, moves: dict[str, list[Command]]) -> float:
        """The value of drawing a known card: going out, or the best discard after it."""
        t = self.t
        hand, jokers = _mask_of([*t.cards, card])
        plan = self.go_out_plan(hand, jokers, 0)
        if plan is not None and plan[1] <= self.melds_allowed(moves, True):
            return -self.prize
        best = float("inf")
        for held in set(t.cards) | {card}:
            rest, rest_jokers = _without(hand, jokers, held)
            best = min(best, self.assess(rest, rest_jokers, future)[0] + self.danger(held))
        return best

    def play(self, moves: dict[str, list[Command]]) -> Command:
        t = self.t
        if "go_down" in moves:
            return dict(moves["go_down"][0])
        swap = self.joker_swap(moves.get("swap_joker", []))
        if swap is not None:
            return swap
        keep = 0
        if t.drawn_from_pile is not None and t.drawn_from_pile != JOKER:
            keep = BIT[t.drawn_from_pile]
        plan = self.go_out_plan(t.hand, t.jokers, keep)
        going_out = plan is not None and plan[1] <= self.melds_allowed(moves, False)
        free, free_joker = self.free(t.hand, t.jokers)
        cost, melds = self.rules.solve(
            t.hand,
            t.jokers,
            free,
            free_joker,
            True,
            keep,
            going_out and bool(t.options["must_discard_to_go_out"]),
        )
        if going_out or not self.hold_for_rummy(melds):
            command = self.lay_down(moves, melds, going_out)
            if command is not None:
                return command
            command = self.shed(moves, melds, free, going_out)
            if command is not None:
                return command
        return self.discard(moves)

    def hold_for_rummy(self, melds: tuple[tuple[int, int], ...]) -> bool:
        """Going rummy pays (double or bonus) only when the whole hand goes in one turn,
        so while the opponents are far from out and little is at risk, keep the melds."""
        t = self.t
        if t.options["going_rummy"] == "none" or t.opened or t.has_melded:
            return False
        if t.options["melds_per_turn"] != "any" and len(melds) > 1:
            return False
        shortest = min(t.hand_counts[s] for s in range(t.players) if s != t.seat)
        at_risk = _points(self.rules, t.cards)
        return shortest >= 5 and at_risk <= RUMMY_HOLD_POINTS

    def lay_down(
        self, moves: dict[str, list[Command]], melds: tuple[tuple[int, int], ...], going_out: bool
    ) -> Command | None:
        """Meld one of the planned melds: the most valuable first (it leaves the risk)."""
        if "meld" not in moves or not melds:
            return None
        t = self.t
        spare = t.jokers - sum(need for _, need in melds)
        by_cards: dict[tuple[int, int], Command] = {}
        for move in moves["meld"]:
            by_cards[_mask_of(move["cards"])] = move
        ordered = sorted(melds, key=lambda m: -_points(self.rules, _cards_of(m[0])))
        for mask, need in ordered:
            extras = range(need + (spare if going_out and len(melds) == 1 else 0), need - 1, -1)
            for jokers in extras:
                move = by_cards.get((mask, jokers))
                if move is not None:
                    return dict(move)
        return None

    def shed(
        self,
        moves: dict[str, list[Command]],
        melds: tuple[tuple[int, int], ...],
        free: int,
        going_out: bool,
    ) -> Command | None:
        """Lay off the planned loose cards that fit the table (jokers only to go out)."""
        if "lay_off" not in moves:
            return None
        t = self.t
        covered = 0
        for mask, _ in melds:
            covered |= mask
        spare_jokers = t.jokers - sum(need for _, need in melds)
        last = bool(t.options["must_discard_to_go_out"]) and len(t.cards) == 1
        for move in moves["lay_off"]:
            card = move["card"]
            if card == JOKER:
                if going_out and spare_jokers > 0 and not last:
                    return dict(move)
                continue
            bit = BIT[card]
            if bit & free and not bit & covered and not last:
                return dict(move)
        return None

    def discard(self, moves: dict[str, list[Command]]) -> Command:
        """Throw the card that leaves the best hand, less what it gives the next player."""
        t = self.t
        discards = moves.get("discard", [])
        if not discards:  # nothing to throw (cannot happen when the turn can end)
            return dict(t.moves[0])
        rules = self.rules
        quick = []
        for move in discards:
            hand, jokers = _without(t.hand, t.jokers, move["card"])
            free, free_joker = self.free(hand, jokers)
            quick.append((rules.solve(hand, jokers, free, free_joker)[0], move["card"], move))
        quick.sort(key=lambda item: item[:2])
        scored = []
        for _, card, move in quick[:MAX_DISCARDS]:
            hand, jokers = _without(t.hand, t.jokers, card)
            score = self.value(hand, jokers) + self.danger(card)
            scored.append((score, -_card_order(rules, card)[0], card, move))
        scored.sort(key=lambda item: item[:3])
        return dict(scored[0][3])

    def joker_swap(self, swaps: list[Command]) -> Command | None:
        """Take a joker from the table when the hand is better with it than with the card."""
        if not swaps:
            return None
        t = self.t
        now = self.value(t.hand, t.jokers)
        best = None
        for move in swaps:
            hand, jokers = _without(t.hand, t.jokers, move["card"])
            after = self.value(hand, jokers + 1)
            if after < now - 0.5:
                now, best = after, move
        return None if best is None else dict(best)


def _without(hand: int, jokers: int, card: str) -> tuple[int, int]:
    if card == JOKER:
        return hand, jokers - 1
    return hand & ~BIT[card], jokers


def choose_strong(
    view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random
) -> Command:
    """The planner: exact partitions, live-card potential, card tracking (see module doc)."""
    moves = _by_type(view["you"]["legal_moves"])
    bot = _Strong(view, history)
    if "draw" in moves:
        return bot.draw(moves)
    return bot.play(moves)


BOTS: dict[str, Bot] = {
    "random": choose_random,
    "greedy": choose_greedy,
    "strong": choose_strong,
}
