"""A production-shaped stack of real processes for the reliability suite: its own
redis-server (AOF, appendfsync always), gunicorn with the app, and RQ workers.
Each process runs in its own process group so a test can SIGKILL it whole."""

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import redis

from service.redis_server import EmbeddedRedis

ROOT = Path(__file__).resolve().parents[2]
WORKER = "from workers.run import run_worker; run_worker()"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Http:
    """One keep-alive connection; returns (status, body as JSON or None)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        sent = {"Content-Type": "application/json", **(headers or {})}
        if token:
            sent["Authorization"] = f"Bearer {token}"
        data = (
            body
            if isinstance(body, bytes)
            else (json.dumps(body).encode() if body is not None else None)
        )
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, data, sent)
                response = self.conn.getresponse()
                raw = response.read()
                break
            except (OSError, http.client.HTTPException) as error:
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                # the server closed an idle keep-alive connection: the request never arrived
                stale = isinstance(error, http.client.RemoteDisconnected | BrokenPipeError)
                if attempt == 2 or not stale:
                    raise
        try:
            return response.status, json.loads(raw) if raw else None
        except ValueError:
            return response.status, raw


class Stack:
    def __init__(self, data_dir: Path, web_workers: int = 2) -> None:
        self.redis = EmbeddedRedis(data_dir / "redis", appendfsync="always").start()
        self.port = free_port()
        self.web_workers = web_workers
        # rate limits off: the load comes from one address, far faster than any player
        self.env = {**os.environ, "REDIS_URL": self.redis.url, "CARDTRAIL_RATE_LIMITS": "off"}
        self.web: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []
        self.start_web()

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.redis.url)

    def http(self) -> Http:
        return Http(self.port)

    def start_web(self) -> None:
        gunicorn = str(Path(sys.executable).with_name("gunicorn"))
        self.web = subprocess.Popen(
            [
                gunicorn,
                "service.api:create_app()",
                "-c",  # cardtrail/web.py: the settings cardtrail serve and compose run
                "python:cardtrail.web",
                "--no-control-socket",
                "--workers",
                str(self.web_workers),
                "--bind",
                f"127.0.0.1:{self.port}",
                "--log-level",
                "critical",
            ],
            env=self.env,
            cwd=ROOT,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, http.client.HTTPException):
                if self.http().call("GET", "/health/live")[0] == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError("gunicorn did not start")

    def start_worker(self, **env: str) -> subprocess.Popen:
        proc = subprocess.Popen(
            [sys.executable, "-c", WORKER],
            env={**self.env, **env},
            cwd=ROOT,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.workers.append(proc)
        return proc

    def restart_redis(self) -> None:
        """SIGKILL Redis (no chance to flush anything), then start it on the same data."""
        self.redis.process.kill()
        self.redis.process.wait(10)
        self.redis.start()

    @staticmethod
    def kill(proc: subprocess.Popen) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)

    def close(self) -> None:
        for proc in [*self.workers, self.web]:
            if proc is not None:
                self.kill(proc)
        self.redis.stop()
