"""A player's games and news: the index an inbox lists, and what a player should hear of.

- `keys.player_games(id)`: a sorted set of the games a player holds or is awaited at
  (created with their seat, joined, invited to, offered as a rematch), scored by the
  game's creation time. Written when the table is, outside any game's script (it is the
  player's key, not the game's: one Redis Cluster slot per player); a table lists the
  players it holds, so the index can always be rebuilt from the tables.
- `keys.player_live(id)`, `keys.player_invited(id)`: the games of the index still live
  (waiting or playing), and those awaiting the player; a game leaves both when it ends
  (a reaction, `reactions.player_index`). The inbox ranks the live ones; at most
  PENDING_INVITATIONS may await one player, so strangers cannot bury their games.
- `keys.player_news(id)`: a stream of notices for the player (`invited`, and
  `rematch_offered`), each `{kind, game, at, …}`: what the player's own stream relays
  besides the games' events. The newest NEWS_KEPT are kept.
- `page`: what anyone may see of a player (their public page): name, since when, and
  their recent finished games with each result — finished games only, so no card of a
  hand in play can appear there.
"""

import json
import time
from collections.abc import Callable, Iterable
from typing import Any

import redis

from engine.events import GAME_ENDED
from service import keys
from service.players import Player
from service.store import EventStore
from service.tables import Table, TableStore, decode

NEWS_KEPT = 1000
LIVE_LISTED = 1000  # of a player's live games, newest first, that the inbox looks through
PENDING_INVITATIONS = 50  # games that may await one player at once
RECENT_GAMES = 20  # finished games on a player's page
SCANNED = 200  # of a player's games, newest first, looked through for the finished ones
RESULT_DEPTH = 8  # a finished log ends with game_ended, then the seed (and a turn or so)

Notice = Callable[[str, str, dict[str, Any]], None]  # (player id, kind, details)


class PlayerGames:
    def __init__(self, client: redis.Redis, tables: TableStore, events: EventStore) -> None:
        self.redis = client
        self.tables = tables
        self.events = events
        # what hears of a notice besides the player's stream of news (the player stream
        # may add a listener that wakes its followers at once)
        self.listeners: list[Notice] = []

    # -- the index ------------------------------------------------------------------

    def add(self, table: Table, players: Iterable[str] | None = None) -> None:
        """The table in the index of each of `players` (default: every player it holds),
        and among their live games."""
        chosen = table.players_here() if players is None else set(players)
        pipe = self.redis.pipeline(transaction=False)
        for player_id in sorted(chosen):
            pipe.zadd(keys.player_games(player_id), {table.id: table.created})
            pipe.zadd(keys.player_live(player_id), {table.id: table.created})
        pipe.execute()

    def joined(self, table: Table, player_id: str) -> None:
        """The player took a seat: the game is theirs, and awaits them no more."""
        self.add(table, [player_id])
        self.redis.zrem(keys.player_invited(player_id), table.id)

    def seated(self, table: Table) -> None:
        """A new table in the index of every player it holds or awaits; the awaited ones
        hear they were invited."""
        self.add(table)
        for seat in table.seats:
            if seat.reserved and seat.player:
                self.redis.zadd(keys.player_invited(seat.player), {table.id: table.created})
                details = {"game": table.id, "seat": seat.number, "game_name": table.game}
                self.notify(seat.player, "invited", details)

    def ended(self, table: Table) -> None:
        """A game over (finished or abandoned) is no longer among its players' live games."""
        pipe = self.redis.pipeline(transaction=False)
        for player_id in sorted(table.players_here()):
            pipe.zrem(keys.player_live(player_id), table.id)
            pipe.zrem(keys.player_invited(player_id), table.id)
        pipe.execute()

    def live_ids(self, player_id: str, most: int = LIVE_LISTED) -> list[str]:
        """The player's live games, newest first."""
        found = self.redis.zrevrange(keys.player_live(player_id), 0, most - 1)
        return [raw.decode() for raw in found]

    def invitations(self, player_id: str) -> int:
        """How many games await the player (invitations not yet taken up)."""
        return int(self.redis.zcard(keys.player_invited(player_id)))

    def ids(self, player_id: str, offset: int = 0, count: int = 100) -> list[str]:
        """The player's games, newest first."""
        found = self.redis.zrevrange(keys.player_games(player_id), offset, offset + count - 1)
        return [raw.decode() for raw in found]

    def count(self, player_id: str) -> int:
        return int(self.redis.zcard(keys.player_games(player_id)))

    def tables_of(self, player_id: str, offset: int = 0, count: int = 100) -> list[Table]:
        """The player's tables, newest first (one round trip for all of them)."""
        return self.tables_by_id(self.ids(player_id, offset, count))

    def tables_by_id(self, ids: list[str]) -> list[Table]:
        pipe = self.redis.pipeline(transaction=False)
        for game_id in ids:
            self.tables.get_in(pipe, game_id)
        return [decode(i, raw) for i, raw in zip(ids, pipe.execute(), strict=True) if raw]

    # -- news -----------------------------------------------------------------------

    def notify(self, player_id: str, kind: str, details: dict[str, Any]) -> None:
        """A notice for the player: kept in their stream of news, told to each listener."""
        notice = {"kind": kind, "at": round(time.time(), 3), **details}
        self.redis.xadd(
            keys.player_news(player_id),
            {"kind": kind, "notice": _json(notice)},
            maxlen=NEWS_KEPT,
            approximate=True,
        )
        for listener in self.listeners:
            listener(player_id, kind, notice)

    def news(self, player_id: str, after: str = "0-0", count: int = 100) -> list[dict[str, Any]]:
        """Notices after stream id `after`, oldest first, each with its `id`."""
        entries = self.redis.xrange(keys.player_news(player_id), f"({after}", "+", count=count)
        return [
            {**json.loads(fields[b"notice"]), "id": entry_id.decode()}
            for entry_id, fields in entries
        ]

    # -- the public page --------------------------------------------------------------

    def page(self, player: Player) -> dict[str, Any]:
        """What anyone may see of a player: name, since when, recent finished games."""
        recent = []
        for table in self.tables_of(player.id, 0, SCANNED):
            if table.status != "finished":
                continue
            recent.append(self.finished(table, player.id))
            if len(recent) == RECENT_GAMES:
                break
        return {"name": player.name, "created": player.created, "recent_games": recent}

    def finished(self, table: Table, player_id: str) -> dict[str, Any]:
        """A finished game as a player's page lists it: who sat where, which seat was the
        player's, and the result (winners and scores), with a link to its replay."""
        summary: dict[str, Any] = {
            "id": table.id,
            "game": table.game,
            "preset": table.preset,
            "created": table.created,
            "seats": table.public_seats(),
            "seat": next(iter(table.seats_of(player_id)), None),
            "replay": f"/games/{table.id}/hands",
        }
        for depth, record in enumerate(self.events.newest_records(table.id)):
            if record.event["type"] == GAME_ENDED:
                ended = record.event
                summary["result"] = {"winners": ended["winners"], "scores": ended["scores"]}
                break
            if depth >= RESULT_DEPTH:
                break
        return summary


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
