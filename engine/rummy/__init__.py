"""Rummy as Pagat describes it, with every house rule, Block and Wrotham Rummy,
and the classic online variant (docs/rules.md)."""

from typing import Any

from engine import rating
from engine.contract import Game
from engine.events import as_game_ended
from engine.rummy import decider, moves, options, state
from engine.rummy import view as views
from engine.rummy.bots import BOTS
from engine.rummy.options import Options
from engine.rummy.state import RummyState


class Rummy(Game[RummyState, Options]):
    name = "rummy"
    rules_version = "rummy-2"
    presets = tuple(options.PRESETS)
    commands = {
        "draw": {"source": "choice:stock|discard"},
        "meld": {"cards": "cards"},
        "lay_off": {"card": "card", "meld": "int"},
        "swap_joker": {"card": "card", "meld": "int"},
        "discard": {"card": "card"},
        "go_down": {"melds": "card_groups", "discard": "card_or_null"},
        "forfeit": {},
    }
    view_fields = {
        "stock_count": "int",
        "stock_reuses": "int",
        "discard_pile": "card_list",
        "melds": "dicts",
        "hand_counts": "int_list",
        "last_hand": "dict_or_null",
        "result": "dict_or_null",
    }
    bots = BOTS
    options_added_later = options.ADDED_LATER
    state_type = RummyState

    resolve_options = staticmethod(options.resolve)
    pack = staticmethod(decider.pack)
    decide = staticmethod(decider.decide)
    evolve = staticmethod(state.evolve)
    legal_moves = staticmethod(moves.legal_moves)
    view = staticmethod(views.view)
    redact = staticmethod(views.redact)
    reveal = staticmethod(views.reveal)
    describe = staticmethod(views.describe)

    # Two players and three or more are different games to be good at (a duel against a
    # table where the others also take from you), as BGA and lichess rate modes apart.
    def rating_pools(self) -> dict[str, str]:
        return {"rummy-2": "Rummy, 2 players", "rummy-3-6": "Rummy, 3–6 players"}

    def rating_pool(self, options: Options, players: int) -> str:
        return "rummy-2" if players == 2 else "rummy-3-6"

    def rating_places(
        self, options: Options, players: int, ended: dict[str, Any]
    ) -> tuple[int, ...]:
        """Winners first, a forfeit last, the rest by their final scores (the fewest
        penalty points first under penalty scoring, else the most points)."""
        over = as_game_ended(ended)
        sign = -1 if options.scoring == "penalty" else 1
        points = [sign * score for score in over["scores"]]
        teams = rating.solo_teams(players)
        return rating.places(teams, over["winners"], over.get("forfeited"), points)


GAME = Rummy()
