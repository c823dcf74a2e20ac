"""Accounts: a player is a name and a password, one identity across games.

A player's id (`p_` and 16 random URL-safe characters) never changes; their name is
unique however it is spelled: names are compared by their key, NFC then casefolded, so
"Ann", "ANN" and "ann" are one name, kept as first written for display. A password is
kept only as its Argon2id hash (argon2-cffi's defaults, RFC 9106's second choice).

Logging in answers one refusal, `bad_credentials`, for an unknown name and a wrong
password alike, and takes as long either way: an unknown name is still verified, against
a hash of a random password made with the same parameters. Names are public (a
player's page is found by name), so taking a name at sign-up may say it is taken.

Argon2 costs a quarter second of CPU by design; a web process serves thousands of
waiting followers on one gevent loop, so the hashing runs on gevent's thread pool
there (argon2's C code releases the GIL), never on the loop.
"""

import secrets
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import redis
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from service import keys
from service.errors import Conflict, Refused, Unauthenticated

ID_PREFIX = "p_"
# Names no account may take: "me" is the path of one's own page (/players/me); "<level>
# bot" is how a bot is shown, and an account must not pass for one; "." and ".." are
# not a page's path either.
RESERVED_NAMES = frozenset({"me", ".", ".."})
BOT_SUFFIX = " bot"
T = TypeVar("T")


@dataclass(frozen=True)
class Player:
    """An account, as the service reads it (never its password)."""

    id: str
    name: str
    created: float

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "created": self.created}


def name_key(name: str) -> str:
    """What makes two names one: NFC, casefolded, NFC again (casefolding may undo it)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def new_player_id() -> str:
    return ID_PREFIX + secrets.token_urlsafe(12)  # 16 characters, 96 bits


def off_the_loop(work: Callable[..., T], *args: Any) -> T:
    """`work(*args)` on gevent's thread pool in a gevent-patched process (the web), else
    here: a quarter second of hashing must not stall the loop every follower waits on."""
    try:
        from gevent import get_hub, monkey
    except ImportError:  # pragma: no cover - gevent is a dependency
        return work(*args)
    if not monkey.is_module_patched("threading"):
        return work(*args)
    result: T = get_hub().threadpool.apply(work, args)
    return result


class Players:
    """The accounts, in the game store's Redis."""

    def __init__(
        self,
        client: redis.Redis,
        hasher: PasswordHasher | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.redis = client
        self.hasher = hasher or PasswordHasher()
        self.now = clock
        self._dummy: str | None = None

    def register(self, name: str, password: str) -> Player:
        """A new account; Conflict("name_taken") when the name is another's in any spelling.

        The record is written first, then its name claimed (HSETNX, one key): a crash in
        between leaves an unnamed record nobody can log in to, never a name without one."""
        key = name_key(name)
        refuse_reserved(key)
        player = Player(new_player_id(), name, round(self.now(), 3))
        hashed = off_the_loop(self.hasher.hash, password)
        record = {"name": name, "name_key": key, "password": hashed, "created": player.created}
        self.redis.hset(keys.player(player.id), mapping=record)
        if not self.redis.hsetnx(keys.PLAYER_NAMES, key, player.id):
            self.redis.delete(keys.player(player.id))
            raise Conflict("name_taken", "That name is taken.", "name")
        return player

    def get(self, player_id: str) -> Player | None:
        found = self.redis.hmget(keys.player(player_id), ["name", "created"])
        if found[0] is None or found[1] is None:
            return None
        return Player(player_id, found[0].decode(), float(found[1]))

    def by_name(self, name: str) -> Player | None:
        player_id = self.redis.hget(keys.PLAYER_NAMES, name_key(name))
        return self.get(player_id.decode()) if player_id else None

    def authenticate(self, name: str, password: str) -> Player:
        """The player whose name and password these are, or Unauthenticated
        ("bad_credentials"), the same refusal in the same time for an unknown name."""
        dummy = self._dummy_hash()  # made by the first log-in, whichever name it is for
        player_id = self.redis.hget(keys.PLAYER_NAMES, name_key(name))
        stored = self.redis.hget(keys.player(player_id.decode()), "password") if player_id else None
        hashed = stored.decode() if stored else dummy
        if not off_the_loop(self._verify, hashed, password) or not stored or not player_id:
            raise Unauthenticated("bad_credentials", "The name or the password is wrong.")
        if self.hasher.check_needs_rehash(hashed):  # the parameters were raised since
            rehashed = off_the_loop(self.hasher.hash, password)
            self.redis.hset(keys.player(player_id.decode()), "password", rehashed)
        player = self.get(player_id.decode())
        if player is None:
            raise Unauthenticated("bad_credentials", "The name or the password is wrong.")
        return player

    def _verify(self, hashed: str, password: str) -> bool:
        try:
            return self.hasher.verify(hashed, password)
        except (VerificationError, InvalidHashError):
            return False

    def _dummy_hash(self) -> str:
        """A hash of a random password with the hasher's parameters: what an unknown name is
        verified against, so that it costs what a known one does."""
        if self._dummy is None:
            self._dummy = off_the_loop(self.hasher.hash, secrets.token_urlsafe(24))
        return self._dummy


def refuse_reserved(key: str) -> None:
    """A name that is a path ("me"), passes for a bot ("strong bot") or holds a "/" (a
    player's page is /players/<name>) is not an account's."""
    if "/" in key:
        raise Refused("name_refused", 'A player\'s name may not hold a "/".', "name")
    if key in RESERVED_NAMES or key.endswith(BOT_SUFFIX) or key == BOT_SUFFIX.strip():
        raise Refused("name_reserved", "That name is kept for the service's own use.", "name")
