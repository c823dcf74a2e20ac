"""Every answer a test client gets, checked against the document its own app serves.

`CheckedClient` is Flask's test client (tests/conftest.py makes it every app's) that
hands each response to openapi-core before the test sees it: the status must be one the
operation documents, the Content-Type one of that status's media types, the body valid
against its schema (or absent where none is documented), each documented header well
formed (and present where the document says `required`). Problems are collected, not
raised inside the request (a test may be half-way through a game), and
tests/conftest.py fails the test with all of them once it has run. The document is the
one the app itself serves at /openapi.json, read once per distinct document, so the
spec and the server can never be checked against a copy.

Streams (text/event-stream) are checked by status, media type and headers only: their
body never ends while the test reads it. Paths that are not part of the API (the web
pages, static files, the document itself) are left alone; any other path the document
lacks is itself a problem, unless it is answered as the document answers an unknown
path or method (a 404 problem; a 405 problem whose Allow lists the documented methods)."""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from openapi_core import Config, OpenAPI
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIRequest, WerkzeugOpenAPIResponse
from openapi_core.deserializing.media_types.util import json_loads
from openapi_core.templating.paths.exceptions import OperationNotFound, PathError
from openapi_core.templating.paths.finders import APICallPathFinder
from openapi_core.templating.responses.finders import ResponseFinder
from openapi_core.validation.response import V30ResponseHeadersValidator
from openapi_core.validation.schemas import oas30_read_schema_validators_factory
from werkzeug.test import TestResponse

# Served, but not the API: HTML pages, their assets, and the document itself.
NOT_API_PREFIXES = ("/static/", "/assets/", "/play/", "/replay/", "/profile/", "/leaderboard/")
NOT_API_PATHS = ("/", "/login", "/me", "/leaderboard", "/openapi.json")
# Readiness is left out of the document on purpose (service/api/health.py: its 503 is
# its meaning, not a fault of the request); its answers are held to the document's
# Problem all the same: 200 JSON, or 503 problem+json with Retry-After.
READINESS_PATHS = ("/health", "/health/ready")
STREAM_TYPES = ("text/event-stream",)
PROBLEM_TYPE = "application/problem+json"
HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
IMPLIED_METHODS = {"HEAD", "OPTIONS"}  # Flask answers them for every route


def _ndjson_loads(value: bytes, **parameters: str) -> list[Any]:
    """JSON Lines as the array of its lines, which is how the document describes it."""
    return [json.loads(line) for line in value.splitlines() if line.strip()]


CONFIG = Config(
    extra_media_type_deserializers={
        "application/problem+json": json_loads,
        "application/x-ndjson": _ndjson_loads,
    }
)


class _Collector:
    """The problems found since the current test began, from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._problems: list[str] = []

    def begin(self) -> None:
        with self._lock:
            self._problems = []

    def add(self, problem: str) -> None:
        with self._lock:
            self._problems.append(problem)

    def end(self) -> list[str]:
        with self._lock:
            problems, self._problems = self._problems, []
        return problems


COLLECTOR = _Collector()
_documents: dict[str, OpenAPI] = {}
_documents_lock = threading.Lock()
MAX_VERDICTS = 20_000
_verdicts: dict[tuple, list[str]] = {}
_verdicts_lock = threading.Lock()


def document_of(app: Flask) -> OpenAPI:
    """openapi-core's reading of what `app` serves at /openapi.json (cached per document)."""
    known = app.extensions.get("openapi-check")
    if known is not None:
        return known
    plain = FlaskClient(app, app.response_class, use_cookies=False)
    served = plain.get("/openapi.json")
    assert served.status_code == 200, f"/openapi.json answered {served.status_code}"
    digest = hashlib.sha256(served.get_data()).hexdigest()
    with _documents_lock:
        if digest not in _documents:
            _documents[digest] = OpenAPI.from_dict(served.get_json(), config=CONFIG)
        app.extensions["openapi-check"] = _documents[digest]
        return _documents[digest]


class _Sent(WerkzeugOpenAPIRequest):
    """The request an answer came from, without its body: the app has read that stream,
    and only the path and method matter here (which operation answered)."""

    @property
    def body(self) -> bytes:
        return b""


class _AsGet(_Sent):
    """A HEAD request read as the GET it mirrors (Flask answers HEAD for every GET)."""

    @property
    def method(self) -> str:
        return "get"


def _is_api(path: str) -> bool:
    return path not in NOT_API_PATHS and not path.startswith(NOT_API_PREFIXES)


def _explain(error: BaseException) -> str:
    """openapi-core's message, with the schema errors underneath it spelled out."""
    lines = [f"{type(error).__name__}: {error}"]
    cause = error.__cause__
    for schema_error in getattr(cause, "schema_errors", None) or []:
        where = "/".join(str(part) for part in schema_error.absolute_path) or "(body)"
        lines.append(f"    at {where}: {schema_error.message}")
    if cause is not None and not getattr(cause, "schema_errors", None):
        lines.append(f"    because {type(cause).__name__}: {cause}")
    return "\n".join(lines)


def _url(request: WerkzeugOpenAPIRequest) -> str:
    return request.host_url + request.path.lstrip("/")


def _documented(operation: Any, status: int) -> Any:
    """The operation's response object for `status` (or its default)."""
    return ResponseFinder(operation / "responses").find(str(status))


def _stream_problems(openapi: OpenAPI, request, response, operation: Any) -> list[str]:
    """Status, media type and headers of a stream; its body is never read here."""
    wrapped = WerkzeugOpenAPIResponse(response)
    problems = [
        _explain(error)
        for error in V30ResponseHeadersValidator(openapi.spec).iter_errors(request, wrapped)
    ]
    if problems:
        return problems
    documented = _documented(operation, response.status_code)
    types = list((documented / "content").keys()) if "content" in documented else []
    if response.mimetype not in types:
        problems.append(f"Content-Type {response.mimetype!r} is not one of {types}")
    return problems


def _body_problems(openapi: OpenAPI, request, response, operation: Any) -> list[str]:
    """What openapi-core finds, and a body where the document promises none."""
    wrapped = WerkzeugOpenAPIResponse(response)
    problems = [_explain(error) for error in openapi.iter_response_errors(request, wrapped)]
    if problems:
        return problems
    documented = _documented(operation, response.status_code)
    if "content" not in documented and wrapped.data:
        problems.append(f"a body ({len(wrapped.data)} bytes) where the document has no content")
    return problems


def _problem_problems(openapi: OpenAPI, response) -> list[str]:
    """The answer is the document's Problem, as problem+json, with its own status."""
    problems = []
    if response.mimetype != PROBLEM_TYPE:
        problems.append(f"a {response.status_code} as {response.mimetype!r}, not {PROBLEM_TYPE}")
    problem_schema = openapi.spec / "components" / "schemas" / "Problem"
    checker = oas30_read_schema_validators_factory.create(openapi.spec, problem_schema)
    body = response.get_json(silent=True)
    for fault in checker.validator.iter_errors(body):
        problems.append(f"problem body at {list(fault.absolute_path)}: {fault.message}")
    if isinstance(body, dict) and body.get("status") != response.status_code:
        problems.append(f"problem status {body.get('status')!r} on a {response.status_code}")
    return problems


def _readiness_problems(openapi: OpenAPI, response) -> list[str]:
    if response.status_code == 200:
        ok = response.mimetype == "application/json" and response.get_json(silent=True)
        return [] if ok else [f"a readiness 200 as {response.mimetype!r}"]
    if response.status_code != 503:
        return [f"readiness answered {response.status_code}, not 200 or 503"]
    problems = _problem_problems(openapi, response)
    if not response.headers.get("Retry-After", "").isdigit():
        problems.append("a readiness 503 without Retry-After in seconds")
    return problems


def _unrouted_problems(openapi: OpenAPI, response, error: PathError) -> list[str]:
    """A path or method the document lacks: the answer must still be the document's
    problem (404 for a path, 405 naming the documented methods in Allow for a method)."""
    if response.request.path in READINESS_PATHS and response.request.method in ("GET", "HEAD"):
        return _readiness_problems(openapi, response)
    expected = 405 if isinstance(error, OperationNotFound) else 404
    if response.status_code != expected:
        return [_explain(error), f"and the answer was {response.status_code}, not {expected}"]
    problems = _problem_problems(openapi, response)
    if expected == 405:
        item = next(iter(APICallPathFinder.paths_iterator(error.url, openapi.spec))).path
        documented = {method.upper() for method in item.str_keys() if method in HTTP_METHODS}
        allowed = {m.strip() for m in response.headers.get("Allow", "").split(",") if m.strip()}
        if documented - allowed or allowed - documented - IMPLIED_METHODS:
            problems.append(f"Allow is {sorted(allowed)}, the document has {sorted(documented)}")
    return problems


def problems_of(openapi: OpenAPI, response: TestResponse) -> list[str]:
    """Everything about `response` that its operation in `openapi` does not allow.

    openapi-core takes milliseconds per answer, and suites poll: an answer identical to
    one already judged (same document, request line, status, headers and body) gets the
    same verdict without asking again."""
    request = response.request
    if not _is_api(request.path):
        return []
    head = request.method == "HEAD"
    streamed = head or response.mimetype in STREAM_TYPES
    wrapped = _AsGet(request) if head else _Sent(request)
    body = b"" if streamed else response.get_data()
    key = (
        id(openapi),
        request.method,
        request.path,
        response.status_code,
        tuple(response.headers.items()),
        hashlib.sha256(body).digest(),
    )
    with _verdicts_lock:
        known = _verdicts.get(key)
    if known is None:
        known = _judge(openapi, wrapped, response, streamed)
        with _verdicts_lock:
            if len(_verdicts) > MAX_VERDICTS:
                _verdicts.clear()
            _verdicts[key] = known
    return list(known)


def _judge(openapi: OpenAPI, wrapped, response: TestResponse, streamed: bool) -> list[str]:
    try:
        _, operation, _, _, _ = APICallPathFinder(openapi.spec).find(wrapped.method, _url(wrapped))
    except PathError as error:
        return _unrouted_problems(openapi, response, error)
    if streamed:
        return _stream_problems(openapi, wrapped, response, operation)
    return _body_problems(openapi, wrapped, response, operation)


def describe(response: TestResponse, problems: list[str]) -> str:
    request = response.request
    target = request.full_path.rstrip("?")
    head = f"{request.method} {target} -> {response.status_code} {response.content_type}"
    return head + "\n  " + "\n  ".join(problem.replace("\n", "\n  ") for problem in problems)


class CheckedClient(FlaskClient):
    """Flask's test client; every response it returns is checked (see the module)."""

    def open(self, *args: Any, **kwargs: Any) -> TestResponse:
        response = super().open(*args, **kwargs)
        for answer in [*response.history, response]:
            problems = problems_of(document_of(self.application), answer)
            if problems:
                COLLECTOR.add(describe(answer, problems))
        return response
