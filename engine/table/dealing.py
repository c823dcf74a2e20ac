"""Dealing from a key, and playing a command with every deal that falls due.

Dealing needs randomness the state does not hold: each deck comes from a key (see
`engine.shuffle`; at a real table the key mixes the server's and the players' seeds,
`engine.table.protocol`). Deals are system commands that carry their deck, so a
state never holds a seed. `new_game` and `play` are the table without commitments,
which in-process matches, benchmarks and tests use; the protocol builds on them.
"""

from collections.abc import Sequence
from typing import Any

from engine import games
from engine.contract import Command, Event, Game
from engine.errors import IllegalMove, InvalidOptions
from engine.shuffle import KeyedStream, derive_hex, shuffle
from engine.table.folding import fold

AnyGame = Game[Any, Any]


def deal_command(game: AnyGame, state: Any, key: bytes) -> Command:
    """The deal of the hand now due, its deck shuffled from `key`."""
    number = game.next_hand(state)
    deck = shuffle(game.pack(state.options), key, f"deal:{number}")
    return {
        "type": "deal",
        "deck": list(deck),
        "shuffle_key": derive_hex(key, f"reshuffle:{number}"),
    }


def explicit_deal(key: bytes, deck: Sequence[str]) -> Command:
    """The first deal from a given deck (tests only; the log says so)."""
    return {"type": "deal", "deck": list(deck), "shuffle_key": derive_hex(key, "reshuffle:1")}


def first_dealer(key: bytes, players: int) -> int:
    return KeyedStream(key, "first_dealer").uniform(players)


def dealer_for(options: Any, key: bytes, players: int, after: int | None = None) -> int:
    """The seat after `after` (a game that follows another: the deal passes on from that
    game's first dealer), else the options' first dealer, else one drawn from `key`."""
    if after is not None:
        if not 0 <= after < players:
            raise ValueError(f"the dealer to follow, {after}, is not a seat of {players}")
        return (after + 1) % players
    chosen: int | None = getattr(options, "first_dealer", None)
    return first_dealer(key, players) if chosen is None else chosen


def new_game(
    name: str,
    players: int,
    key: bytes,
    preset: str | None = None,
    options: dict[str, Any] | None = None,
    deck: Sequence[str] | None = None,
) -> tuple[Any, list[Event]]:
    """Create a game and deal its first hand (from `deck` when given, else from the key)."""
    game = games.get(name)
    resolved = game.resolve_options(preset, options, players)
    dealer = dealer_for(resolved, key, players)
    created = game.created_event(resolved, players, dealer, "seed" if deck is None else "explicit")
    state = game.evolve(None, created)
    command = deal_command(game, state, key) if deck is None else explicit_deal(key, deck)
    try:
        dealt = game.decide(state, command)
    except IllegalMove as error:
        raise InvalidOptions("deck", error.message) from None
    return fold(game, dealt, state), [created, *dealt]


def play(game: AnyGame, state: Any, command: Command, key: bytes) -> tuple[Any, list[Event]]:
    """Decide a command, then deal any hand that is due; returns the new state and events."""
    events = game.decide(state, command)
    state = fold(game, events, state)
    while game.next_hand(state) is not None and not game.is_finished(state):
        dealt = game.decide(state, deal_command(game, state, key))
        state = fold(game, dealt, state)
        events = events + dealt
    return state, events
