"""A table's records: who sits where (`Seat`), the server's secrets and the game's status
(`Table`), as plain values. `service.tables` keeps them in Redis.

A seat is a person (a name and a seat token; bound to an account when `player` is set),
a bot, an open seat anyone may take, or a seat reserved for one account (an invitation,
a rematch): `reserved`, with that player's id and name, until they take it. Each seat has
a `label` for people, the same in the answers and the sentences (`Seat.label`).
"""

import hmac
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

from engine import games, ledger
from engine.events import ClockSettings, SeatIdentity
from engine.table import Seeds
from service.errors import Refused

Status = Literal["waiting", "playing", "finished", "abandoned"]
STATUSES: tuple[Status, ...] = ("waiting", "playing", "finished", "abandoned")


@dataclass(frozen=True)
class Webhook:
    url: str
    secret: str


@dataclass(frozen=True)
class Seat:
    number: int
    name: str | None = None  # a person's (an account's display name when `player` is set)
    bot: str | None = None  # a bot's level
    token_digest: str | None = None
    client_seed: str | None = None
    webhook: Webhook | None = None
    player: str | None = None  # the account bound to the seat, or the one it is reserved for
    reserved: bool = False  # kept for `player` until they take it

    @property
    def is_open(self) -> bool:
        """Anyone may take it (a reserved seat is not open: only its player may)."""
        return self.name is None and self.bot is None and not self.reserved

    @property
    def is_empty(self) -> bool:
        """Nobody sits here yet: open, or reserved for a player who has not come."""
        return self.is_open or self.reserved

    @property
    def bound_to(self) -> str | None:
        """The account that acts for this seat (not one it only waits for)."""
        return None if self.reserved else self.player

    def public(self, position: str) -> dict[str, Any]:
        """The seat as anyone may see it: number, who sits there (or is awaited) and its
        `label`. `position` is the game's name for the seat (`Game.seat_name`)."""
        if self.reserved:
            seen: dict[str, Any] = {
                "seat": self.number,
                "invited": self.name,
                "player": self.player,
            }
        elif self.name is not None:
            seen = {"seat": self.number, "name": self.name}
            if self.player:
                seen["player"] = self.player
        elif self.bot is not None:
            seen = {"seat": self.number, "bot": self.bot}
        else:
            seen = {"seat": self.number, "open": True}
        return {**seen, "label": self.label(position)}

    def label(self, position: str) -> str:
        """What a person reads for this seat, alike in the seats, the sentences and the
        sides: a person's own name; else the game's name for the seat (`position`) and
        who is there, so that three bots of one level still read apart:
        "West (strong bot)", "Seat 3 (greedy bot)", "Seat 2 (open)", "bob (invited)"."""
        if self.reserved:
            return f"{self.name or position} (invited)"
        if self.name is not None:
            return self.name
        if self.bot is not None:
            return f"{position} ({self.bot} bot)"
        return f"{position} (open)"

    def identity(self) -> SeatIdentity:
        """Who sits here, as the log records it (`engine.events.SeatIdentity`)."""
        if self.bot is not None:
            return {"bot": self.bot}
        if self.player is not None and self.name is not None:
            return {"player": self.player, "name": self.name}
        return {"name": self.name or f"seat {self.number}"}


@dataclass(frozen=True)
class Tombstone:
    """Where a sealed game's log went (`service.sealing`): the archive store's kind and
    location, the object's digest (checked on every read), and the log's length and chain
    head, so the game's version and hash are known without reading the archive."""

    store: str
    location: str
    digest: str
    version: int
    head: str

    FIELDS = ("store", "location", "digest", "version", "head")

    def fields(self) -> dict[str, str]:
        """As the table's hash keeps it: one short field each (`archive:<name>`), so a
        small hash stays in Redis's compact encoding (values of at most 64 bytes)."""
        return {f"archive:{name}": str(getattr(self, name)) for name in self.FIELDS}

    @classmethod
    def of(cls, meta: dict[str, str]) -> "Tombstone | None":
        if "archive:digest" not in meta:
            return None
        found = {name: meta[f"archive:{name}"] for name in cls.FIELDS}
        return cls(
            found["store"], found["location"], found["digest"], int(found["version"]), found["head"]
        )


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
    rematch_of: str | None = None  # the game this one is the rematch of
    rematch: str | None = None  # the game offered as this one's rematch
    archive: Tombstone | None = None  # once sealed: where its log is kept

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

    def positions(self) -> list[str]:
        """The game's name for each seat (`Game.seat_name`): "Seat 1", or a place."""
        game = games.get(self.game)
        return [game.seat_name(number, self.players) for number in range(self.players)]

    def names(self) -> list[str]:
        """Each seat's label (`Seat.label`): what the sentences call it."""
        return [seat.label(at) for seat, at in zip(self.seats, self.positions(), strict=True)]

    def public_seats(self) -> list[dict[str, Any]]:
        """Every seat as anyone may see it, labelled."""
        return [seat.public(at) for seat, at in zip(self.seats, self.positions(), strict=True)]

    def identities(self) -> list[SeatIdentity] | None:
        """Who sits in each seat, for the log; None while a seat is still empty."""
        if any(seat.is_empty for seat in self.seats):
            return None
        return [seat.identity() for seat in self.seats]

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

    def seats_of(self, player: str) -> list[int]:
        """The seats an account acts for here (bound, not merely reserved)."""
        return [seat.number for seat in self.seats if seat.bound_to == player]

    def players_here(self) -> set[str]:
        """Every account seated or awaited at this table."""
        return {seat.player for seat in self.seats if seat.player is not None}

    def with_status(self, status: Status) -> "Table":
        return replace(self, status=status)


def refuse_unknown_seat(table: Table, seat: int | None) -> None:
    if seat is not None and not 0 <= seat < table.players:
        raise Refused("unknown_seat", "That seat is not at this table.", "seat")
