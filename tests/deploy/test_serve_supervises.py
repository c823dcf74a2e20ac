"""`cardtrail serve` keeps what it started running, and keeps to its own data folder:

* a SIGKILLed bot worker and a SIGKILLed embedded Redis are each started again (the log
  says so) while a game against a bot goes on to its end over HTTP, the web process
  riding out the Redis restart without being restarted itself;
* a second serve on the same folder exits at once, non-zero, naming the folder and the
  first serve's pid, and touches none of the first one's processes, socket or files;
* two serves on different folders each have a gunicorn control socket of their own.
"""

import contextlib
import os
import random
import signal
import subprocess
import time
from pathlib import Path

from gunicorn.ctl.client import ControlClient

from cardtrail.serve import FIRST_DELAY_S, HEALTHY_AFTER_S, describe, lock_data_dir, next_delay
from tests.deploy.test_compose_shape import _call, _healthy, _live
from tests.deploy.test_serve import CARDTRAIL, _free_port, _interrupt, _processes, _serve
from tests.service.live import wait_until

TURNS_WORKER = "queues=['turns']"
REDIS = "redis-server"
WEB = "serve_web"
# One hand of Rummy that ends when the stock runs out, ann to play first.
GAME = {
    "seats": [{"name": "ann"}, {"bot": "greedy"}],
    "preset": "block",
    "options": {"game_end": "deals", "deals": 1, "first_dealer": 1},
}


def _children(pid: int) -> dict[int, str]:
    """The live direct children of `pid`: pid -> command line."""
    found = {}
    for child, (parent, state) in _processes().items():
        if parent != pid or state == "Z":
            continue
        with contextlib.suppress(OSError):
            found[child] = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    return found


def _child(pid: int, marker: str) -> int | None:
    """The one child of `pid` whose command line holds `marker` (None: none, or several)."""
    matches = [child for child, command in _children(pid).items() if marker in command]
    return matches[0] if len(matches) == 1 else None


def _retrying(call, timeout: float = 30.0):
    """`call()` until it answers: the store may be restarting (503s, a refused connect)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return call()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


class Ann:
    """Ann's side of GAME over HTTP, riding out the moments the store is away."""

    def __init__(self, port: int) -> None:
        self.port = port
        status, created = _retrying(lambda: _call(port, "POST", "/games", GAME))
        assert status == 201
        self.base, self.token = f"/games/{created['id']}", created["seats"][0]["token"]
        self.turns = 0  # turns ann has ended (a discard, or going down)
        self.rng = random.Random(7)

    def view(self) -> dict:
        return _retrying(lambda: _call(self.port, "GET", self.base, token=self.token))[1]

    def play(self, turns: int, timeout: float = 60.0) -> dict:
        """Play `turns` more of ann's turns, then wait for her turn again (or the end)."""
        goal, deadline = self.turns + turns, time.monotonic() + timeout
        while True:
            view = self.view()
            if view["status"] == "finished" or (self.turns >= goal and view["turn"] == 0):
                return view
            assert time.monotonic() < deadline, f"the game stalled at version {view['version']}"
            if view["turn"] != 0:
                time.sleep(0.05)  # the bot's turn, played by a worker
                continue
            move = self._choose(view["you"]["legal_moves"])
            with contextlib.suppress(OSError):  # refused or lost: the next view tells
                _call(self.port, "POST", f"{self.base}/moves", move, token=self.token)
                self.turns += move["type"] in ("discard", "go_down")

    def finish(self, timeout: float) -> dict:
        return self.play(10_000, timeout)

    def _choose(self, legal: list[dict]) -> dict:
        """Meld when she can, draw from the stock (the hand ends when it runs out)."""
        for kind in ("go_down", "meld", "lay_off"):
            found = [move for move in legal if move["type"] == kind]
            if found:
                return found[0]
        draws = [move for move in legal if move["type"] == "draw"]
        if draws:
            return next((m for m in draws if m["source"] == "stock"), draws[0])
        return self.rng.choice(legal)


def _logged(log: Path, line: str) -> bool:
    return line in log.read_text(errors="replace")


def test_a_killed_worker_and_a_killed_redis_are_restarted_and_the_game_finishes(tmp_path):
    port, data, log = _free_port(), tmp_path / "data", tmp_path / "serve.log"
    served = _serve(port, data, log)
    try:
        wait_until(lambda: _healthy(port), 30, "cardtrail serve")
        web = _child(served.pid, WEB)
        worker, redis_server = _child(served.pid, TURNS_WORKER), _child(served.pid, REDIS)
        assert web and worker and redis_server
        ann = Ann(port)
        assert ann.play(2)["status"] == "playing"

        os.kill(worker, signal.SIGKILL)
        died = "cardtrail: worker turns-1 died (signal 9); restarting in 0.5 s"
        wait_until(lambda: _logged(log, died), 10, "the worker's restart in the log")
        # the bot's turns, played by the restarted worker; the game goes on
        assert ann.play(2)["status"] == "playing"
        assert _child(served.pid, TURNS_WORKER) not in (None, worker)

        os.kill(redis_server, signal.SIGKILL)
        died = "cardtrail: redis died (signal 9); restarting in 0.5 s"
        wait_until(lambda: _logged(log, died), 10, "Redis's restart in the log")
        played = ann.turns
        assert ann.finish(timeout=120)["status"] == "finished"
        assert ann.turns > played  # she played on after Redis came back
        assert _child(served.pid, REDIS) not in (None, redis_server)
        assert _child(served.pid, WEB) == web  # it reconnected by itself
        wait_until(lambda: _healthy(port), 30, "ready again")
    finally:
        _interrupt(served)  # Ctrl-C still stops everything, restarted children too


def _files(folder: Path) -> dict[str, int]:
    """Each socket and file serve keeps beside the data, by inode (a file made again, or a
    socket bound again, has a new one)."""
    names = ("serve.lock", "signing-key.pem", "gunicorn.ctl", "redis/redis.sock")
    return {name: (folder / name).stat().st_ino for name in names}


def test_a_second_serve_on_the_same_folder_exits_at_once_and_the_first_plays_on(tmp_path):
    port, data = _free_port(), tmp_path / "data"
    first = _serve(port, data)
    try:
        wait_until(lambda: _healthy(port), 30, "cardtrail serve")
        ann = Ann(port)
        ann.play(1)
        files, children = _files(data), _children(first.pid)
        lock = (data / "serve.lock").read_text()
        other_port = _free_port()

        started = time.monotonic()
        second = subprocess.run(
            [CARDTRAIL, "serve", "--port", str(other_port), "--data-dir", str(data)],
            env={k: v for k, v in os.environ.items() if k != "REDIS_URL"},
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert time.monotonic() - started < 10
        assert second.returncode != 0
        assert str(data.resolve()) in second.stderr
        assert f"pid {first.pid}" in second.stderr
        assert "Traceback" not in second.stderr

        assert _files(data) == files and (data / "serve.lock").read_text() == lock
        assert _children(first.pid) == children
        assert not _live(other_port)
        view = ann.play(1)  # the first one answers every request: a move after it
        assert view["status"] == "finished" or ann.turns >= 2
        assert _healthy(port)
    finally:
        _interrupt(first)


def test_two_serves_on_different_folders_have_control_sockets_of_their_own(tmp_path):
    home, runtime = tmp_path / "home", tmp_path / "runtime"
    home.mkdir()
    runtime.mkdir()
    where = {"HOME": str(home), "XDG_RUNTIME_DIR": str(runtime)}  # gunicorn's defaults
    ports, folders = [_free_port(), _free_port()], [tmp_path / "a", tmp_path / "b"]
    serves = [_serve(port, folder, **where) for port, folder in zip(ports, folders, strict=True)]
    try:
        for port in ports:
            wait_until(lambda port=port: _live(port), 30, "both serves")
        for served, folder in zip(serves, folders, strict=True):
            with ControlClient(str(folder / "gunicorn.ctl"), timeout=10) as control:
                assert control.send_command("show stats")["pid"] == _child(served.pid, WEB)
        assert not (home / ".gunicorn").exists() and not any(runtime.iterdir())

        _interrupt(serves[0])
        assert not (folders[0] / "gunicorn.ctl").exists()
        with ControlClient(str(folders[1] / "gunicorn.ctl"), timeout=10) as control:
            assert control.send_command("show stats")["pid"] == _child(serves[1].pid, WEB)
    finally:
        for served in serves:
            if served.poll() is None:
                _interrupt(served)


def test_restarts_back_off_doubling_and_start_over_after_a_healthy_minute():
    delays, delay = [], None
    for _ in range(9):
        delay = next_delay(delay, ran_for=1.0)
        delays.append(delay)
    assert delays == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]
    assert next_delay(30.0, ran_for=HEALTHY_AFTER_S) == FIRST_DELAY_S
    assert describe(-signal.SIGKILL) == "signal 9" and describe(1) == "exit 1"


def test_the_folder_lock_refuses_a_second_holder_naming_the_folder_and_pid(tmp_path):
    data = tmp_path / "data"
    held = lock_data_dir(data)
    try:
        assert (data / "serve.lock").read_text() == f"{os.getpid()}\n"
        try:
            lock_data_dir(data)
        except SystemExit as refused:
            message = str(refused.code)
        else:
            raise AssertionError("a second lock on the folder was granted")
        assert str(data.resolve()) in message and f"pid {os.getpid()}" in message
    finally:
        os.close(held)
    os.close(lock_data_dir(data))  # free again once the first holder let go
