"""The worker process's application: game state on REDIS_URL, the RQ queue on
RQ_REDIS_URL (or the same)."""

import os
from functools import lru_cache

from service import archives
from service.bootstrap import Cardtrail, build
from service.redis_server import connect, queue_connection
from service.signing import configured


def redis_url() -> str:
    url = os.environ.get("REDIS_URL")
    if not url:
        raise RuntimeError("REDIS_URL is not set")
    return url


@lru_cache(maxsize=1)
def cardtrail() -> Cardtrail:
    """One per worker process: its state cache then serves every turn it plays."""
    # The server's key authenticates the snapshots this worker shares with the web
    # processes; a worker signs no receipts (it answers nobody).
    return build(
        connect(redis_url()),
        queue_connection(redis_url()),
        signer=configured(),
        receipts=False,
        archive=archives.open_store(os.environ.get(archives.ENV)),
    )
