"""Tables: who sits where, the server's secrets and the game's status, and their Redis hash.

A `Table` is what the service knows of a game beyond its log: the seats (a player with
a token, a bot, or an open seat), the server seed until it is revealed, the clock, the
explicit test deck, and the status the listing indexes by. `TableStore` is the only
code that knows how a table is written in Redis (the hash `keys.meta(id)`, plus the
JOIN script in `service.scripts`, which takes a seat in it atomically).

A waiting table whose open seats stay empty too long is closed, "abandoned". Closing it
and taking a seat are scripts on its hash, so a join that took the last seat leaves
nothing to close, and a closed table refuses joins.
"""

import hmac
import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

import redis

from engine import ledger
from engine.events import ClockSettings
from engine.table import Seeds
from service import keys, scripts
from service.errors import Conflict, NotFound, Refused

Status = Literal["waiting", "playing", "finished", "abandoned"]
STATUSES: tuple[Status, ...] = ("waiting", "playing", "finished", "abandoned")


@dataclass(frozen=True)
class Webhook:
    url: str
    secret: str


@dataclass(frozen=True)
class Seat:
    number: int
    name: str | None = None  # a player's
    bot: str | None = None  # a bot's level
    token_digest: str | None = None
    client_seed: str | None = None
    webhook: Webhook | None = None

    @property
    def is_open(self) -> bool:
        return self.name is None and self.bot is None

    def public(self) -> dict[str, Any]:
        """The seat as anyone may see it: number and who sits there."""
        if self.name is not None:
            return {"seat": self.number, "name": self.name}
        if self.bot is not None:
            return {"seat": self.number, "bot": self.bot}
        return {"seat": self.number, "open": True}

    def called(self) -> str:
        """What sentences call this seat: the player's name, the bot, or the seat."""
        if self.name is not None:
            return self.name
        if self.bot is not None:
            return f"{self.bot} bot (seat {self.number})"
        return f"seat {self.number}"


@dataclass(frozen=True)
class Table:
    id: str
    game: str
    preset: str | None
    seats: tuple[Seat, ...]
    server_seed: str
    created: float
    status: Status
    clock: ClockSettings | None = None
    deck: tuple[str, ...] | None = None  # tests only: the first hand's deck
    seed_source: str = "server"  # who chose the server seed ("client": tests only)
    deal_key_encoding: int = ledger.DEAL_KEY_VERSION  # older tables: 1

    @property
    def seed_commitment(self) -> str:
        return ledger.commitment(self.server_seed)

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def seeds(self) -> Seeds:
        clients = tuple(seat.client_seed for seat in self.seats)
        return Seeds(self.server_seed, clients, self.deal_key_encoding)

    def names(self) -> list[str]:
        return [seat.called() for seat in self.seats]

    def bots_among(self, seats: Iterable[int]) -> list[int]:
        return [seat for seat in seats if self.seats[seat].bot is not None]

    def humans(self) -> set[int]:
        return {seat.number for seat in self.seats if seat.bot is None}

    def webhooks(self) -> dict[int, Webhook]:
        return {seat.number: seat.webhook for seat in self.seats if seat.webhook is not None}

    def seat_with_token(self, digest: str) -> int | None:
        for seat in self.seats:
            if seat.token_digest and hmac.compare_digest(seat.token_digest, digest):
                return seat.number
        return None

    def with_status(self, status: Status) -> "Table":
        return replace(self, status=status)


def _seat_fields(seat: Seat) -> dict[str, str]:
    n = seat.number
    fields = {f"seat:{n}": "open"}
    if seat.name is not None:
        fields[f"seat:{n}"] = json.dumps({"name": seat.name})
    elif seat.bot is not None:
        fields[f"seat:{n}"] = json.dumps({"bot": seat.bot})
    if seat.token_digest:
        fields[f"token:{n}"] = seat.token_digest
    if seat.client_seed:
        fields[f"client_seed:{n}"] = seat.client_seed
    if seat.webhook:
        hook = {"url": seat.webhook.url, "secret": seat.webhook.secret}
        fields[f"webhook:{n}"] = json.dumps(hook)
    return fields


def encode(table: Table) -> dict[str, Any]:
    mapping: dict[str, Any] = {
        "game": table.game,
        "preset": table.preset or "",
        "players": table.players,
        "seed": table.server_seed,
        "created": table.created,
        "deck": json.dumps(list(table.deck)) if table.deck is not None else "",
        "clock": json.dumps(table.clock) if table.clock else "",
        "status": table.status,
        "seed_source": table.seed_source,
        "deal_key": table.deal_key_encoding,
    }
    for seat in table.seats:
        mapping.update(_seat_fields(seat))
    return mapping


def _seat(n: int, meta: dict[str, str]) -> Seat:
    raw = meta.get(f"seat:{n}", "open")
    who = {} if raw == "open" else json.loads(raw)
    hook = meta.get(f"webhook:{n}")
    return Seat(
        number=n,
        name=who.get("name"),
        bot=who.get("bot"),
        token_digest=meta.get(f"token:{n}") or None,
        client_seed=meta.get(f"client_seed:{n}") or None,
        webhook=Webhook(**json.loads(hook)) if hook else None,
    )


def decode(game_id: str, raw: dict[bytes, bytes]) -> Table:
    if not raw:
        raise NotFound("game_not_found", f"There is no game {game_id!r}.")
    meta = {k.decode(): v.decode() for k, v in raw.items()}
    status = meta.get("status", "playing")
    return Table(
        id=game_id,
        game=meta["game"],
        preset=meta.get("preset") or None,
        seats=tuple(_seat(n, meta) for n in range(int(meta["players"]))),
        server_seed=meta["seed"],
        created=float(meta["created"]),
        status=next((known for known in STATUSES if known == status), "playing"),
        clock=json.loads(meta["clock"]) if meta.get("clock") else None,
        deck=tuple(json.loads(meta["deck"])) if meta.get("deck") else None,
        seed_source=meta.get("seed_source", "server"),
        deal_key_encoding=int(meta.get("deal_key", 1)),  # tables from before it was kept: 1
    )


class TableStore:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._join = client.register_script(scripts.JOIN_OPEN)
        self._close = client.register_script(scripts.CLOSE)

    def add(self, table: Table) -> None:
        """Write a new table and its seats' token index."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(keys.meta(table.id), mapping=encode(table))
        tokens = {s.token_digest: table.id for s in table.seats if s.token_digest}
        if tokens:
            pipe.hset(keys.TOKENS, mapping=tokens)
        pipe.execute()

    def get(self, game_id: str) -> Table:
        return decode(game_id, self.redis.hgetall(keys.meta(game_id)))

    @staticmethod
    def get_in(pipe: Any, game_id: str) -> None:
        """Queue the read of a table on `pipe`; `decode` its answer."""
        pipe.hgetall(keys.meta(game_id))

    def take_seat(self, game_id: str, wanted: int | None, seat: Seat) -> tuple[int, int]:
        """Seat a player in the wanted (or first) open seat: (seat number, open seats left)."""
        chosen, left = self._join(
            keys=[keys.meta(game_id)],
            args=[
                "" if wanted is None else wanted,
                json.dumps({"name": seat.name}),
                seat.token_digest or "",
                seat.client_seed or "",
            ],
        )
        if chosen == -3:
            raise Conflict("game_abandoned", "This game was abandoned: nobody filled it in time.")
        if chosen == -1:
            raise Conflict("no_open_seat", "Every seat at this table is taken.")
        if chosen == -2:
            raise Conflict("seat_taken", f"Seat {wanted} is not open.", "seat")
        pipe = self.redis.pipeline(transaction=False)
        if seat.token_digest:
            pipe.hset(keys.TOKENS, seat.token_digest, game_id)
        if seat.webhook:
            hook = {"url": seat.webhook.url, "secret": seat.webhook.secret}
            pipe.hset(keys.meta(game_id), f"webhook:{int(chosen)}", json.dumps(hook))
        pipe.execute()
        return int(chosen), int(left)

    def token_known(self, digest: str) -> bool:
        return self.redis.hget(keys.TOKENS, digest) is not None

    def set_status(self, table: Table, status: Status) -> None:
        """Record the status and move the game to that status's index."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(keys.meta(table.id), "status", status)
        pipe.zadd(keys.GAMES_BY_CREATION, {table.id: table.created})
        for other in STATUSES:
            if other != status:
                pipe.zrem(keys.games_by_status(other), table.id)
        pipe.zadd(keys.games_by_status(status), {table.id: table.created})
        pipe.execute()

    def close(self, game_id: str) -> bool:
        """Mark a waiting table abandoned, unless a join took its last seat first."""
        return bool(self._close(keys=[keys.meta(game_id)]))

    def unlist(self, game_id: str) -> None:
        """A vanished table: out of every index."""
        for index in [keys.GAMES_BY_CREATION, *map(keys.games_by_status, STATUSES)]:
            self.redis.zrem(index, game_id)

    def waiting_since(self, before: float, offset: int, count: int) -> list[str]:
        """Ids of waiting games created before `before`, oldest first."""
        found = self.redis.zrangebyscore(
            keys.games_by_status("waiting"), "-inf", f"({before}", start=offset, num=count
        )
        return [raw.decode() for raw in found]

    def page(self, status: Status | None, page: int, size: int) -> tuple[int, list[Table]]:
        """(how many games, the tables of one page), newest first."""
        index = keys.games_by_status(status) if status else keys.GAMES_BY_CREATION
        total = self.redis.zcard(index)
        start = (page - 1) * size
        ids = [i.decode() for i in self.redis.zrevrange(index, start, start + size - 1)]
        pipe = self.redis.pipeline(transaction=False)
        for game_id in ids:
            self.get_in(pipe, game_id)
        found = [decode(i, raw) for i, raw in zip(ids, pipe.execute(), strict=True) if raw]
        return total, found


def refuse_unknown_seat(table: Table, seat: int | None) -> None:
    if seat is not None and not 0 <= seat < table.players:
        raise Refused("unknown_seat", "That seat is not at this table.", "seat")
