"""Fixtures for the web pages: a real Redis, the real app served over HTTP, a real RQ worker,
a real headless Chromium.

Redis is REDIS_URL's server when it is set (a database the tests may flush), else a
redis-server this session starts (as in tests/service/conftest.py). The app runs in
a werkzeug server thread on a free localhost port; bots play in a worker process.
"""

import contextlib
import os
import signal
import subprocess
import sys
import threading

import pytest
import redis
from werkzeug.serving import WSGIRequestHandler, make_server

from service.api import create_app
from service.redis_server import EmbeddedRedis
from tests.web.browsing import ARGS, CHROMIUM, DESKTOP, NO_CHROMIUM, TIMEOUT_MS, watch_errors

WORKER = "from workers.run import run_worker; run_worker()"


@pytest.fixture(scope="session")
def web_redis_url(tmp_path_factory):
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    server = EmbeddedRedis(tmp_path_factory.mktemp("web-redis")).start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def web_app(web_redis_url):
    client = redis.Redis.from_url(web_redis_url)
    client.flushdb()
    client.close()
    app = create_app({"REDIS_URL": web_redis_url, "RATE_LIMITS_ENABLED": False})  # bots are fast
    yield app
    app.extensions["cardtrail"].redis.close()


class QuietHandler(WSGIRequestHandler):
    def log_request(self, *args, **kwargs) -> None:  # the test records requests itself
        pass


class LiveServer:
    """The app over real HTTP; `urls` records every request line's target (path and query)."""

    def __init__(self, app) -> None:
        self.urls: list[str] = []
        inner = app.wsgi_app

        def recording(environ, start_response):
            query = environ.get("QUERY_STRING", "")
            self.urls.append(environ.get("PATH_INFO", "") + ("?" + query if query else ""))
            return inner(environ, start_response)

        app.wsgi_app = recording
        # threaded: each long-poll holds a thread while it waits
        self.server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)


@pytest.fixture
def live_server(web_app):
    with LiveServer(web_app) as server:
        yield server


@pytest.fixture
def bot_worker(web_redis_url, web_app):
    """One RQ worker process in its own process group (so teardown also ends its scheduler)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WORKER],
        env={**os.environ, "REDIS_URL": web_redis_url},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    yield proc
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(10)


@pytest.fixture
def browser():
    if not os.path.exists(CHROMIUM):  # counted in the summary (pytest_terminal_summary)
        pytest.skip(NO_CHROMIUM)
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    watch_errors(page)
    yield page
    context.close()


def _skipped_for_chromium(report) -> bool:
    longrepr = report.longrepr  # a skip's is (path, line, "Skipped: <reason>")
    return isinstance(longrepr, tuple) and NO_CHROMIUM in str(longrepr[-1])


def pytest_terminal_summary(terminalreporter):
    """Say at the end, where nobody misses it, that browser tests did not run for want of a
    chromium: their skips are otherwise one letter among hundreds of dots."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if _skipped_for_chromium(r)]
    if skipped:
        count = len(skipped)
        terminalreporter.write_sep(
            "=",
            f"{count} browser test{'' if count == 1 else 's'} skipped: no {CHROMIUM} — "
            "apt-get install -y chromium",
            yellow=True,
            bold=True,
        )
