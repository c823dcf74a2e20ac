"""The ratings job: a game that ended is applied to its pool's ratings (service/ratings.py).

Idempotent: the projection applies a game once, so a job run twice (a retry after a
worker died, a second enqueue) changes nothing the second time."""

from workers.connection import cardtrail


def rate_game(game_id: str) -> str:
    """What became of the game: applied, refolded (it ended before the last one applied),
    already (applied before) or not_rated (abandoned, or no rated identities on two teams)."""
    return cardtrail().ratings.apply(game_id)
