"""The events every part of cardtrail reads, whatever the game: their names and fields.

Events are plain JSON objects (`{"type": …, "v": …, …}`) so that they hash, store and
export as they are; these TypedDicts only say which fields code outside a game may rely
on. A game's own events (a draw, a bid, a trick) are its business and are not listed.

Game events (made by each game's decider):
  game_created  the game's options and seats, then the table's commitments (and, for a
                game that follows another, `dealer_after`: the first dealer is the seat
                after that one)
  hand_dealt    a deck in full, who dealt, the hand's number
  hand_ended    each seat's points this hand (`deltas`) and totals (`scores`)
  game_ended    the winning seats (`winners`) and the final `scores`
Table events (made by `engine.table`, the same for every game; folds pass over them):
  players_seated  every seat filled, with the client seeds that go into the deal key and
                  who sits in each seat (`seats`: plain identities the service gives)
  seed_revealed   the server seed, once the game is over (or abandoned)
  game_abandoned  a waiting game nobody filled in time, closed before any card was dealt
  turn_started    a clocked turn began (when, and its deadline)
  turn_timed_out  a clocked turn ran out (and what the table did about it)
"""

from typing import Any, Literal, NotRequired, TypedDict, cast

EVENT_VERSION = 1

GAME_CREATED = "game_created"
HAND_DEALT = "hand_dealt"
HAND_ENDED = "hand_ended"
GAME_ENDED = "game_ended"
PLAYERS_SEATED = "players_seated"
SEED_REVEALED = "seed_revealed"
TURN_STARTED = "turn_started"
TURN_TIMED_OUT = "turn_timed_out"
GAME_ABANDONED = "game_abandoned"

CLOCK_EVENTS = frozenset({TURN_STARTED, TURN_TIMED_OUT})
TABLE_EVENTS = frozenset({PLAYERS_SEATED, SEED_REVEALED, GAME_ABANDONED}) | CLOCK_EVENTS
# The events that close a hand: a game can end inside one (a forfeit).
HAND_CLOSERS = frozenset({HAND_ENDED, GAME_ENDED})


class ClockSettings(TypedDict):
    """A turn clock, as recorded in `game_created` (see `engine.table.clock`)."""

    move_time: str
    seconds: int
    on_timeout: Literal["bot", "forfeit"]
    timeout_bot: str


class GameCreated(TypedDict):
    type: Literal["game_created"]
    v: int
    game: str
    options: dict[str, Any]
    players: int
    first_dealer: int
    deck_source: str  # "seed" (dealt from the seeds) | "explicit" (a test's deck)
    seed_commitment: NotRequired[str]
    # who chose the server seed: "server" | "client" (testing only: not provably fair);
    # games created before it was recorded lack it
    seed_source: NotRequired[str]
    clock: NotRequired[ClockSettings]
    # a game that follows another (a rematch): the first dealer is the seat after this
    # one, the other game's first dealer; games without it drew or chose theirs
    dealer_after: NotRequired[int]


class HandDealt(TypedDict):
    type: Literal["hand_dealt"]
    v: int
    hand: int
    dealer: int
    deck: list[str]
    shuffle_key: str


class HandEnded(TypedDict):
    type: Literal["hand_ended"]
    v: int
    hand: int
    deltas: list[int]  # each seat's points this hand
    scores: list[int]  # each seat's total after it


class GameEnded(TypedDict):
    type: Literal["game_ended"]
    v: int
    winners: list[int]
    scores: list[int]
    hands_played: int
    forfeited: NotRequired[int]


class SeatIdentity(TypedDict, total=False):
    """Who sits in a seat, as the service tells the table: an account's `player` id and
    display `name`, a `bot`'s level, or only the `name` of a person without an account.
    Plain data: the engine knows no accounts, it records what it is given, so that
    projections of the log (ratings, a player's games) need nothing but the log."""

    player: str
    name: str
    bot: str


class PlayersSeated(TypedDict):
    type: Literal["players_seated"]
    v: int
    client_seeds: list[str | None]
    # one identity per seat; logs from before identities were recorded lack it
    seats: NotRequired[list[SeatIdentity]]


class SeedRevealed(TypedDict):
    type: Literal["seed_revealed"]
    v: int
    server_seed: str


class TurnStarted(TypedDict):
    type: Literal["turn_started"]
    v: int
    seat: int
    at: float
    deadline: float


class TurnTimedOut(TypedDict):
    type: Literal["turn_timed_out"]
    v: int
    seat: int
    at: float
    action: Literal["bot", "forfeit"]


class GameAbandoned(TypedDict):
    type: Literal["game_abandoned"]
    v: int
    at: float  # when the table gave up waiting for its open seats


# Typed readings of a plain event (events stay dicts: these only tell the type checker
# which fields the vocabulary guarantees once the type name has been checked).


def as_players_seated(event: dict[str, Any]) -> PlayersSeated:
    return cast(PlayersSeated, event)


def as_hand_ended(event: dict[str, Any]) -> HandEnded:
    return cast(HandEnded, event)


def as_game_ended(event: dict[str, Any]) -> GameEnded:
    return cast(GameEnded, event)


def as_turn_started(event: dict[str, Any]) -> TurnStarted:
    return cast(TurnStarted, event)


def as_turn_timed_out(event: dict[str, Any]) -> TurnTimedOut:
    return cast(TurnTimedOut, event)


def plain(event: Any) -> dict[str, Any]:
    """A typed event as the plain dict it is (for lists of events of every type)."""
    return cast(dict[str, Any], event)
