"""`cardtrail serve`: the web app under gunicorn, its workers, and an embedded Redis when
no REDIS_URL names one."""

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from gunicorn.app.base import BaseApplication

from cardtrail.web import gunicorn_options
from service.redis_server import EmbeddedRedis
from service.signing import KEY_FILE_ENV


class _Gunicorn(BaseApplication):
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self):
        from service.api import create_app

        return create_app()


def start_workers(bot_workers: int) -> list[subprocess.Popen]:
    """RQ worker processes (see workers/run.py), sharing this process's REDIS_URL:
    `bot_workers` for bot turns and clocks, and one for webhook deliveries."""
    code = "from workers.run import run_worker; run_worker(queues=[{!r}])"
    started: list[subprocess.Popen] = []
    try:
        for queue in ["turns"] * bot_workers + ["notify"]:
            command = [sys.executable, "-c", code.format(queue)]
            started.append(subprocess.Popen(command, start_new_session=True))
    except OSError:
        for proc in started:
            proc.kill()
        raise
    return started


def run(
    host: str, port: int, data_dir: str, workers: int = 1, threads: int = 32, bot_workers: int = 1
) -> None:
    """Serve until interrupted; stops the embedded Redis and the workers it started."""
    embedded = None
    Path(data_dir).mkdir(parents=True, exist_ok=True, mode=0o700)
    Path(data_dir).chmod(0o700)  # server seeds, decks and the signing key: the owner's only
    if not os.environ.get("REDIS_URL"):
        embedded = EmbeddedRedis(Path(data_dir) / "redis", appendfsync="always").start()
        os.environ["REDIS_URL"] = embedded.url
    # One signing key for every process this serve starts, kept (mode 0600) beside the data.
    os.environ.setdefault(KEY_FILE_ENV, str(Path(data_dir).resolve() / "signing-key.pem"))
    bots: list[subprocess.Popen] = []
    try:
        bots = start_workers(bot_workers)
        print(
            f"cardtrail: open http://{host}:{port}/  (Redis at {os.environ['REDIS_URL']})",
            flush=True,
        )
        _Gunicorn(gunicorn_options(host, port, workers, threads)).run()
    finally:
        for proc in bots:
            proc.terminate()
        for proc in bots:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        if embedded is not None:
            embedded.stop()
