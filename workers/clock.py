"""The deadline job: when a turn's time runs out, a bot plays it or the player forfeits."""

import random
import time

from service.application import ServiceError
from service.clock import turn_timed_out
from workers.connection import game_service


def turn_deadline(game_id: str, turn_version: int, seat: int) -> str:
    service = game_service()
    turn = service.clock.turns(game_id).get(seat)
    if turn is None or turn["version"] != turn_version:
        return "moved_on"
    now = time.time()
    if now < turn["deadline"]:
        service.clock.arm(game_id, turn_version, seat, turn["deadline"], job_suffix="-again")
        return "early"
    loaded = service.load(game_id)
    clock = service.clock_options(loaded.meta)
    if clock is None or seat not in loaded.game.to_act(loaded.state):
        return "moved_on"
    if "bot" in service.seats(loaded.meta)[seat]:
        return "bot_seat"  # the clock is for absent players; bots' turns are never timed out
    timed_out = turn_timed_out(seat, now, clock["on_timeout"])
    try:
        if clock["on_timeout"] == "forfeit":
            service.act(
                game_id,
                seat,
                {"type": "forfeit"},
                if_match=loaded.version,
                loaded=loaded,
                prefix=[timed_out],
            )
            return "forfeited"
        bot = loaded.game.bots[clock["timeout_bot"]]
        prefix = [timed_out]
        while seat in loaded.game.to_act(loaded.state):
            view = loaded.game.view(loaded.state, seat)
            history = service.bot_history(game_id, seat, loaded.state, loaded.game)
            rng = random.Random(f"{game_id}:{loaded.version}:{seat}:timeout")
            command = bot(view, history, rng)
            service.act(
                game_id, seat, command, if_match=loaded.version, loaded=loaded, prefix=prefix
            )
            prefix = []
            loaded = service.load(game_id)
            if _turn_moved(service, game_id, seat, turn_version):
                break
    except ServiceError as error:
        if error.status in (409, 412):
            return "moved_on"
        raise
    return "played_by_bot"


def _turn_moved(service, game_id: str, seat: int, turn_version: int) -> bool:
    turn = service.clock.turns(game_id).get(seat)
    return turn is None or turn["version"] != turn_version
