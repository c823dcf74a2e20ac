"""How the strong bot values a hand: as a race to go out.

A hand after a discard is worth the deadwood at risk, less the improvement the live
cards promise over the next draws (each unseen card's exact gain: it completes a meld,
fits the table, or replaces a higher loose card), against the chance that the next draw
goes out (which wins the opponents' points) and the chance that an opponent goes out
first (from its hand size). A card thrown is also worth something to the next player
(`danger`): it fits the table, or completes a meld with cards it is known or likely to
hold. With two players and a turned-over stock the stock's order is public (it was the
pile), so the next draws and the opponent's hand are known exactly.
"""

from __future__ import annotations

from typing import Any

from engine.cards import JOKER
from engine.rummy.bots.encoding import ALL_NATURALS, BIT, bits, mask_of
from engine.rummy.bots.layoffs import layoff_chains
from engine.rummy.bots.meld_search import points_of
from engine.rummy.bots.memory import SeatMemory
from engine.rummy.bots.weights import (
    DECAY_END,
    DECAY_FROM,
    DECAY_MID,
    HORIZON,
    LAYOFF_DANGER,
    MELD_DANGER,
    THREAT,
    THREAT_SCALE,
)
from engine.rummy.melds import layoff_cards

_UNSET = object()  # "the default next draw" for `Evaluator.assess`


class Evaluator:
    """The strong bot's reading of one decision: what the seat knows (the unseen cards,
    the prize for going out, the opponents' threat, the horizon), read once from the
    view and the history, and the value of any hand it might keep, memoised. The
    decisions that use it are in `engine.rummy.bots.strong`."""

    def __init__(self, view: dict[str, Any], history: list[dict[str, Any]]) -> None:
        self.t = t = SeatMemory(view, history)
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
        unseen_points = sum(rules.value[b] for b in bits(self.unseen))
        unseen_points += self.unseen_jokers * rules.joker_points
        mean = unseen_points / self.unknown if self.unknown else 0.0
        prize = 0.0
        for seat in opponents:
            known = t.known.get(seat, [])
            prize += points_of(rules, known) + mean * max(0, t.hand_counts[seat] - len(known))
        # Two players and a turned-over stock: every card is placed. The stock's order
        # is known, so the next draws are known, and the unseen cards not in the stock
        # are the opponent's hand.
        self.stock = t.stock_known if t.stock_known is not None and t.players == 2 else None
        stock_mask, stock_jokers = mask_of(self.stock or [])
        self.hidden = self.unseen & ~stock_mask
        if self.stock is not None:
            hidden_jokers = max(0, self.unseen_jokers - stock_jokers)
            known = t.known.get(opponents[0], [])
            prize = points_of(rules, known) + hidden_jokers * rules.joker_points
            prize += sum(rules.value[b] for b in bits(self.hidden))
        self.prize = prize
        self.future = self.stock_card(1)
        # The chance that an opponent goes out on its turn, from its hand size.
        self.threat = THREAT_SCALE * sum(THREAT[min(t.hand_counts[s], 6)] for s in opponents)
        self.next_melds = 1 if t.options["melds_per_turn"] == "one" and not t.all_at_once else 99
        self.values: dict[tuple[int, int, Any], tuple[float, float, float, float]] = {}
        self.free_cache: dict[int, int] = {}
        self.chains, self.joker_fits = layoff_chains(t.melds, rules) if t.melds else ((), False)
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
        highest = max((value[b] for b in bits(hand & ~covered & ~free)), default=0)
        ready = cost < 0.5 and len(melds) <= self.next_melds  # any card then goes out
        if future is not None:  # the next draw is known
            gain, chance = self._known_draw(hand, jokers, free, free_joker, cost, future)
        elif self.unknown:
            gain, chance = self._unseen_draws(hand, jokers, free, free_joker, cost, highest, ready)
        else:
            gain, chance = 0.0, (1.0 if ready else 0.0)
        result = (self.race(cost - self.horizon * gain, chance), cost, gain, chance)
        self.values[key] = result
        return result

    def _known_draw(
        self, hand: int, jokers: int, free: int, free_joker: bool, cost: float, future: str
    ) -> tuple[float, float]:
        """`assess` when the next draw is known: (its gain, whether it goes out)."""
        rules = self.rules
        if future == JOKER:
            after, after_melds = rules.solve(hand, jokers + 1, free, free_joker, True)
        else:
            with_card = hand | BIT[future]
            after, after_melds = rules.solve(
                with_card, jokers, self.free(with_card, jokers)[0], free_joker, True
            )
        gain = max(0.0, cost - after)
        chance = 1.0 if after < 0.5 and len(after_melds) <= self.next_melds else 0.0
        return gain, chance

    def _unseen_draws(
        self,
        hand: int,
        jokers: int,
        free: int,
        free_joker: bool,
        cost: float,
        highest: int,
        ready: bool,
    ) -> tuple[float, float]:
        """`assess` over every card this seat has not seen, each as likely as the next:
        (the mean gain of one draw, the chance that it goes out). Only a card related to
        the hand or fitting the table is solved for; any other can at best replace the
        highest loose card, and goes out only when the hand is ready."""
        rules = self.rules
        value = rules.value
        gain = 0.0
        outs = 0
        pairs = rules.pairs
        near = rules.neighbourhood(min(2 + jokers, 5)) if jokers else None
        table_fits = self.table_fits
        solve = rules.solve
        next_melds = self.next_melds
        for bit in bits(self.unseen):
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
        return gain, chance

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
        held_mask, _ = mask_of(known)
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
