"""The HTTP edge: the Flask app factory, and the one place refusals become statuses.

`routes` holds the JSON API (flask-smorest, validated by `schemas`), `pages` the web
table, `problems` the problem+json bodies, `openapi` the document's shared parts (served
at /openapi.json). Below this package nothing knows HTTP.
"""

import os
from typing import Any

import redis
from flask import Flask, Response, request
from flask_smorest import Api
from werkzeug.exceptions import HTTPException

from service import archives, errors, signing
from service.api import conventions, jsonio, limits, openapi, problems
from service.api.health import health
from service.api.pages import web
from service.api.players import blp as players
from service.api.ratings import blp as ratings
from service.api.routes import blp
from service.bootstrap import Cardtrail, build
from service.inbox import MAX_STREAMS
from service.redis_server import connect, queue_connection

MAX_BODY_BYTES = 64 * 1024
FOLLOWED_GAMES = 2_000  # games one process reads for its followers at once
# A player's receipts of a long game (10,000 at about 300 bytes) may be audited at once.
LARGER_BODIES = {"games.Audit": 4 * 1024 * 1024}

# Each kind of refusal and its status; the most specific kind first.
STATUSES: tuple[tuple[type[errors.ServiceError], int], ...] = (
    (errors.StaleVersion, 412),
    (errors.BadRequest, 400),
    (errors.Unauthenticated, 401),
    (errors.Forbidden, 403),
    (errors.NotFound, 404),
    (errors.Conflict, 409),
    (errors.Refused, 422),
    (errors.Busy, 503),
    (errors.Damaged, 503),
)


def status_of(error: errors.ServiceError) -> int:
    return next(status for kind, status in STATUSES if isinstance(error, kind))


class ProblemApi(Api):
    """flask-smorest, with every error answered — and documented — as problem+json.

    flask-smorest documents errors with its own `Error` schema as application/json, one
    response component per status plus a `default`: here each status's component is the
    problem+json response instead (`openapi.register`), and no operation gets a
    `default`: each lists the problems it can answer."""

    DEFAULT_ERROR_RESPONSE_NAME = None

    def handle_http_exception(self, error: HTTPException) -> Response:
        return problems.from_http_exception(error)

    def _register_responses(self) -> None:
        openapi.register(self.spec)


def create_app(config: dict[str, Any] | None = None) -> Flask:
    app = Flask(__name__)
    jsonio.init(app)
    app.config.update(
        API_TITLE="cardtrail",
        API_VERSION="1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        API_SPEC_OPTIONS=openapi.SPEC_OPTIONS,
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        REDIS_URL=os.environ.get("REDIS_URL"),
        RQ_REDIS_URL=os.environ.get("RQ_REDIS_URL"),
        ALLOW_PRESET_DECK=os.environ.get("CARDTRAIL_ALLOW_PRESET_DECK") == "1",
        SIGNING_KEY_FILE=os.environ.get(signing.KEY_FILE_ENV),
        # RATE_LIMITS (limit strings by name) and RATE_LIMITS_ENABLED: docs/limits.md
        **limits.config_from_env(os.environ.get(limits.ENV)),
        # waits (long-polls and streams) one process holds at once; past it, 503
        MAX_FOLLOWERS=int(os.environ.get("CARDTRAIL_MAX_FOLLOWERS", "10000")),
        # where games that ended are sealed: a directory or a postgresql:// URL (unset: in Redis)
        ARCHIVE=os.environ.get(archives.ENV),
    )
    app.config.update(config or {})
    if not app.config["REDIS_URL"]:
        raise RuntimeError("REDIS_URL is not set (cardtrail serve sets it for you)")
    api = ProblemApi(app)
    api.register_blueprint(health)
    api.register_blueprint(blp)
    api.register_blueprint(ratings)
    api.register_blueprint(players)
    app.register_blueprint(web)  # the web pages: plain Flask, not in the OpenAPI spec
    limits.init_limits(app)
    conventions.init(app)
    app.extensions["cardtrail"] = _cardtrail(app)
    _answer_errors(app)
    return app


def _cardtrail(app: Flask) -> Cardtrail:
    """The application the requests share, built from the app's settings."""
    key_file = app.config["SIGNING_KEY_FILE"]
    if not key_file:
        app.logger.warning(
            "no %s: receipts are signed with a key of this process's own", signing.KEY_FILE_ENV
        )
    return build(
        connect(app.config["REDIS_URL"]),
        queue_connection(app.config["REDIS_URL"], app.config["RQ_REDIS_URL"]),
        allow_preset_deck=app.config["ALLOW_PRESET_DECK"],
        signer=signing.load_or_create(key_file) if key_file else signing.ephemeral(),
        # one connection per followed game (the hub's readers) and per open player stream
        follow_client=connect(app.config["REDIS_URL"], pool_size=FOLLOWED_GAMES + MAX_STREAMS + 8),
        max_followers=app.config["MAX_FOLLOWERS"],
        followed_games=FOLLOWED_GAMES,
        archive=archives.open_store(app.config["ARCHIVE"]),
    )


def _answer_errors(app: Flask) -> None:
    @app.before_request
    def json_bodies_only():
        """A body that is not JSON would be silently ignored; say so instead."""
        if request.endpoint in LARGER_BODIES:
            request.max_content_length = LARGER_BODIES[request.endpoint]
        writes = request.method in ("POST", "PUT", "PATCH")
        if writes and request.content_length and not request.is_json:
            return problems.problem(
                415,
                "unsupported_media_type",
                "Send the body as JSON with Content-Type: application/json.",
            )
        return None

    @app.errorhandler(errors.ServiceError)
    def refused(error: errors.ServiceError):
        fields = [{"field": error.field, "reason": error.detail}] if error.field else None
        headers = {}
        if isinstance(error, errors.Busy):
            headers["Retry-After"] = str(error.retry_after)
        detail = error.detail
        if isinstance(error, errors.Damaged):  # its detail names store paths: logged, not told
            app.logger.error("damaged store: %s", error.detail)
            detail = "What the server keeps of this game failed its check; it is not served."
        if isinstance(error, errors.Unauthenticated):
            headers["WWW-Authenticate"] = 'Bearer realm="cardtrail"'
        return problems.problem(
            status_of(error), error.code, detail, errors=fields, headers=headers
        )

    @app.errorhandler(Exception)
    def unexpected(error: Exception):
        if isinstance(error, HTTPException):
            return problems.from_http_exception(error)
        if isinstance(error, redis.ConnectionError | redis.TimeoutError | redis.BusyLoadingError):
            return problems.problem(
                503,
                "store_unavailable",
                "The game store is unavailable; retry shortly.",
                headers={"Retry-After": "1"},
            )
        if isinstance(error, RecursionError):  # JSON nested deeper than Python will parse
            return problems.problem(400, "malformed_json", "The JSON body is nested too deeply.")
        app.logger.exception("unexpected error")
        return problems.problem(500, "internal_error", "Something went wrong on our side.")
