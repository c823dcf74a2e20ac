"""The OpenAPI document's shared parts, registered once per app (`register`).

Every error is answered as problem+json (`problems`), so every error response in the
document is one too: one response component per status, each operation listing the
statuses it can answer (`Blueprint.refuses`). Headers a client reads or sends (ETag,
Cache-Control, Vary, Location, Retry-After, Allow, the RateLimit ones; If-None-Match,
If-Match, Idempotency-Key, Last-Event-ID) are components too, referred to by name.
"""

from collections.abc import Callable
from http import HTTPStatus
from typing import Any, TypeVar

import flask_smorest

from service.api import credential_docs, moves, problems, schemas
from service.api.credential_docs import SECURITY_SCHEMES

View = TypeVar("View", bound=Callable[..., Any])

PROBLEM_STATUSES = (400, 401, 403, 404, 405, 409, 412, 413, 415, 422, 429, 500, 503)
STORE = (500, 503)  # every operation that reads the game store: a fault, or Redis away
BODY = (400, 413, 415, 422)  # a JSON body: not JSON, too large, not sent as JSON, invalid
BEARER = (401, 403)  # a token read: malformed or unknown, or another game's

PUBLIC: list[dict[str, list[str]]] = []
OPTIONAL_BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}, {"sessionCookie": []}, {}]
BEARER_ONLY: list[dict[str, list[str]]] = [{"bearerAuth": []}, {"sessionCookie": []}]
PLAYER_ONLY = BEARER_ONLY  # a personal token (as a Bearer token) or the session cookie

DESCRIPTION = """Card games where every move is on the record (README.md).

- Errors are `application/problem+json` (RFC 9457): `type`, `title`, `status`, `detail`,
  a stable `code`, and for bad input `errors`, each `{field, reason}`. Each operation lists
  the statuses it can answer.
- A seat acts with its token (`Authorization: Bearer <token>`), given once when the seat is
  taken; without one, reads show what a spectator may see. A player (an account: POST
  /players) acts for the seats bound to them with their own credential: a personal token
  as the Bearer token, or the session cookie of POST /session (writes then send its CSRF
  token as `X-CSRF-Token`). A player who holds no seat in a game watches it as a
  spectator and may not move in it (403 `not_seated`).
- Views, event lists and the list of games carry an `ETag` naming that very answer
  (seats' views differ); `If-None-Match` with it is answered 304 while it is current.
  Answers a token changes are `Cache-Control: private, no-store` and `Vary: Authorization`.
- Moves take `If-Match: "<version>"` (412 when the game is elsewhere) and an
  `Idempotency-Key` of the seat's own; creates and joins take one too (see each).
- Creating, joining, moving, following, signing up and logging in are rate-limited: 429
  with `Retry-After`. A
  store outage or a full server is 503 with `Retry-After`.
"""
SPEC_OPTIONS = {
    "info": {"description": DESCRIPTION},
    "servers": [{"url": "/", "description": "This server (the document's own origin)"}],
}

_STRING = {"type": "string"}
_SECONDS = {"type": "integer", "minimum": 0}
HEADERS: dict[str, dict[str, Any]] = {
    "ETag": {
        "description": "Names this very representation: seats' views differ, and so do their "
        "tags. Send it back as If-None-Match to be answered 304 while it is current.",
        "schema": _STRING,
    },
    "Cache-Control": {
        "description": "private, no-store: the answer is the bearer's (a seat's cards, its "
        "token) and no cache may keep it.",
        "schema": {**_STRING, "example": "private, no-store"},
    },
    "Vary": {
        "description": "Authorization: the answer depends on the bearer token.",
        "schema": {**_STRING, "example": "Authorization"},
    },
    "Location": {
        "description": "The game's URL.",
        "schema": {**_STRING, "format": "uri-reference"},
    },
    "Retry-After": {"description": "Seconds to wait before retrying.", "schema": _SECONDS},
    "Allow": {"description": "The methods this path answers.", "schema": _STRING},
    "RateLimit-Limit": {"description": "Requests allowed in the window.", "schema": _SECONDS},
    "RateLimit-Remaining": {"description": "Requests left in the window.", "schema": _SECONDS},
    "RateLimit-Reset": {"description": "Seconds until the window resets.", "schema": _SECONDS},
    "WWW-Authenticate": {"description": "The scheme to use: Bearer.", "schema": _STRING},
    "Content-Disposition": {"description": "A file name to save it as.", "schema": _STRING},
    **credential_docs.HEADERS,
}
TAGGED = {"ETag": "ETag", "Cache-Control": "Cache-Control", "Vary": "Vary"}
PRIVATE = {"Cache-Control": "Cache-Control", "Vary": "Vary"}
SECRET = {"Cache-Control": "Cache-Control", "Location": "Location"}
RATE = {name: name for name in ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")}
_STATUS_HEADERS = {
    401: ("WWW-Authenticate",),
    405: ("Allow",),
    429: ("Retry-After", *RATE),
    503: ("Retry-After",),
}


def _header(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"in": "header", "name": name, "required": False, "description": description,
            "schema": schema}  # fmt: skip


_KEY = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[\\x20-\\x7e]+$"}
_SAME = " The same key and body within 24 h: the same answer again, nothing done twice; the "
_SAME += "same key with another body: 422 idempotency_key_reused; while the first is still "
PARAMETERS: dict[str, dict[str, Any]] = {
    "If-None-Match": _header(
        "If-None-Match",
        "An ETag from an earlier answer: 304, no body, while it is current.",
        _STRING,
    ),
    "If-Match": _header(
        "If-Match",
        'The version the move was decided on, "12" (W/"12" and 12 too), or the ETag of a '
        'view or event list ("12-3f…": it begins with the version): 412 when the game is at '
        "another one.",
        {
            "type": "string",
            "pattern": '^[ \\t]*(W/)?("[ \\t]*[0-9]{1,18}(-[0-9a-f]{1,64})?[ \\t]*"'
            "|[ \\t]*[0-9]{1,18})[ \\t]*$",
        },
    ),
    "Idempotency-Key.create": _header(
        "Idempotency-Key",
        "Makes the create safe to retry. The key is the client's secret, scoped by nothing "
        "else (there are no accounts): use a fresh random one (a UUID) per game meant, since "
        "the answer, seat tokens included, goes to whoever repeats key and body."
        + _SAME
        + "being answered: 409 idempotency_key_in_use.",
        _KEY,
    ),
    "Idempotency-Key.join": _header(
        "Idempotency-Key",
        "Makes the join safe to retry; scoped to the game. The answer holds the seat's "
        "token: use a fresh random key." + _SAME + "being answered: 409 idempotency_key_in_use.",
        _KEY,
    ),
    "Idempotency-Key.move": _header(
        "Idempotency-Key",
        "Makes the move safe to retry; scoped to the bearer's seat (each seat's keys are "
        "its own). The same key and body within 24 h: the same answer again, the move made "
        "once; the same key with another body: 422 idempotency_key_reused.",
        _KEY,
    ),
    **credential_docs.PARAMETERS,
    "Last-Event-ID": _header(
        "Last-Event-ID",
        "The id (version) of the last event received: the stream resumes after it, "
        "whatever `after` says.",
        {"type": "string", "pattern": "^[ \\t]*([0-9]{1,18})?[ \\t]*$"},
    ),
}


def response_name(status: int) -> str:
    """The component name of a status's response: flask-smorest's own naming (its
    arguments refer to UNPROCESSABLE_ENTITY), so there is one per status."""
    return HTTPStatus(status).name


_EXAMPLES = {
    400: ("malformed_json", "The body is not valid JSON.", None),
    401: ("unknown_token", "This token is not valid.", None),
    403: ("token_for_another_game", "This token belongs to another game.", None),
    404: ("game_not_found", "There is no game 'x'.", None),
    405: ("method_not_allowed", "The method is not allowed for the requested URL.", None),
    409: ("version_conflict", "The game moved on (now at version 7); reload and try again.", None),
    412: ("version_mismatch", "The game is at version 7, not 6.", None),
    413: ("payload_too_large", "The data value transmitted exceeds the capacity limit.", None),
    415: ("unsupported_media_type", "Send the body as JSON with Content-Type: "
          "application/json.", None),
    422: ("validation_error", "seats: Missing data for required field.",
          [{"field": "seats", "reason": "Missing data for required field."}]),
    429: ("rate_limited", "Too many requests: at most 30 per 1 minute.", None),
    500: ("internal_error", "Something went wrong on our side.", None),
    503: ("store_unavailable", "The game store is unavailable; retry shortly.", None),
}  # fmt: skip


def problem_response(status: int) -> dict[str, Any]:
    code, detail, errors = _EXAMPLES[status]
    example = problems.body(status, code, detail, errors=errors)
    response: dict[str, Any] = {
        "description": HTTPStatus(status).phrase + " (problem details; `code` says which)",
        "content": {
            problems.MEDIA_TYPE: {"schema": {"$ref": moves.REF + "Problem"}, "example": example}
        },
    }
    if status in _STATUS_HEADERS:
        response["headers"] = {name: name for name in _STATUS_HEADERS[status]}
    return response


EXPORT_LINES = {
    "description": "JSON Lines (docs/export-format.md): read line by line, the body is this "
    "array, one item a line: the header first, then each event in order.",
    "type": "array",
    "items": {
        "oneOf": [{"$ref": moves.REF + "ExportHeader"}, {"$ref": moves.REF + "ExportRecord"}]
    },
}
# A seat is exactly one of a player, a bot or an open seat (schemas.SeatRequest).
SEAT_IS_ONE_OF = {
    "oneOf": [
        {"required": ["name"]},
        {"required": ["bot"]},
        {"required": ["open"], "properties": {"open": {"type": "boolean", "enum": [True]}}},
        {"required": ["me"], "properties": {"me": {"type": "boolean", "enum": [True]}}},
        {"required": ["player"]},
    ]
}


def move_body() -> dict[str, Any]:
    return {
        "required": True,
        "content": {
            "application/json": {
                "schema": {"$ref": moves.REF + "MoveRequest"},
                "examples": moves.examples(),
            }
        },
    }


def register(spec: Any) -> None:
    """Every shared component: security, headers, parameters, problems, moves."""
    for name, scheme in SECURITY_SCHEMES.items():
        spec.components.security_scheme(name, scheme)
    for name, header in HEADERS.items():
        spec.components.header(name, header)
    for name, parameter in PARAMETERS.items():
        spec.components.parameter(name, "header", parameter)
    spec.components.schema("Problem", schema=schemas.Problem)
    spec.components.schema("SeatRequest", SEAT_IS_ONE_OF, schema=schemas.SeatRequest)
    spec.components.schema("ExportHeader", schema=schemas.ExportHeader)
    spec.components.schema("ExportRecord", schema=schemas.ExportRecord)
    for status in PROBLEM_STATUSES:
        spec.components.response(response_name(status), problem_response(status))
    not_modified = {"description": "Not Modified: the ETag sent is current.", "headers": TAGGED}
    spec.components.response(response_name(304), not_modified)
    moves.register(spec)


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint, documenting the problems an operation may answer
    (`refuses`) and the request headers it reads (`reads`). Decorators that only document
    put their part on the view itself, unwrapped: a move has a dozen, and each wrapper
    cost every request a call and a coroutine check (`ensure_sync`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._prepare_doc_cbks.append(self._prepare_headers_doc)

    def alt_response(self, status_code: Any, *args: Any, **kwargs: Any) -> Callable[[View], View]:
        """flask-smorest's alternative response, documented without a wrapper."""
        return _unwrapped(super().alt_response(status_code, *args, **kwargs))

    @staticmethod
    def doc(**kwargs: Any) -> Callable[[View], View]:
        """flask-smorest's `doc`, documented without a wrapper."""
        return _unwrapped(flask_smorest.Blueprint.doc(**kwargs))

    def refuses(self, *statuses: int) -> Callable[[View], View]:
        """Document each status as the problem response of its component."""

        def decorate(view: View) -> View:
            for status in sorted(set(statuses), reverse=True):
                view = self.alt_response(status, response=response_name(status))(view)
            return view

        return decorate

    @staticmethod
    def reads(*parameters: str) -> Callable[[View], View]:
        """Document request headers (PARAMETERS' names) next to the other parameters."""

        def decorate(view: View) -> View:
            doc = dict(getattr(view, "_apidoc", {}))
            doc["headers"] = [*doc.get("headers", ()), *parameters]
            view._apidoc = doc  # type: ignore[attr-defined]
            return view

        return decorate

    @staticmethod
    def _prepare_headers_doc(doc: dict[str, Any], doc_info: dict[str, Any], **_: Any) -> Any:
        for name in doc_info.get("headers", ()):
            doc.setdefault("parameters", []).append(name)
        return doc


def _unwrapped(documenting: Callable[[View], View]) -> Callable[[View], View]:
    """A documenting flask-smorest decorator, its document put on the view, unwrapped."""

    def decorate(view: View) -> View:
        view._apidoc = documenting(view)._apidoc  # type: ignore[attr-defined]
        return view

    return decorate
