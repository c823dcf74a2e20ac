"""Connections for workers: game state on REDIS_URL, the RQ queue on RQ_REDIS_URL (or the same)."""

import os
from functools import lru_cache

from service.application import GameService
from service.redis_server import connect, queue_connection


def redis_url() -> str:
    url = os.environ.get("REDIS_URL")
    if not url:
        raise RuntimeError("REDIS_URL is not set")
    return url


@lru_cache(maxsize=1)
def game_service() -> GameService:
    """One per worker process: its state cache then serves every turn it plays."""
    return GameService(connect(redis_url()), queue_client=queue_connection(redis_url()))
