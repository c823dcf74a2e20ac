"""The deadline job: when a turn's time runs out, a bot plays it or the player forfeits."""

import time

from engine import table
from engine.contract import Event
from service.bootstrap import Cardtrail
from service.commands import MakeMove
from service.errors import MovedOn
from service.repository import Loaded
from workers.connection import cardtrail
from workers.jobs import bot_command


def turn_deadline(game_id: str, turn_version: int, seat: int) -> str:
    app = cardtrail()
    turn = app.scheduler.clocked_turns(game_id).get(seat)
    if turn is None or turn.version != turn_version:
        return "moved_on"
    now = time.time()
    if now < turn.deadline:
        app.scheduler.arm_deadline(game_id, turn_version, seat, turn.deadline, suffix="-again")
        return "early"
    loaded = app.repository.load(game_id)
    clock = loaded.table.clock
    if clock is None or seat not in loaded.game.to_act(loaded.state):
        return "moved_on"
    if loaded.table.seats[seat].bot is not None:
        return "bot_seat"  # the clock is for absent players; bots' turns are never timed out
    timed_out = table.timed_out(seat, now, turn.deadline, clock["on_timeout"])
    try:
        if clock["on_timeout"] == "forfeit":
            forfeit = MakeMove(
                game_id, seat, {"type": "forfeit"}, loaded.version, prefix=(timed_out,)
            )
            app.handlers.act(forfeit, loaded)
            return "forfeited"
        _play_for(app, loaded, seat, turn_version, clock["timeout_bot"], timed_out)
    except MovedOn:
        return "moved_on"
    return "played_by_bot"


def _play_for(
    app: Cardtrail, loaded: Loaded, seat: int, turn_version: int, level: str, timed_out: Event
) -> None:
    """The time-out bot plays for the seat until its turn is over (a turn may take several
    commands)."""
    prefix: tuple[Event, ...] = (timed_out,)
    while seat in loaded.game.to_act(loaded.state):
        seed = f"{loaded.id}:{loaded.version}:{seat}:timeout"
        command = bot_command(app, loaded, seat, level, seed)
        app.handlers.act(MakeMove(loaded.id, seat, command, loaded.version, prefix=prefix), loaded)
        prefix = ()
        loaded = app.repository.load(loaded.id)
        turn = app.scheduler.clocked_turns(loaded.id).get(seat)
        if turn is None or turn.version != turn_version:
            break
