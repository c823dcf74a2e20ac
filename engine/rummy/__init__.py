"""Rummy as Pagat describes it, with every house rule, Block and Wrotham Rummy,
and the classic online variant."""

from engine.games import Game
from engine.rummy.bots import BOTS
from engine.rummy.decider import COMMAND_TYPES, created_event, decide, pack
from engine.rummy.moves import legal_moves
from engine.rummy.options import PRESETS, resolve
from engine.rummy.state import RummyState, evolve
from engine.rummy.view import describe, redact, reveal, view

RULES_VERSION = "rummy-1"


def _to_act(state: RummyState) -> list[int]:
    if state.status != "playing":
        return []
    return [state.hand.turn]


def _next_hand(state: RummyState) -> int | None:
    return state.hands_played + 1 if state.status == "dealing" else None


GAME = Game(
    name="rummy",
    rules_version=RULES_VERSION,
    presets=tuple(PRESETS),
    command_types=COMMAND_TYPES,
    resolve_options=resolve,
    pack=pack,
    created_event=created_event,
    decide=decide,
    evolve=evolve,
    legal_moves=legal_moves,
    view=view,
    redact=redact,
    to_act=_to_act,
    next_hand=_next_hand,
    is_finished=lambda state: state.status == "finished",
    reveal=reveal,
    describe=describe,
    bots=BOTS,
)
