"""The checks every game's `decide` starts with, and the deal every game records alike.

A game's decider calls `dispatch` with its handlers, and `dealt_event` when it is asked
to deal; the rest of each command is the game's own business.
"""

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from engine.contract import Command, Event, GameState
from engine.errors import IllegalMove

Handler = Callable[[Any, Command], list[Event]]


def dispatch(
    state: GameState,
    command: Any,
    handlers: dict[str, Handler],
    title: str,
    any_time: tuple[str, ...] = ("forfeit",),
) -> list[Event]:
    """The checks every card game's `decide` starts with, then the command's handler.

    A deal needs no seat; every other command needs a seat at the table, a hand in
    play and — unless it is one of `any_time` (a forfeit, a look at one's cards) — the
    seat's turn.
    """
    kind = command.get("type") if isinstance(command, dict) else None
    handler = handlers.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise IllegalMove("unknown_command", f"There is no move called {kind!r} in {title}.")
    if kind == "deal":
        return handler(state, command)
    if state.status == "finished":
        raise IllegalMove("game_over", "The game is over.")
    if state.status != "playing" or state.hand is None:
        raise IllegalMove("hand_not_dealt", "The cards have not been dealt yet.")
    seat = command.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.players:
        raise IllegalMove("unknown_seat", "That seat is not at this table.")
    turn = state.hand.turn
    if kind not in any_time and turn != seat:
        raise IllegalMove("not_your_turn", f"It is seat {turn + 1}'s turn, not yours.")
    return handler(state, command)


def dealt_event(state: GameState, command: Command, pack: Sequence[str], version: int) -> Event:
    """The `hand_dealt` event for a deal command, once its deck and key are checked.

    The state must be between hands; the dealer rotates left from the first dealer.
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
