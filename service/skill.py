"""Skill as OpenSkill's Plackett-Luce model keeps it: one game's update, and a pool's fold.

Pure functions over plain records, so the projection (service/ratings.py) applying one
game and the rebuild folding a whole pool compute the very same floats in the same order.
The model keeps OpenSkill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300): tau
widens every rating a little before each game, so ratings keep moving as people improve.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

MODEL = PlackettLuce()
PROVISIONAL_GAMES = 10  # fewer rated games than this: the rating is marked provisional


@dataclass(frozen=True)
class Skill:
    """One identity's rating in one pool: the belief (mu, sigma) and the games behind it."""

    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative estimate the leaderboard sorts by: mu − 3σ."""
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES

    def as_dict(self) -> dict[str, float | int]:
        return {"mu": self.mu, "sigma": self.sigma, "games": self.games}

    @classmethod
    def of(cls, data: Mapping[str, float | int]) -> "Skill":
        return cls(float(data["mu"]), float(data["sigma"]), int(data["games"]))


NEW = Skill(MODEL.mu, MODEL.sigma, 0)

# A team is its seats' identities: a rated identity's id, or None for an anonymous seat
# (it plays at the starting rating, and nothing is kept for it).
Teams = Sequence[Sequence[str | None]]


def rate(teams: Teams, places: Sequence[int], known: Mapping[str, Skill]) -> dict[str, Skill]:
    """Every rated identity's skill after one game, from `known` (NEW for a first game).

    An identity in several seats of one game (two bots of one level) enters each seat at
    its rating before the game, and keeps the mean of what those seats' updates make of it;
    the game counts once."""
    rated = MODEL.rate(
        [[_rating(entrant, known) for entrant in team] for team in teams],
        ranks=[float(place) for place in places],
    )
    outcomes: dict[str, list[tuple[float, float]]] = {}
    for team, ratings in zip(teams, rated, strict=True):
        for entrant, rating in zip(team, ratings, strict=True):
            if entrant is not None:
                outcomes.setdefault(entrant, []).append((rating.mu, rating.sigma))
    after = {}
    for entrant, seats in outcomes.items():
        mu = sum(mu for mu, _ in seats) / len(seats)
        sigma = sum(sigma for _, sigma in seats) / len(seats)
        after[entrant] = Skill(mu, sigma, known.get(entrant, NEW).games + 1)
    return after


def fold(games: Iterable[tuple[Teams, Sequence[int]]]) -> dict[str, Skill]:
    """Every identity's skill after `games` (teams, places), applied in the order given."""
    skills: dict[str, Skill] = {}
    for teams, places in games:
        skills.update(rate(teams, places, skills))
    return skills


def _rating(entrant: str | None, known: Mapping[str, Skill]) -> PlackettLuceRating:
    skill = known.get(entrant, NEW) if entrant is not None else NEW
    return MODEL.rating(mu=skill.mu, sigma=skill.sigma)
