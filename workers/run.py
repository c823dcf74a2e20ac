"""Starting a worker: reconcile once, make sure the periodic reconciler runs, then work.

Bot turns are short pure-Python computations, so the worker runs jobs in its own
process (RQ's SimpleWorker, no fork per job); its per-process state cache then
serves every turn. The scheduler runs in the worker (`with_scheduler`), which
fires the delayed reconcile runs.
"""

import redis
from rq import Queue, SimpleWorker

from service.turns import QUEUE, schedule_reconcile
from workers.connection import queue_url
from workers.reconcile import reconcile


def run_worker(burst: bool = False, name: str | None = None) -> None:
    connection = redis.Redis.from_url(queue_url())
    queue = Queue(QUEUE, connection=connection)
    reconcile()
    schedule_reconcile(queue)
    worker = SimpleWorker([queue], connection=connection, name=name)
    worker.work(burst=burst, with_scheduler=True, logging_level="WARNING")
