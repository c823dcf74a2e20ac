"""Spades scoring, the one place that turns bids and tricks into points.

Per side (a partnership, or one player in solo games), per hand:

* The side's bid is the sum of its members' bids of one or more tricks; the tricks
  that count for it are those members' tricks (plus a nil bidder's when
  `nil_tricks` is "bid"). Made: `trick_points` × bid, plus 1 point and 1 bag per
  overtrick. Short ("set"): 0, or − `trick_points` × bid when `set_scoring` is "minus".
* A member's blind bid of one or more tricks adds `blind_bid_bonus` when the side
  makes its bid and takes `blind_bid_penalty` away when it does not.
* Each nil bidder: + `nil_bonus` when they took no trick, − `nil_bonus` otherwise
  (`blind_nil_bonus` for blind nil). Under `nil_tricks` "bags" (the default) a nil
  bidder's tricks are bags for the side: 1 point each and counted toward the bag
  penalty, never toward the partner's bid.
* Bags accumulate over hands. Under `bags_past_limit` "carry" (the default, the
  common house rule) each time the count reaches `bag_limit` the side loses
  `bag_penalty` and the count drops by `bag_limit` (bags beyond it roll over, and a
  hand that passes the limit twice costs twice). Under "reset" (the source: "the bags
  are reset again to 0") a count that reaches the limit costs one penalty and starts
  again from 0, the bags past the limit dropped.
"""

from collections.abc import Sequence
from typing import Any

from engine.spades.options import Options


def score_side(
    options: Options,
    members: Sequence[int],
    bids: Sequence[tuple[int, bool]],
    tricks: Sequence[int],
    bags_before: int,
) -> dict[str, Any]:
    """One side's result for one hand: points, new bag count and how they came about."""
    bidders = [seat for seat in members if bids[seat][0] > 0]
    nils = [seat for seat in members if bids[seat][0] == 0]
    contract = sum(bids[seat][0] for seat in bidders)
    counted = sum(tricks[seat] for seat in bidders)
    if options.nil_tricks == "bid":
        counted += sum(tricks[seat] for seat in nils)
    points = 0
    new_bags = 0
    made: bool | None = None
    if contract > 0:
        made = counted >= contract
        if made:
            over = counted - contract
            points += options.trick_points * contract + over
            new_bags += over
        elif options.set_scoring == "minus":
            points -= options.trick_points * contract
        for seat in bidders:
            if bids[seat][1]:
                points += options.blind_bid_bonus if made else -options.blind_bid_penalty
    elif counted:  # only nil bidders, their tricks counting as a bid of none: all bags
        points += counted
        new_bags += counted
    nil_results = []
    for seat in nils:
        blind = bids[seat][1]
        bonus = options.blind_nil_bonus if blind else options.nil_bonus
        success = tricks[seat] == 0
        points += bonus if success else -bonus
        nil_results.append({"seat": seat, "blind": blind, "made": success})
        if options.nil_tricks == "bags":
            points += tricks[seat]
            new_bags += tricks[seat]
    bags, penalties = _bag_penalties(options, bags_before + new_bags)
    points -= penalties * options.bag_penalty
    return {
        "seats": list(members),
        "bid": contract,
        "took": sum(tricks[seat] for seat in members),
        "made": made,
        "nils": nil_results,
        "new_bags": new_bags,
        "bag_penalties": penalties,
        "bags": bags,
        "points": points,
    }


def _bag_penalties(options: Options, bags: int) -> tuple[int, int]:
    """(the bag count kept, the penalties it costs) for a side now holding `bags`."""
    if bags < options.bag_limit:
        return bags, 0
    if options.bags_past_limit == "reset":
        return 0, 1
    return bags % options.bag_limit, bags // options.bag_limit


def game_over(
    options: Options, scores: Sequence[int], hands_played: int
) -> tuple[list[int], str] | None:
    """(winning sides, reason) if the game ends after this hand, else None.

    The game ends when a side reaches `target_score` or falls to `losing_score`, with a
    single side ahead; with a tie for the lead another hand is played. `max_hands` ends
    it regardless, ties sharing the win.
    """
    best = max(scores)
    leaders = [side for side, score in enumerate(scores) if score == best]
    if options.max_hands is not None and hands_played >= options.max_hands:
        return leaders, "max_hands"
    reached = best >= options.target_score
    fell = options.losing_score is not None and min(scores) <= options.losing_score
    if (reached or fell) and len(leaders) == 1:
        return leaders, "target" if reached else "losing_score"
    return None
