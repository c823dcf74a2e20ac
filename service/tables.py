"""Tables in Redis: `TableStore` is the only code that knows how a table is written (the
hash `keys.meta(id)`, plus the JOIN script in `service.scripts`, which takes a seat in it
atomically). The records themselves, `Table` and `Seat`, are `service.table_records`.

A waiting table whose open seats stay empty too long is closed, "abandoned". Closing it
and taking a seat are scripts on its hash, so a join that took the last seat leaves
nothing to close, and a closed table refuses joins. A seat reserved for a player is
taken only by that player; one player holds at most the game's `seats_per_player`.
"""

import json
from typing import Any

import redis

from service import keys, scripts
from service.errors import Conflict, NotFound
from service.table_records import (  # noqa: F401 - the table's records, named here too
    STATUSES,
    Seat,
    Status,
    Table,
    Tombstone,
    Webhook,
    refuse_unknown_seat,
)


def seat_json(seat: Seat) -> str:
    """A taken seat's `seat:<n>` value: who sits there."""
    if seat.bot is not None:
        return json.dumps({"bot": seat.bot})
    who = {"name": seat.name}
    return json.dumps({**who, "player": seat.player} if seat.player else who)


def _seat_fields(seat: Seat) -> dict[str, str]:
    n = seat.number
    fields = {f"seat:{n}": "open"}
    if seat.reserved:
        fields[f"seat:{n}"] = "reserved"
        fields[f"invited:{n}"] = seat.name or ""
    elif seat.name is not None or seat.bot is not None:
        fields[f"seat:{n}"] = seat_json(seat)
    if seat.player:
        fields[f"player:{n}"] = seat.player
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
    for link in ("rematch_of", "rematch"):
        if getattr(table, link):
            mapping[link] = getattr(table, link)
    for seat in table.seats:
        mapping.update(_seat_fields(seat))
    return mapping


def _seat(n: int, meta: dict[str, str]) -> Seat:
    raw = meta.get(f"seat:{n}", "open")
    reserved = raw == "reserved"
    if raw == "open" or reserved:
        who = {"name": meta.get(f"invited:{n}")} if reserved else {}
    else:
        who = json.loads(raw)
    hook = meta.get(f"webhook:{n}")
    return Seat(
        number=n,
        name=who.get("name"),
        bot=who.get("bot"),
        token_digest=meta.get(f"token:{n}") or None,
        client_seed=meta.get(f"client_seed:{n}") or None,
        webhook=Webhook(**json.loads(hook)) if hook else None,
        player=meta.get(f"player:{n}") or None,
        reserved=reserved,
    )


DECODED_TABLES = 4096  # tables kept decoded, by their hash's exact contents
_decoded: dict[tuple[Any, ...], Table] = {}


def decode(game_id: str, raw: dict[bytes, bytes]) -> Table:
    """The table a `keys.meta` hash holds. Every move reads the hash, and it seldom
    changes (a seat taken, a status), so the table is decoded once per content: the same
    bytes make the same (frozen) table."""
    if not raw:
        raise NotFound("game_not_found", f"There is no game {game_id!r}.")
    key = (game_id, *raw.items())
    found = _decoded.get(key)
    if found is None:
        found = _decode(game_id, raw)
        if len(_decoded) >= DECODED_TABLES:
            _decoded.pop(next(iter(_decoded)), None)  # the oldest
        _decoded[key] = found
    return found


def _decode(game_id: str, raw: dict[bytes, bytes]) -> Table:
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
        rematch_of=meta.get("rematch_of") or None,
        rematch=meta.get("rematch") or None,
        archive=Tombstone.of(meta),
    )


class TableStore:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._join = client.register_script(scripts.JOIN_OPEN)
        self._close = client.register_script(scripts.CLOSE)
        self._seal = client.register_script(scripts.SEAL)
        self._purge = client.register_script(scripts.PURGE)

    def add(self, table: Table) -> None:
        """Write a new table and its seats' token index."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(keys.meta(table.id), mapping=encode(table))
        _index_tokens(pipe, table)
        pipe.execute()

    def get(self, game_id: str) -> Table:
        return decode(game_id, self.redis.hgetall(keys.meta(game_id)))

    @staticmethod
    def get_in(pipe: Any, game_id: str) -> None:
        """Queue the read of a table on `pipe`; `decode` its answer."""
        pipe.hgetall(keys.meta(game_id))

    def take_seat(
        self, game_id: str, wanted: int | None, seat: Seat, most: int = 1
    ) -> tuple[int, int]:
        """Seat a person in the wanted (or first) open seat, or, for a player, the seat
        reserved for them first; a player holds at most `most` seats of the game:
        (seat number, empty seats left)."""
        chosen, left = self._join(
            keys=[keys.meta(game_id)],
            args=[
                "" if wanted is None else wanted,
                seat_json(seat),
                seat.token_digest or "",
                seat.client_seed or "",
                seat.player or "",
                most,
            ],
        )
        _refuse_join(int(chosen), wanted)
        pipe = self.redis.pipeline(transaction=False)
        if seat.token_digest:
            pipe.hset(keys.TOKENS, seat.token_digest, game_id)
        if seat.webhook:
            hook = {"url": seat.webhook.url, "secret": seat.webhook.secret}
            pipe.hset(keys.meta(game_id), f"webhook:{int(chosen)}", json.dumps(hook))
        pipe.execute()
        return int(chosen), int(left)

    def link(self, game_id: str, field: str, other: str, only_new: bool = False) -> str:
        """Record a link to another game (`rematch_of`, `rematch`); with `only_new` only
        if none is recorded yet. The game linked to, as recorded."""
        if not only_new:
            self.redis.hset(keys.meta(game_id), field, other)
            return other
        self.redis.hsetnx(keys.meta(game_id), field, other)
        found = self.redis.hget(keys.meta(game_id), field)
        return found.decode() if found else other

    def seal(self, game_id: str, tombstone: Tombstone) -> bool:
        """Record where the game's log is archived, if its stream still holds just the
        sealed log (or the same tombstone is recorded already)."""
        fields = [value for pair in tombstone.fields().items() for value in pair]
        found = self._seal(keys=[keys.meta(game_id), keys.events(game_id)], args=fields)
        return bool(found)

    def tombstone(self, game_id: str) -> Tombstone | None:
        """Where the game's sealed log is, or None while its log is in Redis."""
        names = [f"archive:{name}" for name in Tombstone.FIELDS]
        raw = self.redis.hmget(keys.meta(game_id), names)
        found = {name: value.decode() for name, value in zip(names, raw, strict=True) if value}
        return Tombstone.of(found)

    def purge(self, game_id: str) -> bool:
        """Drop a sealed game's hot keys: its stream, snapshot, clock and move idempotency
        keys (only once its tombstone is recorded)."""
        hot = [keys.events(game_id), keys.snapshot(game_id), keys.clock(game_id)]
        return bool(self._purge(keys=[keys.meta(game_id), keys.idempotency_keys(game_id), *hot]))

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

    def remove(self, game_id: str) -> None:
        """A table nobody was ever told of (a rematch made twice at once: the one that
        lost), gone with its log."""
        self.unlist(game_id)
        self.redis.delete(keys.meta(game_id), keys.events(game_id), keys.snapshot(game_id))

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


def _index_tokens(pipe: Any, table: Table) -> None:
    tokens = {s.token_digest: table.id for s in table.seats if s.token_digest}
    if tokens:
        pipe.hset(keys.TOKENS, mapping=tokens)


def _refuse_join(chosen: int, wanted: int | None) -> None:
    """The JOIN script's refusals, as the caller's problem."""
    if chosen == -3:
        raise Conflict("game_abandoned", "This game was abandoned: nobody filled it in time.")
    if chosen == -1:
        raise Conflict("no_open_seat", "Every seat at this table is taken.")
    if chosen == -2:
        # people count seats from 1; the id is the "seat" the caller sent
        raise Conflict("seat_taken", f"Seat {(wanted or 0) + 1} (id {wanted}) is not open.", "seat")
    if chosen == -4:
        raise Conflict("already_seated", "You already hold a seat at this table.")
    if chosen == -5:
        raise Conflict("seat_kept_for_you", "A seat is kept for you here: take it.", "seat")
