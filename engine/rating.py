"""What a finished game says about its players' skill: the pool it is rated in, who played
together, and each side's place.

Only the game knows these (a pool per mode family, partners as one team, which scores
are better), so each game answers them from its own record — the options and number of
seats of `game_created`, the winners and scores of `game_ended` — through the hooks of
`engine.contract.Game` (`rating_pool`, `rating_teams`, `rating_places`). The service turns
the outcomes into ratings (service/ratings.py); the engine never sees a rating.
"""

from collections.abc import Collection, Sequence
from dataclasses import dataclass

Teams = tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Outcome:
    """A finished game as ratings read it.

    `teams` are seats (partners together, every seat in exactly one team); `places` give
    each team's finishing place, 1 the best, equal places a tie.
    """

    pool: str
    teams: Teams
    places: tuple[int, ...]


def solo_teams(players: int) -> Teams:
    """Every seat plays for itself."""
    return tuple((seat,) for seat in range(players))


def places(
    teams: Teams,
    winners: Collection[int],
    forfeited: int | None = None,
    points: Sequence[float] | None = None,
) -> tuple[int, ...]:
    """Each team's place: the winners' teams first, the team of a seat that forfeited
    (resigned or ran out of time) last, whatever its score; between them the others, in
    order of `points` (one per team, higher better) when given, else all tied.

    Places are competition ranks (1, 2, 2, 4): a team's place is one more than the number
    of teams that did strictly better.
    """
    keys = []
    for index, team in enumerate(teams):
        if forfeited is not None and forfeited in team:
            group = 2
        elif any(seat in winners for seat in team):
            group = 0
        else:
            group = 1
        score = -points[index] if points is not None and group == 1 else 0.0
        keys.append((group, score))
    return tuple(1 + sum(other < key for other in keys) for key in keys)
