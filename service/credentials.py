"""Who is asking: a seat's token, a player (by a session or a personal token), or nobody.

- A seat token (`service.auth`) acts for one seat of one game, as it always did.
- A session is what logging in opens for a browser: a random id the client keeps in an
  HttpOnly cookie, and a CSRF token it sends back with every write (the HTTP edge checks
  it, `service.api.callers`). The server keeps only the id's SHA-256, with the player and
  the CSRF token, and lets it expire after SESSION_DAYS.
- A personal token (`ctp_` and 256 random bits) is for programs a player runs: listed
  without its secret, revocable one by one; the server keeps only its SHA-256. A revoked
  token is gone from the index every request reads, so it stops at once.
"""

import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis

from service import keys
from service.errors import Conflict, NotFound
from service.players import Player, Players

TOKEN_PREFIX = "ctp_"
SESSION_DAYS = 30
MAX_TOKENS = 50  # personal tokens one player holds at once


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def is_personal_token(token: str) -> bool:
    return token.startswith(TOKEN_PREFIX)


@dataclass(frozen=True)
class Session:
    id: str  # the cookie's value: the client's secret
    csrf: str  # sent back in X-CSRF-Token with every write
    expires: float


class Credentials:
    """Sessions and personal tokens, in the game store's Redis."""

    def __init__(
        self, client: redis.Redis, players: Players, clock: Callable[[], float] = time.time
    ) -> None:
        self.redis = client
        self.players = players
        self.now = clock

    # -- sessions -----------------------------------------------------------------

    def open_session(self, player: Player) -> Session:
        session = Session(
            secrets.token_urlsafe(32), secrets.token_urlsafe(24), self.now() + SESSION_DAYS * 86400
        )
        pipe = self.redis.pipeline(transaction=False)
        name = keys.session(digest(session.id))
        pipe.hset(name, mapping={"player": player.id, "csrf": session.csrf})
        pipe.expire(name, SESSION_DAYS * 86400)
        pipe.execute()
        return session

    def session(self, session_id: str) -> tuple[Player, str] | None:
        """The player a session is for and its CSRF token; None once it is closed or expired."""
        found = self.redis.hmget(keys.session(digest(session_id)), ["player", "csrf"])
        if found[0] is None or found[1] is None:
            return None
        player = self.players.get(found[0].decode())
        return None if player is None else (player, found[1].decode())

    def close_session(self, session_id: str) -> None:
        self.redis.delete(keys.session(digest(session_id)))

    @staticmethod
    def csrf_matches(expected: str, sent: str | None) -> bool:
        return sent is not None and hmac.compare_digest(expected.encode(), sent.encode())

    # -- personal tokens ------------------------------------------------------------

    def new_token(self, player: Player, label: str) -> dict[str, Any]:
        """A personal token: its secret is in this answer only."""
        if self.redis.hlen(keys.player_tokens(player.id)) >= MAX_TOKENS:
            raise Conflict(
                "too_many_tokens", f"A player holds at most {MAX_TOKENS} tokens: revoke one."
            )
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token_id = "t_" + secrets.token_urlsafe(9)
        shown = {"id": token_id, "label": label, "created": round(self.now(), 3)}
        kept = {**shown, "digest": digest(token)}
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(keys.player_tokens(player.id), token_id, json.dumps(kept))
        pipe.hset(keys.PLAYER_TOKENS, kept["digest"], f"{player.id} {token_id}")
        pipe.execute()
        return {**shown, "token": token}

    def tokens(self, player: Player) -> list[dict[str, Any]]:
        """The player's tokens, oldest first, without their secrets (nor their digests)."""
        kept = [json.loads(raw) for raw in self.redis.hvals(keys.player_tokens(player.id))]
        kept.sort(key=lambda token: (token["created"], token["id"]))
        return [{k: token[k] for k in ("id", "label", "created")} for token in kept]

    def revoke(self, player: Player, token_id: str) -> None:
        """The token stops at once: out of the index every request reads first."""
        raw = self.redis.hget(keys.player_tokens(player.id), token_id)
        if raw is None:
            raise NotFound("token_not_found", "You hold no token with that id.")
        self.redis.hdel(keys.PLAYER_TOKENS, json.loads(raw)["digest"])
        self.redis.hdel(keys.player_tokens(player.id), token_id)

    def player_of_token(self, token: str) -> Player | None:
        """The player a personal token is for; None when it is unknown or revoked."""
        found = self.redis.hget(keys.PLAYER_TOKENS, digest(token))
        if found is None:
            return None
        player_id, _, _token_id = found.decode().partition(" ")
        return self.players.get(player_id)
