"""The OpenAPI document's parts about credentials: the security schemes (a Bearer token,
a seat's or a player's personal one; a player's session cookie), the CSRF header a
cookie's writes send, the session's cookies, and a rematch's Idempotency-Key
(`service.api.openapi` registers them with the rest)."""

from typing import Any

_STRING = {"type": "string"}
_KEY = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[\\x20-\\x7e]+$"}

SECURITY_SCHEMES = {
    "bearerAuth": {
        "type": "http",
        "scheme": "bearer",
        "description": "A seat's token, given once when the seat is taken (create or join), "
        "or a player's personal token (ctp_…, POST /players/me/tokens): a player acts for "
        "the seats bound to them in any game.",
    },
    "sessionCookie": {
        "type": "apiKey",
        "in": "cookie",
        "name": "cardtrail_session",
        "description": "A player's session (POST /session): HttpOnly, SameSite=Lax. Every "
        "write it authenticates must send the session's CSRF token as X-CSRF-Token.",
    },
}

HEADERS: dict[str, dict[str, Any]] = {
    "Set-Cookie": {
        "description": "The session's cookies: cardtrail_session (HttpOnly, SameSite=Lax, "
        "Secure over HTTPS) and cardtrail_csrf (readable by the page's scripts); cleared "
        "on log-out.",
        "schema": _STRING,
    },
}


def _header(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"in": "header", "name": name, "required": False, "description": description,
            "schema": schema}  # fmt: skip


PARAMETERS: dict[str, dict[str, Any]] = {
    "Idempotency-Key.rematch": _header(
        "Idempotency-Key",
        "Makes the rematch request safe to retry; scoped to the game. Without a key a game "
        "still has one rematch however often it is asked: the key keeps this answer (with "
        "the asker's new seat token) for a retry. The same key within 24 h: the same "
        "answer again; the same key from another seat: 422 idempotency_key_reused; while "
        "the first is still being answered: 409 idempotency_key_in_use.",
        _KEY,
    ),
    "X-CSRF-Token": _header(
        "X-CSRF-Token",
        "With the session cookie, on every write: the `csrf` of POST /session (also in the "
        "cookie cardtrail_csrf); else 403 csrf_failed. Not needed with a Bearer token.",
        _STRING,
    ),
}
