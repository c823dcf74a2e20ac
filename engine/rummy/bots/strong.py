"""The strong bot: it plans, over an exact partition of its hand and card tracking.

Its core is the minimum-deadwood partition (`meld_search`); hands are valued as a race
to go out (`evaluation`), and the weights are in `weights`. Draws weigh the discard
pile's card against the stock's expectation (or the stock's known top card); discards
are chosen by the value of the hand they leave plus what the card is worth to the next
player. It lays off and goes out as soon as the options allow (one meld per turn, must
discard to go out, lay off only after melding, Wrotham's all-at-once deals through
`go_down`, joker swaps when the joker is worth more), and holds its melds to go rummy
when the options reward it and the opponents are far from out.
"""

from __future__ import annotations

import random
from typing import Any

from engine.cards import JOKER
from engine.rummy.bots.commands import Command, by_type
from engine.rummy.bots.encoding import BIT, bits, cards_of, mask_of, without
from engine.rummy.bots.evaluation import Evaluator
from engine.rummy.bots.meld_search import card_order, points_of
from engine.rummy.bots.weights import MAX_DISCARDS, RUMMY_HOLD_POINTS, TAKE_MARGIN


class _Strong(Evaluator):
    """One decision of the strong bot: the moves, chosen on the memoised evaluations
    of `Evaluator` (the view and the history read once)."""

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
        take_hand, take_jokers = mask_of([*t.cards, top])
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
            highest = max((self.rules.value[b] for b in bits(loose)), default=0)
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
            hand, jokers = without(take_hand, take_jokers, card)
            free, free_joker = self.free(hand, jokers)
            candidates.append((self.rules.solve(hand, jokers, free, free_joker)[0], card))
        candidates.sort()
        best = float("inf")
        for _, card in candidates[:MAX_DISCARDS]:
            hand, jokers = without(take_hand, take_jokers, card)
            best = min(best, self.value(hand, jokers) + self.danger(card))
        if best + TAKE_MARGIN < stock:
            return {"type": "draw", "source": "discard"}
        return {"type": "draw", "source": "stock"}

    def after_draw(self, card: str, future: str | None, moves: dict[str, list[Command]]) -> float:
        """The value of drawing a known card: going out, or the best discard after it."""
        t = self.t
        hand, jokers = mask_of([*t.cards, card])
        plan = self.go_out_plan(hand, jokers, 0)
        if plan is not None and plan[1] <= self.melds_allowed(moves, True):
            return -self.prize
        best = float("inf")
        for held in set(t.cards) | {card}:
            rest, rest_jokers = without(hand, jokers, held)
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
        at_risk = points_of(self.rules, t.cards)
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
            by_cards[mask_of(move["cards"])] = move
        ordered = sorted(melds, key=lambda m: -points_of(self.rules, cards_of(m[0])))
        for mask, need in ordered:
            extras = range(need + (spare if going_out and len(melds) == 1 else 0), need - 1, -1)
            for jokers in extras:
                found = by_cards.get((mask, jokers))
                if found is not None:
                    return dict(found)
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
            hand, jokers = without(t.hand, t.jokers, move["card"])
            free, free_joker = self.free(hand, jokers)
            quick.append((rules.solve(hand, jokers, free, free_joker)[0], move["card"], move))
        quick.sort(key=lambda item: item[:2])
        scored = []
        for _, card, move in quick[:MAX_DISCARDS]:
            hand, jokers = without(t.hand, t.jokers, card)
            score = self.value(hand, jokers) + self.danger(card)
            scored.append((score, -card_order(rules, card)[0], card, move))
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
            hand, jokers = without(t.hand, t.jokers, move["card"])
            after = self.value(hand, jokers + 1)
            if after < now - 0.5:
                now, best = after, move
        return None if best is None else dict(best)


def choose_strong(
    view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random
) -> Command:
    """The planner: exact partitions, live-card potential, card tracking (module doc)."""
    moves = by_type(view["you"]["legal_moves"])
    bot = _Strong(view, history)
    if "draw" in moves:
        return bot.draw(moves)
    return bot.play(moves)
