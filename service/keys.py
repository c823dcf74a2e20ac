"""The Redis key layout, in one place.

Every key of one game carries the hash tag `{<game id>}`, so a game's Lua
scripts touch a single Redis Cluster slot. Cross-game indexes live outside any
game's tag and are only ever written outside the game scripts.
"""

GAMES_BY_CREATION = "cardtrail:games"  # sorted set: game id -> creation time
TOKENS = "cardtrail:tokens"  # hash: sha256(token) -> game id (to tell 403 from 401)


def games_by_status(status: str) -> str:
    return f"cardtrail:games:{status}"  # sorted set per status


def _tag(game_id: str) -> str:
    return f"cardtrail:game:{{{game_id}}}"


def events(game_id: str) -> str:
    return f"{_tag(game_id)}:events"  # stream, entry ids 0-1, 0-2, … = versions


def meta(game_id: str) -> str:
    return f"{_tag(game_id)}:meta"  # hash: game, preset, seats, seed, token hashes


def snapshot(game_id: str) -> str:
    return f"{_tag(game_id)}:snapshot"  # hash: version, rules_version, state


def idempotency(game_id: str, key_digest: str) -> str:
    return f"{_tag(game_id)}:idem:{key_digest}"  # string: request digest + stored response


def clock(game_id: str) -> str:
    return f"{_tag(game_id)}:clock"  # hash: seat -> its current clocked turn (a cache of the log)
