"""Rummy as Pagat describes it, with every house rule, Block and Wrotham Rummy,
and the classic online variant."""

from engine import table
from engine.games import Game
from engine.rummy.bots import BOTS
from engine.rummy.decider import COMMAND_TYPES, created_event, decide, pack
from engine.rummy.moves import legal_moves
from engine.rummy.options import PRESETS, resolve
from engine.rummy.state import evolve
from engine.rummy.view import describe, redact, reveal, view

RULES_VERSION = "rummy-1"


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
    to_act=table.to_act,
    next_hand=table.next_hand,
    is_finished=table.is_finished,
    reveal=reveal,
    describe=describe,
    bots=BOTS,
    command_fields={
        "source": "choice:stock|discard",
        "card": "card",
        "cards": "cards",
        "meld": "int",
        "melds": "card_groups",
        "discard": "card_or_null",
    },
    view_fields={
        "stock_count": "int",
        "stock_reuses": "int",
        "discard_pile": "card_list",
        "melds": "dicts",
        "hand_counts": "int_list",
        "last_hand": "dict_or_null",
        "result": "dict_or_null",
    },
)
