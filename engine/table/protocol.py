"""The table's protocol: how every game is created, seated, dealt, played and closed.

The service records each step as one batch of events under one command, and the audit
replays the batches through these same functions:

  create  {"type": "create"}  `game_created`: the options, the first dealer (drawn from
          the server seed, so it is fixed before any client seed is chosen; or, for a
          game that follows another, the seat after that game's first dealer, recorded
          as `dealer_after`), the commitment SHA-256(server seed) and the clock. When
          every seat is filled at once, `seat` follows in the same batch.
  start   {"type": "start"}   `seat`: `players_seated` with every client seed and who
          sits in each seat, then the first deal from the deal key (server seed +
          client seeds).
  a move  {…, "seat": n}      `move`: the game's events, every deal that falls due and,
          when the game is over, `seed_revealed`.
  abandon {"type": "abandon"} `abandon`: `game_abandoned` (a table whose open seats
          stayed empty too long), then `seed_revealed`: no card was dealt, so the seed
          may be shown. Only a game not yet seated may be abandoned.
A clocked table adds `turn_started` to any batch that begins a turn
(`engine.table.clock.clocked`), and a time-out opens its batch with `turn_timed_out`.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, cast

from engine import ledger
from engine.contract import Command, Event, Game
from engine.errors import IllegalMove
from engine.events import (
    ClockSettings,
    GameAbandoned,
    PlayersSeated,
    SeatIdentity,
    SeedRevealed,
    plain,
)
from engine.shuffle import seed_key
from engine.table.clock import as_options, split_options
from engine.table.dealing import deal_command, dealer_for, play
from engine.table.folding import fold

AnyGame = Game[Any, Any]

CREATE = {"type": "create"}
START = {"type": "start"}
ABANDON = {"type": "abandon"}
SEED_SOURCES = ("server", "client")


@dataclass(frozen=True)
class Seeds:
    """What the deals come from: the server's secret seed, each seat's client seed, and
    how they are put together (`ledger.deal_key`'s encoding, recorded as the `v` of
    `players_seated`)."""

    server: str
    clients: tuple[str | None, ...] = ()
    encoding: int = ledger.DEAL_KEY_VERSION

    @cached_property
    def deal_key(self) -> bytes:
        return ledger.deal_key(self.server, self.clients, self.encoding)


@dataclass(frozen=True)
class Setup:
    """A table before its first event: the game, its resolved options, seats and clock."""

    game: AnyGame
    options: Any
    players: int
    clock: ClockSettings | None = None


@dataclass(frozen=True)
class Step:
    """What one step of the protocol made: the state after it and its events, in order."""

    state: Any
    events: list[Event]


def setup(
    game: AnyGame, preset: str | None, options: Mapping[str, Any] | None, players: int
) -> Setup:
    """The game's options resolved and the clock split off; InvalidOptions names a field."""
    own, clock = split_options(game, options)
    return Setup(game, game.resolve_options(preset, own, players), players, clock)


def recorded_setup(game: AnyGame, created: Event) -> Setup:
    """The table setup a recorded creation holds: its options, seats and clock, read back
    as they were given (the audit re-creates a game from it, a rematch copies it)."""
    players = created["players"]
    options = dict(created["options"])
    if "clock" in created:  # a table option, recorded parsed: read back as given
        options.update(as_options(created["clock"]))
    return setup(game, None, options, players)


def rematch_setup(game: AnyGame, created: Event) -> Setup:
    """The setup of a game that follows a recorded one: the same options and clock, but
    no chosen first dealer (the deal passes on: `create`'s `dealer_after`). The option is
    unset rather than left out: a complete record is read as recorded, a partial one as
    a player's request (which would judge the recorded options again)."""
    options = dict(created["options"])
    if "first_dealer" in options:
        options["first_dealer"] = None
    return recorded_setup(game, {**created, "options": options})


Identities = Sequence[Mapping[str, object]]


def identities(seats: Identities, players: int) -> list[SeatIdentity]:
    """One plain identity per seat, only the fields an identity has (`SeatIdentity`);
    ValueError for a list that is not one per seat or holds anything else."""
    if len(seats) != players:
        raise ValueError(f"{len(seats)} seat identities for {players} seats")
    made: list[SeatIdentity] = []
    for seat in seats:
        if not seat or set(seat) - set(SeatIdentity.__annotations__):
            raise ValueError(f"a seat identity is player, name and bot only, not {dict(seat)!r}")
        if not all(isinstance(value, str) for value in seat.values()):
            raise ValueError(f"a seat identity holds text only, not {dict(seat)!r}")
        made.append(cast(SeatIdentity, dict(seat)))
    return made


def players_seated(
    client_seeds: Sequence[str | None],
    encoding: int = ledger.DEAL_KEY_VERSION,
    seats: Identities | None = None,
) -> Event:
    """Every seat filled; `v` is the deal key's encoding (`ledger.deal_key`), `seats` who
    sits where (left out when not given, as in logs from before it was recorded)."""
    event: PlayersSeated = {
        "type": "players_seated",
        "v": encoding,
        "client_seeds": list(client_seeds),
    }
    if seats is not None:
        event["seats"] = identities(seats, len(client_seeds))
    return plain(event)


def seed_revealed(server_seed: str) -> Event:
    event: SeedRevealed = {"type": "seed_revealed", "v": 1, "server_seed": server_seed}
    return plain(event)


def create(
    table: Setup,
    server_seed: str,
    deck_source: str = "seed",
    seed_source: str | None = "server",
    dealer_after: int | None = None,
) -> Step:
    """The game's first event, committing to the server seed.

    `seed_source` says who chose that seed: "server" (drawn by the server, secret until
    the end: the only provably fair kind) or "client" (given by whoever created the game,
    which only a testing server accepts; such a game is not provably fair). None writes
    no such field, as games created before it existed (the audit replays those).
    `dealer_after`, for a game that follows another (a rematch), is that game's first
    dealer: this one's is the next seat, so the deal passes on from game to game."""
    if seed_source is not None and seed_source not in SEED_SOURCES:
        raise ValueError(f"unknown seed source {seed_source!r}")
    game = table.game
    dealer = dealer_for(table.options, seed_key(server_seed), table.players, dealer_after)
    created = game.created_event(table.options, table.players, dealer, deck_source)
    if dealer_after is not None:
        created["dealer_after"] = dealer_after
    created["seed_commitment"] = ledger.commitment(server_seed)
    if seed_source is not None:
        created["seed_source"] = seed_source
    if table.clock:
        created["clock"] = dict(table.clock)
    return Step(game.evolve(None, created), [created])


def seat(
    game: AnyGame,
    state: Any,
    seeds: Seeds,
    deck: Sequence[str] | None = None,
    seats: Identities | None = None,
) -> Step:
    """Every seat is filled: record the client seeds and who sits where (`seats`, one
    identity per seat: see `engine.events.SeatIdentity`), then deal the first hand.

    `deck` replaces the shuffled deck (tests only: the game says `deck_source:
    "explicit"`); IllegalMove("invalid_deck") when it is not the game's pack.
    """
    command: Command = deal_command(game, state, seeds.deal_key)
    if deck is not None:
        command["deck"] = list(deck)
    dealt = game.decide(state, command)
    seated = players_seated(seeds.clients, seeds.encoding, seats)
    return Step(fold(game, dealt, state), [seated, *dealt])


def move(game: AnyGame, state: Any, command: Command, seeds: Seeds) -> Step:
    """A seat's command, the deals that fall due and, once the game is over, the seed."""
    after, events = play(game, state, command, seeds.deal_key)
    if game.is_finished(after):
        events = [*events, seed_revealed(seeds.server)]
    return Step(after, events)


def game_abandoned(now: float) -> Event:
    event: GameAbandoned = {"type": "game_abandoned", "v": 1, "at": round(now, 3)}
    return plain(event)


def abandon(game: AnyGame, state: Any, server_seed: str, now: float) -> Step:
    """A table that waited too long for its open seats closes at `now`: `game_abandoned`,
    then the seed (no card was dealt from it, so showing it gives nothing away).

    IllegalMove("game_started") once the players were seated: their first hand is dealt
    in the same batch as the seating, so a dealt hand is what tells a seated game.
    """
    if state.hand is not None or state.hands_played or game.is_finished(state):
        raise IllegalMove("game_started", "Only a game still waiting for its players is abandoned.")
    return Step(state, [game_abandoned(now), seed_revealed(server_seed)])
