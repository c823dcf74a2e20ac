"""Putting the service together: one `Cardtrail` per process, from two Redis connections.

The web app, each worker process and the command line build one and share it for every
request or job, so its caches (folded states, replayed hands) serve them all.
"""

from dataclasses import dataclass

import redis

from service import reactions
from service.commands import Commands
from service.history import History
from service.queries import Queries
from service.reactions import Reactions
from service.repository import Repository
from service.scheduler import TurnScheduler


@dataclass(frozen=True)
class Cardtrail:
    """The application: the repository, the commands that grow a log, the queries that
    read one, the history of finished hands, and the scheduler of background work."""

    repository: Repository
    scheduler: TurnScheduler
    commands: Commands
    queries: Queries
    history: History

    @property
    def redis(self) -> redis.Redis:
        return self.repository.redis

    def close(self) -> None:
        self.repository.redis.close()
        self.scheduler.queue.connection.close()


def build(
    client: redis.Redis,
    queue_client: redis.Redis | None = None,
    allow_preset_deck: bool = False,
) -> Cardtrail:
    repository = Repository(client)
    scheduler = TurnScheduler(queue_client or client, client)
    after_append = Reactions(
        [
            reactions.bot_turns(scheduler),
            reactions.clocks(scheduler),
            reactions.webhooks(scheduler),
            reactions.status_index(repository.tables),
        ]
    )
    return Cardtrail(
        repository=repository,
        scheduler=scheduler,
        commands=Commands(repository, after_append, allow_preset_deck),
        queries=Queries(repository, scheduler),
        history=History(repository),
    )
