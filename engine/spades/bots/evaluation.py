"""What a played-out hand is worth to the strong bot's side: the number its search
maximizes, in the game's own points (bags priced at their share of the penalty)."""

from __future__ import annotations

from engine.spades.options import Options


class Evaluation:
    """Scores final tricks won per seat for one seat's side, under the hand's bids."""

    def __init__(
        self,
        options: Options,
        sides: list[tuple[int, ...]],
        side_of: list[int],
        bids: list[int],
        blind: list[bool],
        me: int,
    ) -> None:
        self.options = options
        self.sides = sides
        self.side_of = side_of
        self.bids = bids
        self.blind = blind
        self.me = me

    def value(self, won: list[int]) -> float:
        """Our side's points minus the others' (mean) for a hand ending with `won`."""
        points = [self._side_points(index, side, won) for index, side in enumerate(self.sides)]
        mine = self.side_of[self.me]
        others = [p for i, p in enumerate(points) if i != mine]
        return points[mine] - sum(others) / len(others)

    def _side_points(self, index: int, side: tuple[int, ...], won: list[int]) -> float:
        """A side's points for the hand; bags cost their share of the next penalty."""
        options = self.options
        bids = self.bids
        contract = 0
        counted = 0
        points = 0.0
        bags = 0
        nil_tricks = options.nil_tricks
        for seat in side:
            if bids[seat] > 0:
                contract += bids[seat]
                counted += won[seat]
            else:
                bonus = options.blind_nil_bonus if self.blind[seat] else options.nil_bonus
                points += bonus if won[seat] == 0 else -bonus
                if nil_tricks == "bags":
                    bags += won[seat]
                elif nil_tricks == "bid":
                    counted += won[seat]
        if contract:
            if counted >= contract:
                points += options.trick_points * contract
                bags += counted - contract
                made = True
            else:
                made = False
                if options.set_scoring == "minus":
                    points -= options.trick_points * contract
            for seat in side:
                if bids[seat] > 0 and self.blind[seat]:
                    points += options.blind_bid_bonus if made else -options.blind_bid_penalty
        else:
            bags += counted
        return points + bags * (1 - options.bag_penalty / options.bag_limit)
