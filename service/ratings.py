"""Ratings: a projection of the finished games' logs, one skill per identity per pool.

Each game that ends is applied once, by a worker's job (`workers.ratings`), in the order
games ended (`service.rated_games`): a game that ends after every game applied so far is
applied to the skills as they stand; one that arrives late (it ended before the last one
applied: two games ending a moment apart, their jobs run the other way round) re-folds
its pool from the start, so the skills are always the fold of the pool's games in that
order — exactly what `rebuild` computes from the event streams alone.

Everything a pool holds (skills, leaderboard, the ledger of its games, a version) is under
the pool's hash tag, written by one script that checks the version it was computed at
(`scripts.RATINGS_WRITE`): concurrent jobs never interleave, one of them recomputes.
docs/ratings.md has the model, the pools, the order and what counts.
"""

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import redis

from engine import games
from service import keys, rated_games, scripts, skill
from service.errors import NotFound
from service.rated_games import BOT, RatedGame
from service.skill import Skill
from service.store import EventStore

POOL_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")
ATTEMPTS = 50  # writes a job retries while other jobs keep changing its pool first

Standings = dict[str, tuple[Skill, str]]  # identity -> (skill, display name)


@dataclass(frozen=True)
class Pool:
    id: str
    game: str
    title: str


def pools() -> dict[str, Pool]:
    """Every registered game's rating pools, by id (each game declares its own)."""
    found: dict[str, Pool] = {}
    for name in games.names():
        for pool, title in games.get(name).rating_pools().items():
            if not POOL_ID.fullmatch(pool) or pool in found:
                raise ValueError(f"game {name!r} declares a bad or taken rating pool {pool!r}")
            found[pool] = Pool(pool, name, title)
    return found


def standings(rated: Iterable[RatedGame]) -> Standings:
    """Every identity's skill and latest name after the games, folded in their order."""
    skills: dict[str, Skill] = {}
    names: dict[str, str] = {}
    for game in rated_games.ordered(list(rated)):
        skills.update(skill.rate(game.teams, game.places, skills))
        names.update(game.names)
    return {identity: (found, names[identity]) for identity, found in skills.items()}


class Contended(Exception):
    """A pool changed under every attempt to write it (the job is retried)."""


class Ratings:
    def __init__(self, client: redis.Redis, events: EventStore) -> None:
        self.redis = client
        self.events = events
        self._write = client.register_script(scripts.RATINGS_WRITE)

    # -- reading -------------------------------------------------------------------

    def pools(self) -> list[dict[str, Any]]:
        known = list(pools().values())
        pipe = self.redis.pipeline(transaction=False)
        for pool in known:
            pipe.zcard(keys.rating_board(pool.id))
        counts = pipe.execute()
        return [
            {"pool": pool.id, "game": pool.game, "title": pool.title, "rated": count}
            for pool, count in zip(known, counts, strict=True)
        ]

    def leaderboard(self, pool_id: str, page: int, page_size: int) -> dict[str, Any]:
        """One page of the pool's identities, the highest ordinal (mu − 3σ) first."""
        pool = _pool(pool_id)
        start = (page - 1) * page_size
        board = keys.rating_board(pool.id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.zcard(board)
        pipe.zrevrange(board, start, start + page_size - 1)
        total, members = pipe.execute()
        records = self.redis.hmget(keys.rating_skills(pool.id), members) if members else []
        rows = [
            {"rank": start + index + 1, **_row(member.decode(), raw)}
            for index, (member, raw) in enumerate(zip(members, records, strict=True))
        ]
        return {
            "pool": pool.id,
            "game": pool.game,
            "title": pool.title,
            "page": page,
            "page_size": page_size,
            "total": total,
            "provisional_games": skill.PROVISIONAL_GAMES,
            "ratings": rows,
        }

    def of_player(self, identity: str) -> list[dict[str, Any]]:
        """The identity's rating in each pool it has played in, with its rank there."""
        known = list(pools().values())
        pipe = self.redis.pipeline(transaction=False)
        for pool in known:
            pipe.hget(keys.rating_skills(pool.id), identity)
            pipe.zrevrank(keys.rating_board(pool.id), identity)
        answers = pipe.execute()
        found = []
        for index, pool in enumerate(known):
            raw, rank = answers[2 * index], answers[2 * index + 1]
            if raw is not None:
                row = {"pool": pool.id, "title": pool.title, **_row(identity, raw)}
                found.append({**row, "rank": None if rank is None else rank + 1})
        return found

    # -- the projection ------------------------------------------------------------

    def apply(self, game_id: str) -> str:
        """Rate one finished game, once: "applied", "refolded" (it came late), "already"
        (applied before) or "not_rated" (it does not count)."""
        rated = rated_games.read(self.events, game_id)
        if rated is None:
            return "not_rated"
        pool = rated.pool
        for _ in range(ATTEMPTS):
            version, applied, last = self._head(pool, game_id)
            if applied:
                return "already"
            if last is None or last.order < rated.order:
                if self._store(pool, version, "add", [rated], self._after(rated)):
                    return "applied"
                continue
            everything = standings([*self._ledger(pool).values(), rated])
            if self._store(pool, version, "skills", [rated], everything):
                return "refolded"
        raise Contended(pool)

    def rebuild(self) -> dict[str, int]:
        """Every pool recomputed from the event streams alone; the games rated in each."""
        versions = {pool: self._version(pool) for pool in pools()}
        found: dict[str, dict[str, RatedGame]] = {pool: {} for pool in versions}
        for game_id in self._game_ids():
            rated = rated_games.read(self.events, game_id)
            if rated is not None:
                found.setdefault(rated.pool, {})[game_id] = rated
        for pool, rated_in in found.items():
            self._replace(pool, versions.get(pool, 0), rated_in)
        return {pool: len(rated_in) for pool, rated_in in found.items()}

    def _replace(self, pool: str, version: int, rated_in: dict[str, RatedGame]) -> None:
        """Write the pool as `rated_in` folds; a game a job applied meanwhile (it ended
        after the streams were read) is read from its own stream and folded in too."""
        for _ in range(ATTEMPTS):
            everything = standings(rated_in.values())
            if self._store(pool, version, "all", list(rated_in.values()), everything):
                return
            version = self._version(pool)
            for game_id in set(self._ledger(pool)) - set(rated_in):
                rated = rated_games.read(self.events, game_id)
                if rated is not None and rated.pool == pool:
                    rated_in[game_id] = rated
        raise Contended(pool)

    def _after(self, rated: RatedGame) -> Standings:
        """The skills of the game's identities after it, from theirs as they stand."""
        identities = sorted(rated.names)
        raw = self.redis.hmget(keys.rating_skills(rated.pool), identities)
        found = zip(identities, raw, strict=True)
        known = {who: Skill.of(json.loads(data)) for who, data in found if data}
        after = skill.rate(rated.teams, rated.places, known)
        return {who: (found, rated.names[who]) for who, found in after.items()}

    def _head(self, pool: str, game_id: str) -> tuple[int, bool, RatedGame | None]:
        """(the pool's version, whether the game is applied, the last game applied)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.get(keys.rating_version(pool))
        pipe.zscore(keys.rating_ledger(pool), game_id)
        pipe.zrevrange(keys.rating_ledger(pool), 0, 0)
        version, score, newest = pipe.execute()
        last = None
        if newest:
            last_id = newest[0].decode()
            last = RatedGame.from_json(last_id, self.redis.hget(keys.rating_games(pool), last_id))
        return int(version or 0), score is not None, last

    def _version(self, pool: str) -> int:
        return int(self.redis.get(keys.rating_version(pool)) or 0)

    def _ledger(self, pool: str) -> dict[str, RatedGame]:
        raw = self.redis.hgetall(keys.rating_games(pool))
        return {
            game.game_id: game
            for game in (RatedGame.from_json(k.decode(), v) for k, v in raw.items())
        }

    def _store(
        self, pool: str, version: int, replaces: str, rated: Sequence[RatedGame], after: Standings
    ) -> bool:
        args: list[Any] = [version, replaces, len(rated)]
        for game in rated:
            args += [game.game_id, repr(game.score), game.to_json()]
        for identity, (found, name) in sorted(after.items()):
            record = json.dumps({**found.as_dict(), "name": name}, sort_keys=True)
            args += [identity, record, repr(found.ordinal)]
        names = (keys.rating_version, keys.rating_skills, keys.rating_board)
        tail = (keys.rating_ledger, keys.rating_games)
        written = self._write(keys=[name(pool) for name in (*names, *tail)], args=args)
        return bool(written)

    def _game_ids(self) -> Iterator[str]:
        # every game's table, whether its log is in Redis or sealed into an archive
        for key in self.redis.scan_iter(match=keys.META_PATTERN, count=500, _type="HASH"):
            text = key.decode() if isinstance(key, bytes) else key
            yield text.partition("{")[2].rpartition("}")[0]


def _pool(pool_id: str) -> Pool:
    found = pools().get(pool_id)
    if found is None:
        raise NotFound("pool_not_found", f"There is no rating pool {pool_id!r}.")
    return found


def _row(identity: str, raw: bytes | str) -> dict[str, Any]:
    data = json.loads(raw)
    found = Skill.of(data)
    return {
        "player": identity,
        "name": data["name"],
        "bot": identity.startswith(BOT),
        "mu": found.mu,
        "sigma": found.sigma,
        "ordinal": found.ordinal,
        "games": found.games,
        "provisional": found.provisional,
    }
