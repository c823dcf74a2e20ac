"""Spades in every mode the sources give (Pairs, Solo, Suicide, Whiz, Mirror), with nil,
blind nil and blind bids, bags, and the variations: Spades for three, Bauer trumps,
deuces high, jokers high and Boston. docs/spades.md has the rules and choices."""

from typing import Any

from engine import rating
from engine.contract import Game
from engine.events import as_game_ended
from engine.spades import decider, moves, options, state
from engine.spades import view as views
from engine.spades.bots import BOTS
from engine.spades.options import Options
from engine.spades.state import SpadesState


class Spades(Game[SpadesState, Options]):
    name = "spades"
    rules_version = "spades-2"
    presets = tuple(options.PRESETS)
    commands = {
        "look": {},
        "bid": {"tricks": "int", "blind": "bool"},
        "play": {"card": "card"},
        "forfeit": {},
    }
    view_fields = {
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
    }
    bots = BOTS
    options_added_later = options.ADDED_LATER
    state_type = SpadesState

    resolve_options = staticmethod(options.resolve)
    pack = staticmethod(decider.pack)
    decide = staticmethod(decider.decide)
    evolve = staticmethod(state.evolve)
    legal_moves = staticmethod(moves.legal_moves)
    view = staticmethod(views.view)
    redact = staticmethod(views.redact)
    reveal = staticmethod(views.reveal)
    describe = staticmethod(views.describe)
    sides = staticmethod(state.sides_for)
    seat_name = staticmethod(views.seat_name)

    # Every partnership mode (pairs, suicide, whiz, mirror) rates partners as one team in
    # one pool; solo (three or four, each for themselves) is a pool of its own.
    def rating_pools(self) -> dict[str, str]:
        return {"spades-pairs": "Spades, pairs", "spades-solo": "Spades, solo"}

    def rating_pool(self, options: Options, players: int) -> str:
        return "spades-pairs" if options.partnerships else "spades-solo"

    def rating_places(
        self, options: Options, players: int, ended: dict[str, Any]
    ) -> tuple[int, ...]:
        """The winning side first, a forfeiting seat's side last, the others by score."""
        over = as_game_ended(ended)
        teams = state.sides_for(options, players)
        side_scores = ended.get("side_scores") or [over["scores"][team[0]] for team in teams]
        return rating.places(teams, over["winners"], over.get("forfeited"), side_scores)


GAME = Spades()
