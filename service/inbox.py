"""A player's inbox: their games, the ones where it is their turn first, and one stream
of news for all of them.

- `games`: every game of the player's index (`service.player_games`), each as the
  player may see it — who sits where, whose turn, the player's own deadline on a
  clocked table, the newest event told in a sentence *redacted for the player's seat*
  (what another seat holds stays hidden, as in the game's own view), and for a finished game
  its result and replay. Ordered by what the player must do: their turns first, the
  soonest deadline first; then games waiting for them to join; then the rest, the
  newest first.
- `follow`: the player's news (`keys.player_news`: your_turn, hand and game ends,
  invitations, rematch offers) as Server-Sent Events, so a client keeps one connection
  for all its games. Each open stream blocks in one XREAD of its own (a player's news
  is read by that player alone, there is nothing to share), so the streams a process
  holds at once are bounded (`max_streams`, and `per_player` for one player): beyond
  them the caller is told to come back (`Busy`, 503) rather than left hanging. A stream
  asks `still_valid` before each frame: a closed session or a revoked token stops it.
"""

import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import redis

from engine.events import TURN_STARTED
from service import keys
from service.errors import Busy
from service.player_games import PlayerGames
from service.presentation import shown_event
from service.queries import REVOKED_FRAME
from service.repository import Loaded, Repository
from service.scheduler import TurnScheduler
from service.tables import Status, Table

LISTED = 500  # of a player's games, newest first, that the inbox looks through
LOOKED_BACK = 4  # events looked through for the newest one worth a line
LIVE = ("waiting", "playing")
DONE = 3  # the rank of the games that are over, listed last
KEEP_ALIVE_S = 15.0
MAX_STREAMS = 500  # player streams one process holds open at once
PER_PLAYER = 4  # of them, for one player (a few tabs and a bot)

StillValid = Callable[[], bool]


class Inbox:
    def __init__(
        self,
        repository: Repository,
        scheduler: TurnScheduler,
        player_games: PlayerGames,
        follow_client: redis.Redis | None = None,
        max_streams: int = MAX_STREAMS,
        per_player: int = PER_PLAYER,
    ) -> None:
        self.repository = repository
        self.scheduler = scheduler
        self.player_games = player_games
        self.redis = follow_client or repository.redis  # its pool must allow the streams
        self.max_streams = max_streams
        self.per_player = per_player
        self._open: Counter[str] = Counter()
        self._lock = threading.Lock()

    # -- the list -------------------------------------------------------------------

    def games(
        self, player_id: str, status: Status | None, page: int, page_size: int
    ) -> dict[str, Any]:
        """One page of the player's games, most urgent first.

        Only the live games (waiting or playing, as their tables say) are loaded, to know
        whose turn it is; the others all rank last, the newest first — the index's own
        order — so of them only the page asked for is read."""
        tables = self.player_games.tables_of(player_id, 0, LISTED)
        live = [self.entry(t, player_id) for t in tables if t.status in LIVE]
        ranked = sorted((e for e in live if _urgency(e)[0] < DONE), key=_urgency)
        ended_live = {e["id"]: e for e in live if _urgency(e)[0] == DONE}
        ended = [t for t in tables if t.status not in LIVE or t.id in ended_live]
        if status is not None:
            ranked = [e for e in ranked if e["status"] == status]
            ended = [t for t in ended if ended_live.get(t.id, {}).get("status", t.status) == status]
        first = (page - 1) * page_size
        items = ranked[first : first + page_size]
        start = max(0, first - len(ranked))
        for table in ended[start : start + page_size - len(items)]:
            items.append(ended_live.get(table.id) or self.entry(table, player_id))
        return {"items": items, "page": page, "page_size": page_size,
                "total": len(ranked) + len(ended)}  # fmt: skip

    def entry(self, table: Table, player_id: str) -> dict[str, Any]:
        """One game as the player's inbox lists it."""
        loaded = self.repository.load(table.id)
        held = loaded.table.seats_of(player_id)
        invited = [s.number for s in loaded.table.seats if s.reserved and s.player == player_id]
        finished = loaded.game.is_finished(loaded.state)
        to_act = [] if finished else list(loaded.game.to_act(loaded.state))
        mine = [seat for seat in to_act if seat in held]
        entry: dict[str, Any] = {
            "id": loaded.id,
            "game": loaded.table.game,
            "preset": loaded.table.preset,
            "status": "finished" if finished else loaded.table.status,
            "created": loaded.table.created,
            "version": loaded.version,
            "seats": loaded.table.public_seats(),
            "your_seats": held,
            "invited": bool(invited) and not held,
            "to_act": to_act,
            "your_turn": bool(mine),
            "deadline": self._deadline(loaded, mine),
            "last": self._last(loaded, held[0] if held else None),
            "play": f"/play/{loaded.id}",
            **{k: v for k, v in (("rematch_of", loaded.table.rematch_of),
                                 ("rematch", loaded.table.rematch)) if v},
        }  # fmt: skip
        if finished:
            summary = self.player_games.finished(loaded.table, player_id)
            entry["replay"] = summary["replay"]
            if "result" in summary:
                entry["result"] = summary["result"]
        return entry

    def _deadline(self, loaded: Loaded, seats: list[int]) -> float | None:
        if loaded.table.clock is None or not seats:
            return None
        clocked = self.scheduler.clocked_turns(loaded.id)
        found = [clocked[seat].deadline for seat in seats if seat in clocked]
        return min(found) if found else None

    def _last(self, loaded: Loaded, seat: int | None) -> dict[str, Any] | None:
        """The newest event worth a line (not a clock's bookkeeping), as `seat` sees it."""
        for depth, record in enumerate(self.repository.events.newest_records(loaded.id)):
            if record.event["type"] != TURN_STARTED or depth >= LOOKED_BACK:
                shown = shown_event(
                    loaded.game, record.event, seat, loaded.state, record.version,
                    loaded.table.names(),
                )  # fmt: skip
                return {k: shown[k] for k in ("version", "type", "description")}
        return None

    # -- the stream -----------------------------------------------------------------

    def follow(
        self, player_id: str, after: str | None, seconds: float, still_valid: StillValid
    ) -> "NewsStream":
        """The player's news after stream id `after` (None: from now on; "0-0": all that
        is kept), as SSE frames, for `seconds` (the client reconnects with Last-Event-ID)."""
        with self._lock:
            if sum(self._open.values()) >= self.max_streams:
                raise Busy("too_many_streams", "This server holds all the streams it can.")
            if self._open[player_id] >= self.per_player:
                raise Busy("too_many_streams_for_player", "Close one of your other streams.")
            self._open[player_id] += 1
        start = self._newest(player_id) if after is None else after
        frames = self._frames(player_id, start, time.monotonic() + seconds, still_valid)
        return NewsStream(frames, lambda: self._closed(player_id))

    def _newest(self, player_id: str) -> str:
        """The id of the player's newest notice ("0-0" for none): a stream opened without
        Last-Event-ID tells what comes after it. Resolved once, at opening, so that a
        notice landing between two reads is never skipped (as "$" at each read would)."""
        newest = self.redis.xrevrange(keys.player_news(player_id), "+", "-", count=1)
        return newest[0][0].decode() if newest else "0-0"

    def _closed(self, player_id: str) -> None:
        with self._lock:
            self._open[player_id] -= 1
            if self._open[player_id] <= 0:
                del self._open[player_id]

    def _frames(
        self, player_id: str, last: str, deadline: float, still_valid: StillValid
    ) -> Iterator[str]:
        yield "retry: 2000\n\n"
        key = keys.player_news(player_id)
        while (left := deadline - time.monotonic()) > 0:
            block = max(1, math.ceil(min(left, KEEP_ALIVE_S) * 1000))
            reply = self.redis.xread({key: last}, count=100, block=block)
            if not still_valid():
                yield REVOKED_FRAME
                return
            if not reply:
                yield ": keep-alive\n\n"
                continue
            parts = []
            for entry_id, fields in reply[0][1]:
                last = entry_id.decode()
                kind = fields[b"kind"].decode()
                parts.append(f"id: {last}\nevent: {kind}\ndata: {fields[b'notice'].decode()}\n\n")
            yield "".join(parts)


class NewsStream:
    """An SSE body that gives its place back when closed (also if never started)."""

    def __init__(self, frames: Iterator[str], closed: Callable[[], None]) -> None:
        self.frames = frames
        self._closed: Callable[[], None] | None = closed

    def __iter__(self) -> Iterator[str]:
        return self.frames

    def close(self) -> None:
        try:
            close = getattr(self.frames, "close", None)
            if close is not None:
                close()
        finally:
            closed, self._closed = self._closed, None
            if closed is not None:
                closed()


def _urgency(entry: dict[str, Any]) -> tuple[Any, ...]:
    """Sort key: my turns (soonest deadline first), invitations, live games, the rest
    (DONE); the newest first within each."""
    if entry["your_turn"]:
        rank = 0
    elif entry["invited"] and entry["status"] in LIVE:
        rank = 1
    elif entry["status"] in LIVE:
        rank = 2
    else:
        rank = DONE
    deadline = entry["deadline"] if entry["deadline"] is not None else math.inf
    return (rank, deadline, -entry["created"])
