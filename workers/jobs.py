"""RQ jobs: a bot's turn, played from that seat's view through the same path as HTTP moves."""

import logging
import os
import random
import time

from service.application import ServiceError
from workers.connection import game_service

log = logging.getLogger(__name__)


def play_bot_turn(game_id: str, version: int) -> str:
    """Play the bot turn due at `version`; a game that moved on ends the job quietly."""
    service = game_service()
    loaded = service.load(game_id)
    if loaded.version != version:
        return "moved_on"
    game, state = loaded.game, loaded.state
    seats = service.seats(loaded.meta)
    for seat in service.turns.bots_to_act(seats, game.to_act(state)):
        level = seats[seat]["bot"]
        view = game.view(state, seat)
        history = service.bot_history(game_id, seat, state, game)
        rng = random.Random(f"{game_id}:{version}:{seat}")
        command = game.bots[level](view, history, rng)
        _injected_delay()
        try:
            service.act(game_id, seat, command, if_match=version, loaded=loaded)
        except ServiceError as error:
            if error.status in (409, 412):
                return "moved_on"
            raise
        return "played"
    return "no_bot_to_act"


def _injected_delay() -> None:
    """Fault-injection for the kill tests: widen the window between thinking and appending."""
    delay = float(os.environ.get("CARDTRAIL_TEST_BOT_DELAY", "0") or 0)
    if delay > 0:
        time.sleep(delay)
