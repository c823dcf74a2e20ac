"""Every error as RFC 9457 problem+json: type, title, status, detail, and a stable `code`.

Validation errors also list each bad field with its reason. Unexpected
exceptions become a 500 problem without internals. The headers an HTTP exception
carries (`Allow` on a 405) stay on its problem.
"""

from typing import Any

from flask import Response, json
from werkzeug.exceptions import HTTPException

PROBLEM_TYPE = "https://cardtrail.dev/problems/"
_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    412: "precondition_failed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable",
}


MEDIA_TYPE = "application/problem+json"


def body(
    status: int,
    code: str,
    detail: str,
    title: str | None = None,
    errors: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A problem's members (the OpenAPI document's examples are made with it too)."""
    made: dict[str, Any] = {
        "type": PROBLEM_TYPE + code,
        "title": title or code.replace("_", " ").capitalize(),
        "status": status,
        "detail": detail,
        "code": code,
    }
    if errors:
        made["errors"] = errors
    return made


def problem(
    status: int,
    code: str,
    detail: str,
    title: str | None = None,
    errors: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    made = body(status, code, detail, title, errors)
    response = Response(json.dumps(made), status=status, mimetype=MEDIA_TYPE)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def flatten(messages: Any, prefix: str = "") -> list[dict[str, Any]]:
    """Marshmallow's nested messages as a flat list of {field, reason}."""
    if isinstance(messages, dict):
        result = []
        for key, value in messages.items():
            if key in ("json", "query", "headers", "_schema") and not prefix:
                result += flatten(value, "" if key != "_schema" else "_schema")
                continue
            if key == "_schema" and prefix:  # a nested object as a whole: name the object
                result += flatten(value, prefix)
                continue
            name = f"{prefix}.{key}" if prefix else str(key)
            result += flatten(value, name)
        return result
    if isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        return [{"field": prefix or None, "reason": m} for m in messages]
    if isinstance(messages, list):
        return [item for m in messages for item in flatten(m, prefix)]
    return [{"field": prefix or None, "reason": str(messages)}]


def from_http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    messages = data.get("errors") or data.get("messages")
    if status == 422 and messages:
        errors = flatten(messages)
        detail = "; ".join(f"{e['field']}: {e['reason']}" for e in errors)
        return problem(422, "validation_error", detail, "Invalid request", errors)
    if status == 400 and messages:
        errors = flatten(messages)
        return problem(400, "malformed_json", "The body is not valid JSON.", errors=errors)
    code = _CODES.get(status, "error")
    detail = data.get("message") or error.description or error.name
    return problem(status, code, detail, error.name, headers=_headers_of(error, data))


def _headers_of(error: HTTPException, data: dict[str, Any]) -> dict[str, str]:
    """The exception's own headers (`Allow` of a 405), but not its HTML content type."""
    kept = {name: value for name, value in error.get_headers() if name.lower() != "content-type"}
    return {**kept, **(data.get("headers") or {})}
