"""A real server for the generated client: gunicorn with the served settings, its own
redis-server and a real RQ worker process playing the bots (tests/reliability/stack.py),
all sharing one signing key as a deployment does. The tests begin once /health/ready
says a worker serves every queue; the worker's output is kept for a failure's message."""

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from service.signing import KEY_FILE_ENV
from tests.client.generation import generate
from tests.reliability.stack import ROOT, WORKER, Stack


def wait_until_ready(port: int, log: Path, timeout: float = 60.0) -> None:
    """Until /health/ready answers 200 (Redis up, a live worker on each queue)."""
    deadline = time.monotonic() + timeout
    answer = None
    while time.monotonic() < deadline:
        answer = httpx.get(f"http://127.0.0.1:{port}/health/ready", timeout=10)
        if answer.status_code == 200:
            return
        time.sleep(0.2)
    said = answer.text if answer is not None else "nothing"
    raise AssertionError(f"not ready in {timeout} s: {said}\nworker:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stack")
    previous = os.environ.get(KEY_FILE_ENV)
    os.environ[KEY_FILE_ENV] = str(folder / "signing-key.pem")
    try:
        running = Stack(folder, web_workers=1)
    finally:
        if previous is None:
            os.environ.pop(KEY_FILE_ENV, None)
        else:
            os.environ[KEY_FILE_ENV] = previous
    log = (folder / "worker.log").open("wb")
    try:
        worker = subprocess.Popen(
            [sys.executable, "-c", WORKER],
            env=running.env,
            cwd=ROOT,
            start_new_session=True,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        running.workers.append(worker)
        wait_until_ready(running.port, folder / "worker.log")
        yield running
    finally:
        running.close()
        log.close()
        print(f"worker log: {folder / 'worker.log'}")


@pytest.fixture(scope="module")
def base_url(stack) -> str:
    return f"http://127.0.0.1:{stack.port}"


@pytest.fixture(scope="module")
def document(base_url) -> dict:
    """The OpenAPI document the server serves."""
    answer = httpx.get(f"{base_url}/openapi.json", timeout=30)
    assert answer.status_code == 200
    return answer.json()


@pytest.fixture(scope="module")
def generated(document, tmp_path_factory):
    """The client package generated from the server's own /openapi.json."""
    return generate(document, tmp_path_factory.mktemp("generated"))
