"""The Redis key layout and every background job's id, in one place.

Every key of one game carries the hash tag `{<game id>}`, so a game's Lua scripts touch
a single Redis Cluster slot. Cross-game indexes live outside any game's tag and are
only ever written outside the game scripts. Job ids name their game and version, so a
job is enqueued once however often it is asked for.
"""

GAMES_BY_CREATION = "cardtrail:games"  # sorted set: game id -> creation time
TOKENS = "cardtrail:tokens"  # hash: sha256(token) -> game id (to tell 403 from 401)
BOTS_WAITING = "cardtrail:bots:waiting"  # sorted set: game id -> since when it waits on a bot
TURN_JOBS = "cardtrail:bots:jobs"  # hash: game id -> "<version> <job id>" of its bot turn's job
DEADLINES = "cardtrail:clock:deadlines"  # sorted set: game id -> earliest pending deadline
RECONCILE_LOCK = "cardtrail:reconcile:lock"  # string: one reconciler at a time
SNAPSHOT_PATTERN = "cardtrail:game:*:snapshot"  # every game's snapshot (to drop them all)
SIGNING_KEYS = "cardtrail:signing:keys"  # hash: key id -> public key that signed receipts
SEALS_DUE = "cardtrail:sealing:due"  # sorted set: game id -> when it ended, until it is sealed
RATE_LIMITS = "cardtrail:limits"  # the prefix of flask-limiter's counters (service/api/limits)


def games_by_status(status: str) -> str:
    return f"cardtrail:games:{status}"  # sorted set per status


def _tag(game_id: str) -> str:
    return f"cardtrail:game:{{{game_id}}}"


def events(game_id: str) -> str:
    return f"{_tag(game_id)}:events"  # stream, entry ids 0-1, 0-2, … = versions


def meta(game_id: str) -> str:
    return f"{_tag(game_id)}:meta"  # hash: the table (service.tables owns its fields)


def snapshot(game_id: str) -> str:
    return f"{_tag(game_id)}:snapshot"  # hash: version, rules_version, hash, state, mac


def idempotency(game_id: str, key_digest: str) -> str:
    """A move's Idempotency-Key: `key_digest` is "<seat>:<sha256 of the key>", so each seat
    has keys of its own (string: request digest + stored response)."""
    return f"{_tag(game_id)}:idem:{key_digest}"


def idempotency_keys(game_id: str) -> str:
    """Set: the names of the game's move idempotency keys (sealing drops them)."""
    return f"{_tag(game_id)}:idem-keys"


def join_idempotency(game_id: str, key_digest: str) -> str:
    return f"{_tag(game_id)}:idem:join:{key_digest}"  # string: a join's kept answer (sealed)


def create_idempotency(key_digest: str) -> str:
    return f"cardtrail:idem:create:{key_digest}"  # string: a create's kept answer (sealed)


def clock(game_id: str) -> str:
    return f"{_tag(game_id)}:clock"  # hash: seat -> its current clocked turn (a cache of the log)


# -- job ids ------------------------------------------------------------------


def bot_turn_job(game_id: str, version: int, attempt: int = 0) -> str:
    base = f"bot-{game_id}-{version}"
    return base if attempt == 0 else f"{base}-retry{attempt}"


def deadline_job(game_id: str, version: int, suffix: str = "") -> str:
    return f"deadline-{game_id}-{version}{suffix}"


def reminder_job(game_id: str, version: int) -> str:
    return f"remind-{game_id}-{version}"


def seal_job(game_id: str, attempt: int = 0) -> str:
    return f"seal-{game_id}" if attempt == 0 else f"seal-{game_id}-retry{attempt}"


# -- ratings (service/ratings.py): a projection of the logs, every key of one pool under
# the pool's tag, so each write of a pool is one script on one Cluster slot ----------

META_PATTERN = "cardtrail:game:*:meta"  # every game's table (the rebuild reads every game)


def _pool_tag(pool: str) -> str:
    return f"cardtrail:ratings:{{{pool}}}"


def rating_skills(pool: str) -> str:
    return f"{_pool_tag(pool)}:skills"  # hash: identity -> {mu, sigma, games, name} JSON


def rating_board(pool: str) -> str:
    return f"{_pool_tag(pool)}:board"  # sorted set: identity -> ordinal (mu - 3 sigma)


def rating_ledger(pool: str) -> str:
    return f"{_pool_tag(pool)}:ledger"  # sorted set: game id -> when it ended (the order)


def rating_games(pool: str) -> str:
    return f"{_pool_tag(pool)}:games"  # hash: game id -> the rated game (service.rated_games)


def rating_version(pool: str) -> str:
    return f"{_pool_tag(pool)}:version"  # counter: every write of the pool checks and bumps it


def ratings_job(game_id: str) -> str:
    return f"ratings-{game_id}"


# -- players (service/players.py, service/player_games.py): every key of one player
# under the player's tag; the name and token indexes are cross-player hashes --------

PLAYER_NAMES = "cardtrail:players:names"  # hash: name key (NFC, casefolded) -> player id
PLAYER_TOKENS = "cardtrail:players:tokens"  # hash: sha256(personal token) -> "<player> <token id>"


def _player_tag(player_id: str) -> str:
    return f"cardtrail:player:{{{player_id}}}"


def player(player_id: str) -> str:
    return _player_tag(player_id)  # hash: name, name_key, password (Argon2id hash), created


def player_tokens(player_id: str) -> str:
    return f"{_player_tag(player_id)}:tokens"  # hash: token id -> {label, created, digest} JSON


def player_games(player_id: str) -> str:
    return f"{_player_tag(player_id)}:games"  # sorted set: game id -> when the game was created


def player_live(player_id: str) -> str:
    """Sorted set: the player's games still waiting or playing (game id -> created), so
    the inbox finds them however many finished games the player has."""
    return f"{_player_tag(player_id)}:live"


def player_invited(player_id: str) -> str:
    return f"{_player_tag(player_id)}:invited"  # sorted set: games awaiting the player


def player_news(player_id: str) -> str:
    """Stream: what the player should hear of (invited, rematch_offered), newest last;
    the player's own stream of news reads it."""
    return f"{_player_tag(player_id)}:news"


def session(digest: str) -> str:
    return f"cardtrail:session:{{{digest}}}"  # hash: player, csrf (expires with the session)


def rematch_idempotency(game_id: str, key_digest: str) -> str:
    return f"{_tag(game_id)}:idem:rematch:{key_digest}"  # string: a rematch's kept answer
