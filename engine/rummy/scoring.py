"""Rummy scoring, the one place that turns cards left in hand into points.

Card values follow Pagat: K Q J 10 are 10, number cards face value, aces 1 (15
when aces may be high), jokers `joker_points`. Three scoring systems:

* winner: the player who went out scores the others' card totals;
* penalty: every loser scores their own cards as penalty points, lowest total wins;
* pay: each loser pays the winner their card total (a zero-sum ledger).

Going rummy doubles the hand's points or adds `rummy_bonus` (under penalty
scoring the bonus is taken off the winner's penalty total; under pay, each
loser pays it).

When nobody goes out (the stock ran out for good), either the lowest hand wins
the sum of the differences, ties sharing equally with any indivisible remainder
dropped (option `lowest_wins`), or nobody scores (`stalemate`). Under penalty
scoring everyone then scores their own cards.
"""

from collections.abc import Sequence

from engine.cards import CARD_RANK, JOKER
from engine.rummy.options import Options


def card_points(card: str, options: Options) -> int:
    if card == JOKER:
        return options.joker_points
    rank = CARD_RANK[card]
    if rank == 1:
        return 1 if options.aces == "low" else 15
    return min(rank, 10)


def hand_points(hands: Sequence[Sequence[str]], options: Options) -> list[int]:
    return [sum(card_points(card, options) for card in hand) for hand in hands]


def score_hand(
    options: Options, points: Sequence[int], winner: int | None, rummy: bool
) -> list[int]:
    """Per-seat score changes for one hand."""
    players = len(points)
    if winner is None:
        return _no_winner(options, points)
    multiplier = 2 if rummy and options.going_rummy == "double" else 1
    bonus = options.rummy_bonus if rummy and options.going_rummy == "bonus" else 0
    deltas = [0] * players
    if options.scoring == "penalty":
        for seat in range(players):
            if seat != winner:
                deltas[seat] = points[seat] * multiplier
        deltas[winner] = -bonus
        return deltas
    if options.scoring == "pay":
        for seat in range(players):
            if seat != winner:
                deltas[seat] = -(points[seat] * multiplier + bonus)
        deltas[winner] = -sum(deltas)
        return deltas
    deltas[winner] = sum(points[s] for s in range(players) if s != winner) * multiplier + bonus
    return deltas


def _no_winner(options: Options, points: Sequence[int]) -> list[int]:
    players = len(points)
    if options.scoring == "penalty":
        return list(points)
    if options.no_winner == "stalemate":
        return [0] * players
    lowest = min(points)
    winners = [seat for seat in range(players) if points[seat] == lowest]
    total = sum(p - lowest for p in points)
    share = total // len(winners)
    deltas = [0] * players
    for seat in winners:
        deltas[seat] = share
    if options.scoring == "pay":
        for seat in range(players):
            if seat not in winners:
                deltas[seat] = -(points[seat] - lowest)
    return deltas


def game_winners(options: Options, scores: Sequence[int], hands_played: int) -> list[int] | None:
    """The winning seats if the game is over after this many hands, else None."""
    players = len(scores)
    if options.game_end == "deals":
        over = hands_played >= options.deals
    else:
        over = max(scores) >= options.target_for(players)
    if not over:
        return None
    best = min(scores) if options.scoring == "penalty" else max(scores)
    return [seat for seat in range(players) if scores[seat] == best]
