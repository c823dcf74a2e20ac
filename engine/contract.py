"""The contract between a game and the rest of cardtrail.

A game is a decider (`decide(state, command) -> events`, `evolve(state, event) -> state`)
plus what the table, the service, the bots and the replays need to know about it: its
options and pack, its legal moves, what each seat may see, a sentence per event and
its bots. Subclass `Game` and declare only what differs from the defaults here; the
registry (`engine.games`) finds the subclass's instance through an entry point.

The code outside a game reads a small shared vocabulary of its states and events:
`GameState` below, and the typed events in `engine.events`. Everything else a game
keeps to itself.
"""

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from engine import codec, rating
from engine.errors import NoHandDealt
from engine.events import EVENT_VERSION, as_game_ended
from engine.options import recorded_options

Event = dict[str, Any]
Command = dict[str, Any]
View = dict[str, Any]

# A bot: one seat's view, its memory of the hand (see `engine.bots.hand_memory`) and an
# explicit random generator in; the command it plays out. Bots never see a state.
Bot = Callable[[View, list[Event], random.Random], Command]


class GameOptions(Protocol):
    """Resolved options: every field set, recorded in the game's first event."""

    @property
    def first_dealer(self) -> int | None: ...

    def as_dict(self) -> dict[str, Any]: ...


class HandInPlay(Protocol):
    """What the table reads of the current hand."""

    @property
    def number(self) -> int: ...

    @property
    def dealer(self) -> int: ...

    @property
    def turn(self) -> int: ...


class GameState(Protocol):
    """What the table reads of any game's state (each game's state has more).

    `status` is "dealing" (a hand is due), "playing" or "finished"; `hand` is None
    only before the first deal.
    """

    @property
    def options(self) -> Any: ...

    @property
    def players(self) -> int: ...

    @property
    def first_dealer(self) -> int: ...

    @property
    def status(self) -> str: ...

    @property
    def hands_played(self) -> int: ...

    @property
    def hand(self) -> Any: ...

    @property
    def result(self) -> Mapping[str, Any] | None: ...


H = TypeVar("H")


class DealtHand(Generic[H]):
    """For a game's state class: `dealt_hand`, the hand a command or a legal move needs.

    A state's `hand` is None only until the first deal, and it stays the stored field
    (snapshots keep it, `engine.frozen` copies it). Nearly every reader runs where a deal
    is already guaranteed: a command past `table.dispatch`'s status check, a legal move
    while a hand is in play. Reading the hand through `dealt_hand` states that guarantee
    once, so the type checker sees a hand, and a broken guarantee is the table's own
    refusal rather than an AttributeError on None. Code that really runs before the deal
    (views of a new game) reads `hand` and checks for None itself; so do the evolvers,
    inline, because a fold runs them for every event.
    """

    hand: H | None

    @property
    def dealt_hand(self) -> H:
        """The hand in play, or the last one once it is over; NoHandDealt before the first."""
        hand = self.hand
        if hand is None:
            raise NoHandDealt()
        return hand


S = TypeVar("S", bound=GameState)
Opts = TypeVar("Opts", bound=GameOptions)

# The kinds of field a command or a view may carry beyond the generic ones, so that the
# service can describe and validate them without knowing the game. Kinds: "card",
# "card_or_null", "cards", "card_list", "card_groups", "int", "int_or_null", "bool",
# "int_list", "cards_list", "dicts", "dict_or_null", "str", "str_or_null", "list",
# "choice:a|b|…".
FieldKinds = Mapping[str, str]


class Game(Generic[S, Opts]):
    """A card game. Subclasses set the class attributes and the rules' functions
    (as `staticmethod`s of the game's own modules: the fold calls `evolve` for every
    event, so no extra call layer); the defaults fit trick and rummy games alike."""

    name: ClassVar[str]
    rules_version: ClassVar[str]  # changes whenever a state folded by older rules would differ
    title: ClassVar[str] = ""  # for people: "Rummy"; defaults to the name, capitalised
    presets: ClassVar[tuple[str, ...]]
    # each command a seat may send: its type -> the fields it carries (kinds as above)
    commands: ClassVar[Mapping[str, FieldKinds]]
    view_fields: ClassVar[FieldKinds] = {}
    bots: ClassVar[Mapping[str, Bot]] = {}
    # Options added after games were recorded, with their defaults: the first event
    # leaves them out while they hold those (engine.options.recorded_options).
    options_added_later: ClassVar[Mapping[str, Any]] = {}
    # how many seats of one game a single player (an account) may hold: one, unless a
    # game is meant to be played by one person for several seats
    seats_per_player: ClassVar[int] = 1
    event_version: ClassVar[int] = EVENT_VERSION
    # the class of the game's states (a frozen dataclass): what `decode_state` builds
    state_type: ClassVar[type]

    # -- the rules: every game defines these ------------------------------------

    def resolve_options(
        self, preset: str | None, options: Mapping[str, Any] | None, players: int
    ) -> Opts:
        """Every option resolved from the preset and the explicit ones, or InvalidOptions."""
        raise NotImplementedError

    def pack(self, options: Opts) -> tuple[str, ...]:
        """Every card of one deck, in a fixed order (the shuffle reorders it)."""
        raise NotImplementedError

    def decide(self, state: S, command: Command) -> list[Event]:
        raise NotImplementedError

    def evolve(self, state: S | None, event: Event) -> S:
        raise NotImplementedError

    def legal_moves(self, state: S, seat: int) -> list[Command]:
        raise NotImplementedError

    def view(self, state: S, seat: int | None) -> View:
        """The game as `seat` may see it (None: a spectator)."""
        raise NotImplementedError

    def reveal(self, state: S) -> View:
        """Every card face up: finished hands' replays and audits, never live play."""
        raise NotImplementedError

    def describe(self, event: Event, names: Sequence[str]) -> str:
        """One sentence for people, seats called by `names`."""
        raise NotImplementedError

    # -- defaults ---------------------------------------------------------------

    @property
    def command_types(self) -> tuple[str, ...]:
        return tuple(self.commands)

    @property
    def command_fields(self) -> dict[str, str]:
        """Every field of every command, by name (one name means one kind)."""
        pooled: dict[str, str] = {}
        for fields in self.commands.values():
            pooled.update(fields)
        return pooled

    @property
    def display_name(self) -> str:
        return self.title or self.name.capitalize()

    def created_event(
        self, options: Opts, players: int, first_dealer: int, deck_source: str
    ) -> Event:
        """The game's own part of its first event; the table adds its commitments."""
        return {
            "type": "game_created",
            "v": self.event_version,
            "game": self.name,
            "options": recorded_options(options.as_dict(), self.options_added_later),
            "players": players,
            "first_dealer": first_dealer,
            "deck_source": deck_source,
        }

    def redact(self, event: Event, seat: int | None, state: S | None = None) -> Event:
        """The event as `seat` may see it; by default every event is public."""
        return event

    def to_act(self, state: S) -> list[int]:
        """The seats that may act now (whose turn it is while a hand is in play)."""
        return [state.hand.turn] if state.status == "playing" else []

    def next_hand(self, state: S) -> int | None:
        """The number of the hand to deal, when one is due."""
        return state.hands_played + 1 if state.status == "dealing" else None

    def is_finished(self, state: S) -> bool:
        return state.status == "finished"

    def sides(self, options: Opts, players: int) -> tuple[tuple[int, ...], ...] | None:
        """Who plays together, as seats; None when every seat plays for itself."""
        return None

    def seat_name(self, seat: int, players: int) -> str:
        """What people call `seat` (0-based, as the API counts) at a table of `players`:
        the service labels bots and open seats with it ("Seat 3 (greedy bot)"), so that
        no two seats read alike. By default "Seat 1", "Seat 2"…, counted from 1 as people
        count; a game with places at the table names them (Spades: compass points)."""
        return f"Seat {seat + 1}"

    # -- ratings (engine.rating): by default one pool per game, sides as teams ----

    def rating_pools(self) -> dict[str, str]:
        """Every pool this game's games are rated in: its id (the game's name, or the name
        and a dash and more: ids are unique across games) -> a title for people."""
        return {self.name: self.display_name}

    def rating_pool(self, options: Opts, players: int) -> str:
        """The pool a game with these options and seats is rated in (one of `rating_pools`)."""
        return self.name

    def rating_teams(self, options: Opts, players: int) -> rating.Teams:
        """Who wins or loses together: the sides, or every seat for itself."""
        return self.sides(options, players) or rating.solo_teams(players)

    def rating_places(self, options: Opts, players: int, ended: Event) -> tuple[int, ...]:
        """Each team's place (`rating.places`): by default winners first, a forfeiting
        seat's team last and everyone else tied between."""
        over = as_game_ended(ended)
        teams = self.rating_teams(options, players)
        return rating.places(teams, over["winners"], over.get("forfeited"))

    def rated_outcome(self, created: Event, ended: Event) -> rating.Outcome:
        """What the game recorded by `created` (its `game_created`) and `ended` (its
        `game_ended`) says for ratings."""
        state = self.evolve(None, created)
        options, players = state.options, state.players
        return rating.Outcome(
            pool=self.rating_pool(options, players),
            teams=self.rating_teams(options, players),
            places=self.rating_places(options, players, ended),
        )

    def bot(self, level: str) -> Bot:
        """The bot of `level`; KeyError for a level this game has no bot of."""
        return self.bots[level]

    def encode_state(self, state: S) -> dict[str, Any]:
        """The state as plain JSON data (a snapshot keeps it); `decode_state` reads it back.

        CodecError for a state that is not this game's `state_type`, or holds a value
        that is not plain data."""
        if type(state) is not self.state_type:
            raise codec.CodecError(f"not a {self.state_type.__name__}: {type(state).__name__}")
        encoded: dict[str, Any] = codec.encode(state)
        return encoded

    def decode_state(self, data: Any) -> S:
        """The state `data` describes, built only from `state_type` and the classes its
        fields declare; CodecError for anything that is not exactly such a state."""
        state: S = codec.decode(self.state_type, data)
        return state

    def __repr__(self) -> str:
        return f"<game {self.name} {self.rules_version}>"
