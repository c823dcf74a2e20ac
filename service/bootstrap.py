"""Putting the service together: one `Cardtrail` per process, from two Redis connections.

The web app, each worker process and the command line build one and share it for every
request or job, so its caches (folded states, replayed hands) serve them all.
"""

import secrets
from dataclasses import dataclass

import redis

from service import reactions
from service.archives import ArchiveStore
from service.credentials import Credentials
from service.following import FollowerHub
from service.handlers import Handlers
from service.history import History
from service.inbox import Inbox
from service.player_games import PlayerGames
from service.players import Players
from service.queries import Queries
from service.ratings import Ratings
from service.reactions import Reactions
from service.rematch import Rematches
from service.repository import Repository
from service.scheduler import TurnScheduler
from service.sealing import Sealing
from service.signing import KeyRing, Signer


@dataclass(frozen=True)
class Cardtrail:
    """The application: the repository, the handlers of the commands that grow a log,
    the queries that read one, the history of finished hands, the scheduler of
    background work, the keys that sign receipts, and the ratings projected from the logs;
    the players (accounts), their credentials, and rematches."""

    repository: Repository
    scheduler: TurnScheduler
    handlers: Handlers
    queries: Queries
    history: History
    keyring: KeyRing
    ratings: Ratings
    players: Players
    credentials: Credentials
    rematches: Rematches
    inbox: Inbox
    sealing: Sealing | None  # None: no archive store, finished games stay in Redis

    @property
    def redis(self) -> redis.Redis:
        return self.repository.redis

    @property
    def player_games(self) -> PlayerGames:
        """Each player's games and news (the inbox lists them)."""
        return self.handlers.player_games

    def close(self) -> None:
        self.repository.redis.close()
        self.scheduler.queue.connection.close()


def build(
    client: redis.Redis,
    queue_client: redis.Redis | None = None,
    allow_preset_deck: bool = False,
    signer: Signer | None = None,
    receipts: bool = True,
    follow_client: redis.Redis | None = None,
    max_followers: int = 10_000,
    followed_games: int = 2_000,
    archive: ArchiveStore | None = None,
) -> Cardtrail:
    """`signer`, the server's key, signs the receipts of every answer (unless not
    `receipts`: a worker answers nobody) and authenticates the state snapshots kept in
    Redis, so every process holding the key reads the others'. Without one, a random
    secret: this process ignores every snapshot it did not write (they are only a
    cache: it folds from the log instead). `follow_client` serves the follower hub's
    blocking reads (one connection per followed game), apart from the requests' own.
    `archive` keeps the logs of games that ended (service/sealing.py)."""
    secret = signer.secret("snapshots") if signer else secrets.token_bytes(32)
    repository = Repository(client, secret, archive)
    scheduler = TurnScheduler(queue_client or client, client)
    keyring = KeyRing(client)
    if signer is not None and receipts:
        keyring.register(signer)
    else:
        signer = None
    players = Players(client)
    player_games = PlayerGames(client, repository.tables, repository.events)
    after_append = _reactions(scheduler, repository, player_games, sealed=archive is not None)
    hub = FollowerHub(follow_client or client, max_followers, followed_games)
    handlers = Handlers(
        repository, after_append, signer, allow_preset_deck, players=players,
        player_games=player_games,
    )  # fmt: skip
    return Cardtrail(
        repository=repository,
        scheduler=scheduler,
        handlers=handlers,
        queries=Queries(repository, scheduler, signer, hub),
        history=History(repository),
        keyring=keyring,
        ratings=Ratings(client, repository.events),
        players=players,
        credentials=Credentials(client, players),
        rematches=Rematches(handlers, scheduler),
        inbox=Inbox(repository, scheduler, player_games, follow_client),
        sealing=Sealing(repository, keyring, archive) if archive is not None else None,
    )


def _reactions(
    scheduler: TurnScheduler, repository: Repository, player_games: PlayerGames, sealed: bool
) -> Reactions:
    """What every append sets going (service.reactions), in order; sealing last, after
    every reaction that reads the log."""
    return Reactions(
        [
            reactions.bot_turns(scheduler),
            reactions.clocks(scheduler),
            reactions.webhooks(scheduler),
            reactions.status_index(repository.tables),
            reactions.ratings(scheduler),
            reactions.player_news(player_games),
            reactions.player_index(player_games),
            *([reactions.sealing(scheduler)] if sealed else []),
        ]
    )
