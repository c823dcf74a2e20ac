"""A finished game as the ratings see it, read from its log alone.

Everything comes from the game's event stream, so the ratings can be rebuilt from the
streams and nothing else: the game and its options (`game_created`, from which the game
itself decides the pool, the teams and the places: `engine.rating`), who sat in each seat
(`players_seated.seats`: an account, a bot or an anonymous name), the result
(`game_ended`, a forfeit or a forfeiting time-out included) and when the last batch was
recorded (the `t` the store writes with each batch's command): the order games are rated
in is that time, ties broken by the game's id.

Who is rated: accounts (their player id) and bots (`bot:<game>:<level>`, "strong bot").
An anonymous seat is nobody to rate: it takes part at the starting rating and nothing is
kept for it. A game counts only when rated identities sit on at least two different
teams, so nobody gains from beating seats they hold themselves without an account.
Abandoned games never reach `game_ended` and never count; logs from before seats were
recorded have no rated identities.
"""

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from engine import games
from engine.errors import InvalidOptions
from engine.events import GAME_CREATED, GAME_ENDED, PLAYERS_SEATED
from service.store import EventStore, Record

BOT = "bot:"
Teams = tuple[tuple[str | None, ...], ...]


@dataclass(frozen=True)
class RatedGame:
    """One finished game's part in a pool's ratings: its teams of identities (None for an
    anonymous seat), each team's place, when it ended, and its players' names then."""

    game_id: str
    pool: str
    at: tuple[int, int]  # when its last batch was recorded: (seconds, microseconds)
    teams: Teams
    places: tuple[int, ...]
    names: dict[str, str]

    @property
    def order(self) -> tuple[int, int, str]:
        """Where the game comes among the pool's: by the time it ended, then by id."""
        return (self.at[0], self.at[1], self.game_id)

    @property
    def score(self) -> float:
        """The order as a sorted-set score (exact to the microsecond; ties sort by id)."""
        return self.at[0] + self.at[1] / 1_000_000

    def to_json(self) -> str:
        return json.dumps(
            {
                "pool": self.pool,
                "at": list(self.at),
                "teams": [list(team) for team in self.teams],
                "places": list(self.places),
                "names": self.names,
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, game_id: str, text: str | bytes) -> "RatedGame":
        data = json.loads(text)
        return cls(
            game_id=game_id,
            pool=data["pool"],
            at=(data["at"][0], data["at"][1]),
            teams=tuple(tuple(team) for team in data["teams"]),
            places=tuple(data["places"]),
            names=data["names"],
        )


def read(store: EventStore, game_id: str) -> RatedGame | None:
    """The game as rated, or None when it does not count (not over, abandoned, not a
    registered game, or without rated identities on two teams)."""
    closing = _closing(store, game_id)
    if closing is None:
        return None
    ended, at = closing
    created, seated = _opening(store, game_id)
    if created is None or seated is None:
        return None
    try:
        game = games.get(created["game"])
    except InvalidOptions:
        return None
    outcome = game.rated_outcome(created, ended)
    if outcome.pool not in game.rating_pools():
        raise ValueError(f"{game.name} rates in {outcome.pool!r}, not one of its pools")
    seats = identities(game.name, seated)
    teams = tuple(tuple(_id(seats[seat]) for seat in team) for team in outcome.teams)
    rated = {entrant for team in teams for entrant in team if entrant is not None}
    if len(rated) < 2 or sum(1 for team in teams if any(team)) < 2:
        return None
    names = {seat[0]: seat[1] for seat in seats if seat is not None}
    return RatedGame(game_id, outcome.pool, at, teams, outcome.places, names)


def identities(game: str, seated: dict[str, Any]) -> list[tuple[str, str] | None]:
    """Each seat's (identity, display name), None for an anonymous seat: from the seats
    `players_seated` records; a log from before they were recorded has only anonymous
    seats (nobody had an account then)."""
    recorded = seated.get("seats")
    if not isinstance(recorded, list):
        return [None] * len(seated.get("client_seeds", ()))
    return [_identity(game, seat) for seat in recorded]


def _identity(game: str, seat: Any) -> tuple[str, str] | None:
    if not isinstance(seat, dict):
        return None
    if seat.get("player"):
        return str(seat["player"]), str(seat.get("name") or seat["player"])
    if seat.get("bot"):
        return f"{BOT}{game}:{seat['bot']}", f"{seat['bot']} bot"
    return None


def _id(seat: tuple[str, str] | None) -> str | None:
    return seat[0] if seat is not None else None


def _opening(store: EventStore, game_id: str) -> tuple[dict[str, Any] | None, ...]:
    """(`game_created`, `players_seated`): the first event, and the one that opens the
    batch seating everyone (the second: nothing happens at a table before it fills)."""
    found: dict[str, dict[str, Any]] = {}
    for record in store.records(game_id, upto=4):
        found.setdefault(record.event["type"], record.event)
    return found.get(GAME_CREATED), found.get(PLAYERS_SEATED)


def _closing(store: EventStore, game_id: str) -> tuple[dict[str, Any], tuple[int, int]] | None:
    """(`game_ended`, when its batch was recorded), or None while the game is not over."""
    newest: Iterator[Record] = store.newest_records(game_id)
    ended = None
    for record in newest:
        if record.event["type"] == GAME_ENDED:
            ended = record.event
        if ended is not None and record.command is not None:
            return ended, _moment(record.at)
        if ended is None and record.event["type"] not in _AFTER_THE_END:
            return None
    return None


_AFTER_THE_END = frozenset({"seed_revealed", GAME_ENDED})


def _moment(text: str) -> tuple[int, int]:
    """(seconds, microseconds) of a recorded "<s>.<µs>"; (0, 0) when none was recorded."""
    seconds, _, micros = text.partition(".")
    return (int(seconds), int(micros)) if seconds.isdigit() and micros.isdigit() else (0, 0)


def ordered(rated: Sequence[RatedGame]) -> list[RatedGame]:
    return sorted(rated, key=lambda game: game.order)
