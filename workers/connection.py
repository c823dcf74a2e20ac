"""Connections for workers: game state on REDIS_URL, the RQ queue on RQ_REDIS_URL (or the same)."""

import os
from functools import lru_cache

import redis

from service.application import GameService


def redis_url() -> str:
    url = os.environ.get("REDIS_URL")
    if not url:
        raise RuntimeError("REDIS_URL is not set")
    return url


def queue_url() -> str:
    return os.environ.get("RQ_REDIS_URL") or redis_url()


@lru_cache(maxsize=1)
def game_service() -> GameService:
    """One per worker process: its state cache then serves every turn it plays."""
    return GameService(
        redis.Redis.from_url(redis_url()), queue_client=redis.Redis.from_url(queue_url())
    )
