"""RQ job: seal a game that ended into the archive store (service/sealing.py)."""

from workers.connection import cardtrail


def seal_game(game_id: str) -> str:
    """Seal the game's log; a repeat (a retry, or a run after a crash) finishes the job."""
    sealing = cardtrail().sealing
    if sealing is None:
        return "no_archive_store"
    return sealing.seal(game_id).result
