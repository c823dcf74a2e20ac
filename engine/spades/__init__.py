"""Spades in every mode the sources give (Pairs, Solo, Suicide, Whiz, Mirror), with nil,
blind nil and blind bids, bags, and the variations: Spades for three, Bauer trumps,
deuces high, jokers high and Boston. docs/spades.md has the rules and choices."""

from engine import table
from engine.games import Game
from engine.spades.bots import BOTS
from engine.spades.decider import COMMAND_TYPES, created_event, decide, pack
from engine.spades.moves import legal_moves
from engine.spades.options import PRESETS, resolve
from engine.spades.state import evolve, sides_for
from engine.spades.view import describe, redact, reveal, view

RULES_VERSION = "spades-1"


GAME = Game(
    name="spades",
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
    sides=sides_for,
    command_fields={"tricks": "int", "blind": "bool", "card": "card"},
    view_fields={
        "mode": "str",
        "sides": "list",
        "side_scores": "list",
        "bags": "list",
        "tricks_per_hand": "int",
        "bids": "list",
        "unseen": "list",
        "spades_broken": "bool",
        "trick": "list",
        "tricks": "list",
        "tricks_won": "list",
        "hand_counts": "int_list",
        "trump_order": "card_list",
        "last_hand": "dict_or_null",
        "result": "dict_or_null",
    },
)
