"""RQ jobs: a bot's turn, played from that seat's view through the same path as HTTP moves."""

import logging
import os
import random
import time

from engine.bots import hand_memory, take_turn
from engine.contract import Command
from service.bootstrap import Cardtrail
from service.commands import MakeMove
from service.errors import MovedOn
from service.repository import Loaded
from workers.connection import cardtrail

log = logging.getLogger(__name__)


def play_bot_turn(game_id: str, version: int) -> str:
    """Play the bot turn due at `version`; a game that moved on ends the job quietly."""
    app = cardtrail()
    loaded = app.repository.load(game_id)
    if loaded.version != version:
        return "moved_on"
    bots = loaded.table.bots_among(loaded.game.to_act(loaded.state))
    if not bots:
        return "no_bot_to_act"
    seat = bots[0]
    level = loaded.table.seats[seat].bot or ""
    command = bot_command(app, loaded, seat, level, f"{game_id}:{version}:{seat}")
    _injected_delay()
    try:
        app.handlers.act(MakeMove(game_id, seat, command, if_match=version), loaded)
    except MovedOn:
        return "moved_on"
    return "played"


def bot_command(app: Cardtrail, loaded: Loaded, seat: int, level: str, rng_seed: str) -> Command:
    """What the `level` bot plays for `seat` now: from the seat's view and its memory of
    the hand (the log read backwards to the deal), with a generator seeded by the turn."""
    events = app.repository.events.newest_first(loaded.id, upto=loaded.version)
    memory = hand_memory(loaded.game, seat, loaded.state, events)
    view = loaded.game.view(loaded.state, seat)
    return take_turn(loaded.game, seat, level, view, memory, random.Random(rng_seed))


def _injected_delay() -> None:
    """Fault-injection for the kill tests: widen the window between thinking and appending."""
    delay = float(os.environ.get("CARDTRAIL_TEST_BOT_DELAY", "0") or 0)
    if delay > 0:
        time.sleep(delay)
