"""HTTP conventions the resources keep, each in one place.

- What a token changes is the bearer's: answers of the operations marked `private` carry
  `Cache-Control: private, no-store` (a seat's cards or a seat's token must not sit in
  any cache) and, where the token shapes the answer, `Vary: Authorization` — errors too,
  since an answer is set after the route, whatever it returned.
- A view and an event list carry an ETag naming that very representation (a digest of
  its bytes: a seat's view differs from a spectator's, and a view changes with anything
  it shows, a player sitting down included, not only with the version); If-None-Match
  naming it is answered 304 with no body.
- Whatever is created is answered 201 with its `Location`.
"""

import functools
import hashlib
import re
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Flask, Response, g, request, url_for

from service.api import jsonio

View = TypeVar("View", bound=Callable[..., Any])
NO_STORE = "private, no-store"
_VERSION = re.compile(rb'\{"version":\s*([0-9]{1,18})[,}]')  # an event list leads with it
_MARK = "cardtrail_private"


def private(vary: bool = True) -> Callable[[View], View]:
    """Mark the answers of a view as the bearer's (see the module's docstring); `vary`
    when the bearer token shapes them."""

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def marked(*args: Any, **kwargs: Any) -> Any:
            setattr(g, _MARK, vary)
            return view(*args, **kwargs)

        return marked  # type: ignore[return-value]

    return decorate


def _cache_headers(response: Response) -> Response:
    vary = getattr(g, _MARK, None)
    if vary is None:
        return response
    response.headers["Cache-Control"] = NO_STORE
    if vary and "Vary" not in response.headers:
        response.headers["Vary"] = "Authorization"  # as `vary.add` writes it, unparsed
    elif vary:
        response.vary.add("Authorization")
    return response


def init(app: Flask) -> None:
    app.after_request(_cache_headers)


def tagged(body: bytes, mimetype: str = "application/json", version: int | None = None) -> Response:
    """`body` with its ETag, or 304 when the request's If-None-Match names it. The tag
    begins with the version the body shows (`"12-3fa9…"`), so a client may send a view's
    ETag back as a move's If-Match, as HTTP has it."""
    digest = hashlib.sha256(body).hexdigest()
    if version is None and (shown := _VERSION.match(body)):
        version = int(shown.group(1))
    tag = f"{version}-{digest[:24]}" if isinstance(version, int) else digest[:32]
    response = Response(body, mimetype=mimetype)
    response.set_etag(tag)
    # RFC 9110's weak comparison for If-None-Match ("*" matches too); no other precondition
    # is read on a read (werkzeug's make_conditional would also judge If-Match, Range and
    # dates, none of which these answers document).
    if request.method in ("GET", "HEAD") and request.if_none_match.contains_weak(tag):
        response.status_code = 304
        response.set_data(b"")
    return response


def tagged_json(data: Any) -> Response:
    """`data` as the app's JSON, tagged (see `tagged`)."""
    shown = data.get("version") if isinstance(data, dict) else None
    return tagged(jsonio.dumpb(data) + b"\n", version=shown)


def created(answer: dict[str, Any], game_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
    """A 201 answer with the game's Location."""
    return answer, 201, {"Location": url_for("games.GameResource", game_id=game_id)}
