"""The cardtrail worker: RQ's SimpleWorker plus the reconciler in its maintenance tick.

Bot turns are short pure-Python computations, so jobs run in the worker's own
process (no fork per job) and its state cache serves every turn it plays. The
worker runs RQ's scheduler (deadlines and retries are scheduled jobs), and every
few seconds, in RQ's own maintenance step, the reconciler re-enqueues lost bot
turns and re-arms missing or overdue deadlines — so recovery does not wait for a
dead worker's scheduler lock to expire. The standard command works too:
`rq worker --with-scheduler -w workers.run.CardtrailWorker cardtrail cardtrail-notify`.

A worker takes bot turns, deadlines and reminders from the `turns` queue and webhook
deliveries from the `notify` queue; by default both, bot turns first. Run them as
separate processes (`--queues turns`, `--queues notify`) and a receiver that answers
slowly (cut at 10 s in all per attempt, docs/webhooks.md) never delays a bot's move.
"""

from collections.abc import Sequence

from rq import Queue, SimpleWorker

from service.redis_server import queue_connection
from service.scheduler import NOTIFY_QUEUE, QUEUE
from workers.connection import redis_url
from workers.reconcile import reconcile

WORKER_TTL = 18  # RQ blocks for ttl - 15 s between maintenance checks when idle
MAINTENANCE_EVERY = 2


class CardtrailWorker(SimpleWorker):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("worker_ttl", WORKER_TTL)
        kwargs.setdefault("maintenance_interval", MAINTENANCE_EVERY)
        super().__init__(*args, **kwargs)

    def run_maintenance_tasks(self) -> None:
        super().run_maintenance_tasks()
        reconcile()


QUEUES = {"turns": QUEUE, "notify": NOTIFY_QUEUE}


def run_worker(
    burst: bool = False, name: str | None = None, queues: Sequence[str] = tuple(QUEUES)
) -> None:
    connection = queue_connection(redis_url())
    worker = CardtrailWorker(
        [Queue(QUEUES[queue], connection=connection) for queue in queues],
        connection=connection,
        name=name,
    )
    worker.work(burst=burst, with_scheduler=True, logging_level="WARNING")
