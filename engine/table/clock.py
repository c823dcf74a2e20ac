"""Turn clocks: a table option of any game, and the two events that keep time.

A clock is chosen among a game's options — `move_time` ("30s", "15m", "24h", "3d"),
`on_timeout` ("bot", the default: a bot of level `timeout_bot` plays the turn; or
"forfeit") — and recorded, parsed, in the game's first event. When a seat's turn
begins the log gets `turn_started` (when, and the deadline); a time-out is
`turn_timed_out`. The engine has no clock: the caller passes the time in, and the
audit checks the recorded times against each other.
"""

import re
from collections.abc import Mapping
from typing import Any, cast

from engine.contract import Event, Game
from engine.errors import IllegalMove, InvalidOptions
from engine.events import HAND_DEALT, ClockSettings, TurnStarted, TurnTimedOut, plain

AnyGame = Game[Any, Any]

TABLE_OPTIONS = ("move_time", "on_timeout", "timeout_bot")
ON_TIMEOUT = ("bot", "forfeit")
DEFAULT_TIMEOUT_BOT = "greedy"
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_MOST = 30 * 86400


class TurnNotOver(IllegalMove):
    """A time-out before the turn's deadline."""

    def __init__(self) -> None:
        super().__init__("turn_not_over", "The turn's time has not run out yet.")


def parse_duration(text: Any) -> int:
    """Seconds in "30s", "15m", "24h", "3d" (1 second to 30 days)."""
    match = re.fullmatch(r"(\d{1,6})([smhd])", text) if isinstance(text, str) else None
    if not match:
        raise InvalidOptions("options.move_time", 'a duration such as "2s", "15m", "24h", "3d"')
    seconds = int(match.group(1)) * _UNITS[match.group(2)]
    if not 1 <= seconds <= _MOST:
        raise InvalidOptions("options.move_time", "must be between 1 second and 30 days")
    return seconds


def split_options(
    game: AnyGame, options: Mapping[str, Any] | None
) -> tuple[dict[str, Any], ClockSettings | None]:
    """(the game's own options, the clock or None), the clock checked against `game`."""
    own = dict(options or {})
    given = {name: own.pop(name) for name in TABLE_OPTIONS if name in own}
    if not given:
        return own, None
    if "move_time" not in given:
        raise InvalidOptions("options.move_time", "on_timeout and timeout_bot need a move_time")
    on_timeout = given.get("on_timeout", "bot")
    if on_timeout not in ON_TIMEOUT:
        raise InvalidOptions("options.on_timeout", 'must be "bot" or "forfeit"')
    bot = given.get("timeout_bot", DEFAULT_TIMEOUT_BOT)
    if not isinstance(bot, str) or bot not in game.bots:
        levels = ", ".join(game.bots)
        raise InvalidOptions("options.timeout_bot", f"must be one of {levels}")
    clock: ClockSettings = {
        "move_time": given["move_time"],
        "seconds": parse_duration(given["move_time"]),
        "on_timeout": cast(Any, on_timeout),
        "timeout_bot": bot,
    }
    return own, clock


def as_options(clock: ClockSettings) -> dict[str, Any]:
    """The options a recorded clock was made from (what `split_options` reads back)."""
    return {name: clock[name] for name in TABLE_OPTIONS}  # type: ignore[literal-required]


def turn_started(seat: int, now: float, seconds: int) -> Event:
    at = round(now, 3)
    event: TurnStarted = {
        "type": "turn_started",
        "v": 1,
        "seat": seat,
        "at": at,
        "deadline": round(at + seconds, 3),
    }
    return plain(event)


def timed_out(seat: int, now: float, deadline: float, action: str) -> Event:
    """The time-out of `seat`'s turn at `now`; refused before its deadline."""
    if now < deadline:
        raise TurnNotOver()
    event: TurnTimedOut = {
        "type": "turn_timed_out",
        "v": 1,
        "seat": seat,
        "at": round(now, 3),
        "action": cast(Any, action),
    }
    return plain(event)


def turns_begun(game: AnyGame, before: Any, after: Any, events: list[Event]) -> list[int]:
    """The seats whose turn began with `events` (every acting seat after a deal)."""
    fresh_hand = before is None or any(event["type"] == HAND_DEALT for event in events)
    was = set() if fresh_hand else set(game.to_act(before))
    return [seat for seat in game.to_act(after) if seat not in was]


def clocked(
    game: AnyGame,
    clock: ClockSettings | None,
    before: Any,
    after: Any,
    events: list[Event],
    now: float,
) -> tuple[list[Event], list[int]]:
    """(`events` plus, on a clocked table, `turn_started` for each turn they began;
    the seats whose turn they began, clocked or not)."""
    begun = turns_begun(game, before, after, events)
    if clock is None or not begun:
        return events, begun
    started = [turn_started(seat, now, clock["seconds"]) for seat in begun]
    return [*events, *started], begun
