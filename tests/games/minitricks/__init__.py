"""Minitricks: a tiny trick-taking game that lives only under tests/, to show that a new
game is one package plus one registry entry (tests/games/cardtrail_minitricks-0.1.dist-info
declares it in the entry-point group `cardtrail.games`; tests/conftest.py puts it on the path).

A 20-card pack (10 J Q K A of each suit), 2 to 4 players, `hand_size` cards each; the seat
after the dealer leads, everyone follows suit if they can, the highest card of the suit led
takes the trick and leads the next. A point a trick; after `hands` hands the highest total
wins (ties share). It has no "strong" bot: each game's levels are its own.
"""

from engine.contract import Game
from minitricks import decider, options, state
from minitricks import view as views
from minitricks.bots import BOTS
from minitricks.options import Options
from minitricks.state import MiniState


class MiniTricks(Game[MiniState, Options]):
    name = "minitricks"
    rules_version = "minitricks-1"
    title = "Minitricks"
    presets = tuple(options.PRESETS)
    commands = {"play": {"card": "card"}, "forfeit": {}}
    # kinds as the other games declare the same names (the service pools them)
    view_fields = {
        "trick": "list",
        "tricks_won": "list",
        "hand_counts": "int_list",
        "last_hand": "dict_or_null",
        "result": "dict_or_null",
    }
    bots = BOTS
    state_type = MiniState

    resolve_options = staticmethod(options.resolve)
    pack = staticmethod(decider.pack)
    decide = staticmethod(decider.decide)
    evolve = staticmethod(state.evolve)
    legal_moves = staticmethod(decider.legal_moves)
    view = staticmethod(views.view)
    redact = staticmethod(views.redact)
    reveal = staticmethod(views.reveal)
    describe = staticmethod(views.describe)


GAME = MiniTricks()
