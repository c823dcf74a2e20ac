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
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import redis

from engine.events import TURN_STARTED
from service import keys
from service.errors import Busy
from service.player_games import PlayerGames
from service.presentation import shown_event
from service.queries import REVOKED_FRAME, Recent, Stream
from service.repository import Loaded, Repository
from service.scheduler import TurnScheduler
from service.tables import Status, Table

LISTED = 500  # of a player's games, newest first, that the inbox lists past the live ones
LOOKED_BACK = 4  # events looked through for the newest one worth a line
KEPT_ENTRIES = 20_000  # inbox entries kept, each for one version of one game and player
LIVE = ("waiting", "playing")
DONE = 3  # the rank of the games that are over, listed last
KEEP_ALIVE_S = 15.0
MAX_STREAMS = 500  # player streams one process holds open at once
PER_PLAYER = 4  # of them, for one player (a few tabs and a bot)

StillValid = Callable[[], bool]
SUPERSEDED_FRAME = 'event: closed\ndata: {"reason": "superseded"}\n\n'  # by a newer stream


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
        self._kept = Recent(KEPT_ENTRIES)
        self._places: dict[str, list[_Place]] = {}  # each player's open streams, oldest first
        self._total = 0
        self._lock = threading.Lock()

    # -- the list -------------------------------------------------------------------

    def games(
        self, player_id: str, status: Status | None, page: int, page_size: int
    ) -> dict[str, Any]:
        """One page of the player's games, most urgent first.

        The live games (`PlayerGames.live_ids`) are loaded, to know whose turn it is;
        the others all rank last, the newest first — the index's own order — so of them
        only the page asked for is read in full (of the newest LISTED)."""
        shelf = self.player_games
        newest = shelf.tables_of(player_id, 0, LISTED)
        known = set(shelf.live_ids(player_id))
        for table in newest:  # a live game the live index lacks (kept before it was)
            if table.status in LIVE and table.id not in known:
                shelf.add(table, [player_id])
                known.add(table.id)
        live_tables = shelf.tables_by_id(sorted(known))
        versions = self.repository.events.versions([t.id for t in live_tables])
        live = [self.entry(t, player_id, v) for t, v in zip(live_tables, versions, strict=True)]
        over = [e for e in live if _urgency(e)[0] == DONE]  # ended, the index not told yet
        for entry in over:
            shelf.ended(shelf.tables.get(entry["id"]))
        ranked = sorted((e for e in live if _urgency(e)[0] < DONE), key=_urgency)
        still = {e["id"] for e in ranked}
        ended = [t for t in newest if t.id not in still]
        if status is not None:
            ranked = [e for e in ranked if e["status"] == status]
            ended = [t for t in ended if _status(t, over) == status]
        first = (page - 1) * page_size
        items = ranked[first : first + page_size]
        start = max(0, first - len(ranked))
        for table in ended[start : start + page_size - len(items)]:
            items.append(self.entry(table, player_id))
        return {"items": items, "page": page, "page_size": page_size,
                "total": len(ranked) + len(ended)}  # fmt: skip

    def entry(self, table: Table, player_id: str, version: int | None = None) -> dict[str, Any]:
        """One game as the player's inbox lists it; kept, for a `version` known, as long as
        neither the log nor the table changes (a player's inbox polled again loads none of
        the games that did not move)."""
        key = (player_id, table.id, version, table.status, table.rematch, tuple(table.names()),
               tuple(seat.reserved for seat in table.seats))  # fmt: skip
        kept = self._kept.get(key) if version is not None else None
        if kept is not None:
            return dict(kept)
        made = self._entry(table, player_id)
        if made["version"] == version:
            self._kept.put(key, made)
        return dict(made)

    def _entry(self, table: Table, player_id: str) -> dict[str, Any]:
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
    ) -> Stream:
        """The player's news after stream id `after` (None: from now on; "0-0": all that
        is kept), as SSE frames, for `seconds` (the client reconnects with Last-Event-ID).

        A player's newest stream always opens: at `per_player` open streams, the oldest
        is told it was superseded and ends at its next wake-up (a phone that changed
        networks leaves a stream behind that the server cannot yet know is dead)."""
        start = self._newest(player_id) if after is None else after
        place = _Place()
        with self._lock:
            if self._total >= self.max_streams:
                raise Busy("too_many_streams", "This server holds all the streams it can.")
            mine = self._places.setdefault(player_id, [])
            if len(mine) >= self.per_player:
                mine.pop(0).superseded = True
            mine.append(place)
            self._total += 1
        frames = self._frames(player_id, start, time.monotonic() + seconds, still_valid, place)
        held = ExitStack()
        held.callback(self._closed, player_id, place)
        return Stream(frames, held)

    def _newest(self, player_id: str) -> str:
        """The id of the player's newest notice ("0-0" for none): a stream opened without
        Last-Event-ID tells what comes after it. Resolved once, at opening, so that a
        notice landing between two reads is never skipped (as "$" at each read would)."""
        newest = self.redis.xrevrange(keys.player_news(player_id), "+", "-", count=1)
        return newest[0][0].decode() if newest else "0-0"

    def _closed(self, player_id: str, place: "_Place") -> None:
        with self._lock:
            self._total -= 1
            mine = self._places.get(player_id, [])
            if place in mine:
                mine.remove(place)
            if not mine:
                self._places.pop(player_id, None)

    def _frames(
        self, player_id: str, last: str, deadline: float, still_valid: StillValid, place: "_Place"
    ) -> Iterator[str]:
        yield "retry: 2000\n\n"
        key = keys.player_news(player_id)
        while (left := deadline - time.monotonic()) > 0:
            block = max(1, math.ceil(min(left, KEEP_ALIVE_S) * 1000))
            reply = self.redis.xread({key: last}, count=100, block=block)
            if not still_valid():
                yield REVOKED_FRAME
                return
            if place.superseded:
                yield SUPERSEDED_FRAME
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


class _Place:
    """One open stream's place; `superseded` once a newer stream of its player took it."""

    def __init__(self) -> None:
        self.superseded = False


def _status(table: Table, over: list[dict[str, Any]]) -> str:
    """A table's status, or "finished" for one whose index has not been told yet."""
    return "finished" if any(e["id"] == table.id for e in over) else table.status


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
