"""Who a request comes from, read from its headers and cookies (`service.credentials`).

- `Authorization: Bearer <token>`: a personal token (`ctp_…`: a player) or a seat's
  token. A personal token that is unknown or revoked is 401, at once.
- Without one, the session cookie (`cardtrail_session`, HttpOnly, SameSite=Lax): the
  player it was opened for. A write authenticated by the cookie must carry the session's
  CSRF token in `X-CSRF-Token` (double submit: the same value is in the readable cookie
  `cardtrail_csrf`, and the server compares it with the one it keeps for the session);
  else 403 `csrf_failed`. A bearer token is never sent by a browser on its own, so
  requests that carry one need no such check. An expired or closed session is no
  credential: the request is a spectator's.
"""

from collections.abc import Callable
from typing import Any

from flask import Response, current_app, request

from service.auth import Credential
from service.credentials import Session, is_personal_token
from service.errors import Forbidden, Unauthenticated
from service.players import Player

SESSION_COOKIE = "cardtrail_session"
CSRF_COOKIE = "cardtrail_csrf"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def _app() -> Any:
    return current_app.extensions["cardtrail"]


def bearer_token() -> str | None:
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip() or not token.isascii():
        raise Unauthenticated("malformed_authorization", 'Use "Authorization: Bearer <token>".')
    return token.strip()


def credential() -> Credential:
    """The seat token, the player, or None (a spectator) this request comes from."""
    token = bearer_token()
    if token is None:
        return session_player()
    if not is_personal_token(token):
        return token
    player: Player | None = _app().credentials.player_of_token(token)
    if player is None:
        raise Unauthenticated("unknown_token", "This token is not valid.")
    return player


def still_valid() -> Callable[[], bool]:
    """Whether the credential this request came with still holds, asked again later: a
    stream (SSE) opened with a session or a personal token stops once the session is
    closed or the token revoked, instead of going on with what it was shown at opening.
    A seat token, or no credential, cannot be withdrawn."""
    credentials = _app().credentials
    token = bearer_token()
    if token is not None:
        if not is_personal_token(token):
            return lambda: True
        return lambda: credentials.player_of_token(token) is not None
    sid = session_id()
    if sid is None or credentials.session(sid) is None:
        return lambda: True  # a spectator's request, whatever cookie it carries
    return lambda: credentials.session(sid) is not None


def player() -> Player:
    """The player this request comes from, who must be one."""
    who = credential()
    if isinstance(who, Player):
        return who
    if who is None:
        raise Unauthenticated(
            "not_logged_in", "Log in (POST /session) or send a personal token as a Bearer token."
        )
    raise Forbidden("not_a_player", "A seat's token acts for its seat; this needs a player's.")


def optional_player() -> Player | None:
    """The player this request comes from, if it is one (a seat token is no player)."""
    who = credential()
    return who if isinstance(who, Player) else None


def session_id() -> str | None:
    return request.cookies.get(SESSION_COOKIE) or None


def session_player() -> Player | None:
    """The session cookie's player (CSRF checked on writes), or None without a session."""
    sid = session_id()
    if sid is None:
        return None
    found = _app().credentials.session(sid)
    if found is None:
        return None
    player, csrf = found
    sent = request.headers.get(CSRF_HEADER)
    if request.method not in SAFE_METHODS and not _app().credentials.csrf_matches(csrf, sent):
        raise Forbidden(
            "csrf_failed",
            f"Send the session's CSRF token (cookie {CSRF_COOKIE}) in {CSRF_HEADER}.",
            CSRF_HEADER,
        )
    return player


def set_session_cookies(response: Response, session: Session) -> Response:
    """The session's cookies: its id (HttpOnly) and the CSRF token scripts read."""
    secure = request.is_secure
    seconds = max(0, int(session.expires - _now()))
    response.set_cookie(SESSION_COOKIE, session.id, max_age=seconds, path="/", secure=secure,
                        httponly=True, samesite="Lax")  # fmt: skip
    response.set_cookie(CSRF_COOKIE, session.csrf, max_age=seconds, path="/", secure=secure,
                        httponly=False, samesite="Lax")  # fmt: skip
    return response


def clear_session_cookies(response: Response) -> Response:
    for name in (SESSION_COOKIE, CSRF_COOKIE):
        response.delete_cookie(name, path="/", secure=request.is_secure, samesite="Lax")
    return response


def _now() -> float:
    now: float = _app().credentials.now()
    return now
