"""Running a game without I/O: start it, apply commands, deal when a deal is due.

Dealing needs randomness the state does not hold: each deck comes from the
game's seed key (see `engine.shuffle`), so the application passes that key in.
The service, the workers, `simulate` and the tests all go through here, so a
game is played the same way everywhere.
"""

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine import games
from engine.errors import IllegalMove, InvalidOptions
from engine.games import Event, Game, State
from engine.shuffle import KeyedStream, derive_hex, seed_key, shuffle

__all__ = ["deal_command", "describe", "fold", "new_game", "play", "seed_key"]


# Events of the table rather than of a game's rules: who sat down with which client
# seed, the revealed server seed, and turn clocks. Every game's fold passes over them.
TABLE_EVENTS = frozenset({"players_seated", "seed_revealed", "turn_started", "turn_timed_out"})
CLOCK_EVENTS = frozenset({"turn_started", "turn_timed_out"})


def evolve(game: Game, state: State, event: Event) -> State:
    return state if event["type"] in TABLE_EVENTS else game.evolve(state, event)


def fold(game: Game, events: Iterable[Event], state: State = None) -> State:
    game_evolve = game.evolve
    for event in events:
        if event["type"] not in TABLE_EVENTS:
            state = game_evolve(state, event)
    return state


def redact(game: Game, event: Event, seat: int | None, state: State) -> Event:
    """An event as `seat` may see it; table events are public."""
    return event if event["type"] in TABLE_EVENTS else game.redact(event, seat, state)


def describe(game: Game, event: Event, names: list[str]) -> str:
    """One sentence for any event of a game, table events included."""
    kind = event["type"]
    if kind not in TABLE_EVENTS:
        return game.describe(event, names)
    seat = event.get("seat")
    who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
    if kind == "players_seated":
        return "Every seat is taken."
    if kind == "seed_revealed":
        return "The server's seed was revealed: every deal can now be audited."
    if kind == "turn_started":
        return f"{who}'s turn began; the clock is running."
    if event.get("action") == "forfeit":
        return f"{who} ran out of time and forfeits."
    return f"{who} ran out of time; a bot moves for them."


def players_seated(client_seeds: Sequence[str | None]) -> Event:
    return {"type": "players_seated", "v": 1, "client_seeds": list(client_seeds)}


def seed_revealed(server_seed: str) -> Event:
    return {"type": "seed_revealed", "v": 1, "server_seed": server_seed}


def deal_command(game: Game, state: State, key: bytes) -> dict[str, Any]:
    number = game.next_hand(state)
    deck = shuffle(game.pack(state.options), key, f"deal:{number}")
    return {
        "type": "deal",
        "deck": list(deck),
        "shuffle_key": derive_hex(key, f"reshuffle:{number}"),
    }


def dispatch(
    state: State,
    command: Any,
    handlers: dict[str, Callable[[State, dict[str, Any]], list[Event]]],
    title: str,
    any_time: tuple[str, ...] = ("forfeit",),
) -> list[Event]:
    """The checks every card game's `decide` starts with, then the command's handler.

    A deal needs no seat; every other command needs a seat at the table, a hand in
    play and — unless it is one of `any_time` (a forfeit, a look at one's cards) — the
    seat's turn. The state must carry `status`, `players` and `hand.turn`.
    """
    kind = command.get("type") if isinstance(command, dict) else None
    handler = handlers.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise IllegalMove("unknown_command", f"There is no move called {kind!r} in {title}.")
    if kind == "deal":
        return handler(state, command)
    if state.status == "finished":
        raise IllegalMove("game_over", "The game is over.")
    if state.status != "playing":
        raise IllegalMove("hand_not_dealt", "The cards have not been dealt yet.")
    seat = command.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.players:
        raise IllegalMove("unknown_seat", "That seat is not at this table.")
    if kind not in any_time and state.hand.turn != seat:
        raise IllegalMove("not_your_turn", f"It is seat {state.hand.turn}'s turn, not yours.")
    return handler(state, command)


def to_act(state: State) -> list[int]:
    """The seat whose turn it is, while a hand is in play (state: `status`, `hand.turn`)."""
    return [state.hand.turn] if state.status == "playing" else []


def next_hand(state: State) -> int | None:
    """The number of the hand to deal, when one is due (state: `status`, `hands_played`)."""
    return state.hands_played + 1 if state.status == "dealing" else None


def is_finished(state: State) -> bool:
    return state.status == "finished"


def dealt_event(state: State, command: dict[str, Any], pack: Sequence[str], version: int) -> Event:
    """The `hand_dealt` event for a deal command, once its deck and key are checked.

    Shared by every game's decider: the state must be between hands and carry
    `status`, `hands_played`, `first_dealer` and `players`; the dealer rotates left.
    """
    if state.status != "dealing":
        raise IllegalMove("not_time_to_deal", "A hand is in play; the next deal comes after it.")
    deck = command.get("deck")
    if (
        not isinstance(deck, list)
        or not all(isinstance(card, str) for card in deck)
        or Counter(deck) != Counter(pack)
    ):
        raise IllegalMove("invalid_deck", "The deck must be exactly this game's pack, reordered.")
    shuffle_key = command.get("shuffle_key")
    if not isinstance(shuffle_key, str) or not shuffle_key:
        raise IllegalMove("invalid_deck", "A deal needs its shuffle key.")
    number = state.hands_played + 1
    return {
        "type": "hand_dealt",
        "v": version,
        "hand": number,
        "dealer": (state.first_dealer + number - 1) % state.players,
        "deck": list(deck),
        "shuffle_key": shuffle_key,
    }


def first_dealer(key: bytes, players: int) -> int:
    return KeyedStream(key, "first_dealer").uniform(players)


def new_game(
    name: str,
    players: int,
    key: bytes,
    preset: str | None = None,
    options: dict[str, Any] | None = None,
    deck: Sequence[str] | None = None,
) -> tuple[State, list[Event]]:
    """Create a game and deal its first hand (from `deck` when given, else from the key)."""
    game = games.get(name)
    resolved = game.resolve_options(preset, options, players)
    dealer = resolved.first_dealer
    if dealer is None:
        dealer = first_dealer(key, players)
    created = game.created_event(resolved, players, dealer, "seed" if deck is None else "explicit")
    state = game.evolve(None, created)
    if deck is None:
        command = deal_command(game, state, key)
    else:
        command = {
            "type": "deal",
            "deck": list(deck),
            "shuffle_key": derive_hex(key, "reshuffle:1"),
        }
    try:
        dealt = game.decide(state, command)
    except IllegalMove as error:
        raise InvalidOptions("deck", error.message) from None
    return fold(game, dealt, state), [created, *dealt]


def play(
    game: Game, state: State, command: dict[str, Any], key: bytes
) -> tuple[State, list[Event]]:
    """Decide a command, then deal any hand that is due; returns the new state and events."""
    events = game.decide(state, command)
    state = fold(game, events, state)
    while game.next_hand(state) is not None and not game.is_finished(state):
        dealt = game.decide(state, deal_command(game, state, key))
        state = fold(game, dealt, state)
        events = events + dealt
    return state, events
