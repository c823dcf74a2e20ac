"""Rate limits: how often one client may create games, join them, move and follow them.

Each limited route says which limit it counts against (`limited`, in `routes`); the app
says how much each limit allows (`RATE_LIMITS`, from `CARDTRAIL_RATE_LIMITS`) and
whether limits apply at all (`RATE_LIMITS_ENABLED`). flask-limiter counts in the app's
own Redis, so every gunicorn worker and every web process shares one count. Each app
gets a limiter of its own: two apps in one process (the tests make many) never share a
switch or a store. docs/limits.md says why the defaults are what they are.

A request over a limit is answered `429 Too Many Requests` as problem+json (code
`rate_limited`) before the route runs, so it changes nothing; every limited answer
carries the IETF headers `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`
(seconds), and a 429 also `Retry-After`.
"""

import functools
import hashlib
import json
import logging
import math
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from flask import Flask, Response, current_app, request
from flask_limiter import Limiter, RateLimitExceeded, RequestLimit
from limits import parse_many
from limits.storage import RedisStorage
from limits.strategies import FixedWindowRateLimiter

from service import keys
from service.api import problems
from service.players import name_key
from service.redis_server import cluster_mode

ENV = "CARDTRAIL_RATE_LIMITS"
EXTENSION = "cardtrail-limits"
# Per client address (create, join, register), per seat token (move) and, apart, per
# address (moves_per_address: a client inventing a token per request is still counted),
# per address and game (follow: long-polls of /events and SSE (re)connects of /stream,
# counted together),
# per address and, apart, per name (login: guessing one player's password from many
# addresses, or many players' from one, is slowed either way).
DEFAULTS: Mapping[str, str] = {
    "create": "30/minute",
    "join": "60/minute",
    "move": "120/minute",
    "moves_per_address": "600/minute",
    "follow": "600/minute",
    "login": "10/minute",
    "register": "20/hour",
}

View = TypeVar("View", bound=Callable[..., Any])


def config_from_env(value: str | None) -> dict[str, Any]:
    """RATE_LIMITS and RATE_LIMITS_ENABLED from CARDTRAIL_RATE_LIMITS: unset (the defaults),
    "off", or a JSON object of limit strings by name, e.g. '{"create": "10/minute"}' (the
    limits it does not name keep their defaults)."""
    text = (value or "").strip()
    if text.lower() == "off":
        return {"RATE_LIMITS": dict(DEFAULTS), "RATE_LIMITS_ENABLED": False}
    try:
        given = json.loads(text) if text else {}
    except ValueError as error:
        raise RuntimeError(f'{ENV} is neither "off" nor a JSON object ({error})') from None
    if not isinstance(given, dict):
        raise RuntimeError(f'{ENV} is neither "off" nor a JSON object of limits by name')
    return {"RATE_LIMITS": {**DEFAULTS, **given}, "RATE_LIMITS_ENABLED": True}


def checked(rules: Mapping[str, Any]) -> dict[str, str]:
    """Every limit by name, the defaults under the given ones; a name that is no limit or
    a string `limits` cannot read stops the app from starting ("" switches one off)."""
    unknown = sorted(set(rules) - set(DEFAULTS))
    if unknown:
        raise RuntimeError(f"RATE_LIMITS: no limit is called {', '.join(unknown)}")
    merged = {**DEFAULTS, **rules}
    for name, rule in merged.items():
        if not _readable(rule):
            raise RuntimeError(f'RATE_LIMITS: {name} is {rule!r}, not a limit such as "30/minute"')
    return merged


def _readable(rule: Any) -> bool:
    if not isinstance(rule, str):
        return False
    try:
        return rule == "" or bool(parse_many(rule))
    except ValueError:
        return False


def storage_uri(redis_url: str, cluster: bool, logger: logging.Logger) -> str:
    """Where the counts are kept: the game store's Redis, as `limits` names it (an
    embedded Redis's `unix:///…/redis.sock` is `redis+unix://`; a cluster seed node
    `redis://host:port` is `redis+cluster://host:port`). A cluster URL it cannot name
    falls back to memory: each process then counts alone (a warning says so)."""
    if cluster:
        if redis_url.startswith("redis://"):
            return "redis+cluster://" + redis_url.removeprefix("redis://")
        logger.warning(
            "rate limits: no cluster storage for %s; each process counts in memory alone",
            redis_url.split("://")[0] + "://…",
        )
        return "memory://"
    if redis_url.startswith("unix://"):
        return "redis+unix://" + redis_url.removeprefix("unix://")
    return redis_url


# -- who a request is counted as -------------------------------------------------


def client_address() -> str:
    return request.remote_addr or "unknown"


def seat_token() -> str:
    """The bearer token (as a digest: counts never hold a token), else the address."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return "token:" + hashlib.sha256(token.strip().encode()).hexdigest()[:32]
    return "address:" + client_address()


def address_and_game() -> str:
    game_id = (request.view_args or {}).get("game_id", "")
    return f"{client_address()}:{game_id}"


def login_name() -> str:
    """The name a log-in is for, as the accounts compare names (a digest: counts hold no
    name), whatever the address it comes from."""
    body = request.get_json(silent=True)
    name = body.get("name") if isinstance(body, dict) else None
    key = name_key(name) if isinstance(name, str) else ""
    return "name:" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


# -- the routes' side ------------------------------------------------------------


def limited(name: str) -> Callable[[View], View]:
    """Count the decorated view method against the app's `name` limit (put it above the
    schema decorators: a request over the limit is refused before its body is read)."""
    if name not in DEFAULTS:
        raise ValueError(f"no limit is called {name!r}")

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def counted(*args: Any, **kwargs: Any) -> Any:
            limits: Limits | None = current_app.extensions.get(EXTENSION)
            if limits is None:  # limits are off
                return view(*args, **kwargs)
            return limits.guarded(name, view)(*args, **kwargs)

        return cast(View, counted)

    return decorate


class Limits:
    """One app's limiter and the limits its routes count against."""

    def __init__(self, limiter: Limiter, rules: Mapping[str, str]) -> None:
        self.limiter = limiter
        self.rules = dict(rules)
        self._guarded: dict[Callable[..., Any], Callable[..., Any]] = {}
        self._lock = threading.Lock()

    def guarded(self, name: str, view: Callable[..., Any]) -> Callable[..., Any]:
        """`view` behind this app's `name` limit (flask-limiter's decorator, made once)."""
        found = self._guarded.get(view)
        if found is None:
            with self._lock:
                found = self._guarded.get(view) or self._decorator(name)(view)
                self._guarded[view] = found
        return found

    def _decorator(self, name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        rule = self.rules[name]
        if name == "follow":  # /events and /stream share one count per address and game
            return self.limiter.shared_limit(rule, scope=name, key_func=address_and_game)
        if name == "login":  # counted per address and, apart, per name
            by_address = self.limiter.limit(rule, scope=name, key_func=client_address)
            by_name = self.limiter.limit(rule, scope="login-name", key_func=login_name)
            return lambda view: by_address(by_name(view))
        if name == "move":  # per token and, apart, per address
            by_token = self.limiter.limit(rule, scope=name, key_func=seat_token)
            by_address = self.limiter.limit(
                self.rules["moves_per_address"], scope="move-address", key_func=client_address
            )
            return lambda view: by_address(by_token(view))
        return self.limiter.limit(rule, scope=name, key_func=client_address)

    def headers(self, response: Response) -> Response:
        """The IETF RateLimit headers on every answer a limit was counted for: of several
        (a move counts per token and per address), the one breached or nearest to it."""
        counted = self.limiter.current_limits
        if not counted:
            return response
        windows = dict(zip(map(id, counted), self._windows(counted), strict=True))
        current = min(counted, key=lambda limit: (not limit.breached, windows[id(limit)][1]))
        reset, left = windows[id(current)]
        seconds = max(1, math.ceil(reset - time.time()))
        response.headers["RateLimit-Limit"] = str(current.limit.amount)
        response.headers["RateLimit-Remaining"] = str(left)
        response.headers["RateLimit-Reset"] = str(seconds)
        if response.status_code == 429:
            response.headers["Retry-After"] = str(seconds)
        return response

    def _windows(self, counted: list[RequestLimit]) -> list[tuple[float, int]]:
        """(reset time, requests left) of each limit counted. Fixed windows kept in one
        Redis (the default) are read in one round trip, a GET and a TTL for each, as
        `limits` reads them (`FixedWindowRateLimiter.get_window_stats`) one call at a time:
        a move counts twice, and asked four round trips for its headers. Any other
        strategy or store is asked through flask-limiter."""
        strategy = self.limiter.limiter
        storage = getattr(strategy, "storage", None)
        if type(strategy) is not FixedWindowRateLimiter or type(storage) is not RedisStorage:
            return [(limit.window[0], limit.window[1]) for limit in counted]
        client: Any = storage.get_connection(True)
        pipe = client.pipeline(transaction=False)
        for limit in counted:
            pipe.get(storage.prefixed_key(limit.key))
            pipe.ttl(storage.prefixed_key(limit.key))
        found = pipe.execute()
        now = time.time()
        return [
            (max(int(ttl), 0) + now, max(0, limit.limit.amount - int(count or 0)))
            for limit, count, ttl in zip(counted, found[::2], found[1::2], strict=True)
        ]


def too_many(error: RateLimitExceeded) -> Response:
    return problems.problem(
        429,
        "rate_limited",
        f"Too many requests: at most {error.limit.limit}. Try again in Retry-After seconds.",
        title="Too Many Requests",
    )


def init_limits(app: Flask) -> None:
    """Count the routes' requests against the app's RATE_LIMITS in its own Redis; nothing
    at all when RATE_LIMITS_ENABLED is false."""
    if not app.config.get("RATE_LIMITS_ENABLED", True):
        return
    rules = checked(app.config.get("RATE_LIMITS") or {})
    uri = storage_uri(app.config["REDIS_URL"], cluster_mode(), app.logger)
    app.config.setdefault("RATELIMIT_STORAGE_URI", uri)
    app.config.setdefault("RATELIMIT_KEY_PREFIX", keys.RATE_LIMITS)
    limits = Limits(Limiter(client_address, app=app, headers_enabled=False), rules)
    app.extensions[EXTENSION] = limits
    app.after_request(limits.headers)
    app.register_error_handler(RateLimitExceeded, too_many)
