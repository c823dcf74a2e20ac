"""The README's first command, `cardtrail serve`, on a machine with no Redis: it starts
an embedded Redis (AOF, fsync always), gunicorn, a bot worker and a webhook notifier;
a game against a bot is played with a webhook on the seat; Ctrl-C stops every process
it started; serving again from the same data folder finds the game where it was."""

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from tests.deploy.test_compose_shape import _call, _healthy
from tests.service.live import ALLOW_PRIVATE, Receiver, wait_until

CARDTRAIL = str(Path(sys.executable).with_name("cardtrail"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(port: int, data_dir: Path, log: Path | None = None, **env: str) -> subprocess.Popen:
    """`cardtrail serve` with no Redis named, its stderr (the restarts it logs) to `log`."""
    inherited = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "RQ_REDIS_URL")}
    with open(log or os.devnull, "ab") as stderr:
        return subprocess.Popen(
            [CARDTRAIL, "serve", "--port", str(port), "--data-dir", str(data_dir)],
            env={**inherited, ALLOW_PRIVATE: "1", **env},
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,  # a group of its own, as a terminal gives it
        )


def _processes() -> dict[int, tuple[int, str]]:
    """Every process: pid -> (parent pid, state letter), from /proc."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        state, parent = text.rsplit(")", 1)[1].split()[:2]
        found[int(stat.parent.name)] = (int(parent), state)
    return found


def _descendants(pid: int) -> set[int]:
    table = _processes()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, (parent, _) in table.items() if parent in frontier}
        found |= frontier
    return found


def _running(pids: set[int]) -> set[int]:
    table = _processes()
    return {pid for pid in pids if pid in table and table[pid][1] != "Z"}


def _interrupt(proc: subprocess.Popen) -> None:
    """Ctrl-C: SIGINT to the process group; serve must stop everything it started
    (Redis, gunicorn, the workers and their schedulers, which run in groups of their own)."""
    started = _descendants(proc.pid)
    assert len(started) >= 4  # at least Redis, a gunicorn worker and two RQ workers
    os.killpg(proc.pid, signal.SIGINT)
    try:
        assert proc.wait(30) == 0
        wait_until(lambda: not _running(started), 15, "every process serve started to stop")
    finally:
        for pid in _running(started | {proc.pid}):
            os.kill(pid, signal.SIGKILL)


def test_serve_plays_a_bot_game_with_a_webhook_and_stops_cleanly(tmp_path):
    port, data = _free_port(), tmp_path / "data"
    receiver = Receiver()
    served = _serve(port, data)
    try:
        wait_until(lambda: _healthy(port), 30, "cardtrail serve")
        seats = [{"name": "ann", "webhook": receiver.url}, {"bot": "greedy"}]
        status, created = _call(
            port, "POST", "/games", {"seats": seats, "options": {"first_dealer": 1}}
        )
        assert status == 201
        game_id, token = created["id"], created["seats"][0]["token"]
        base = f"/games/{game_id}"
        for _ in range(2):  # ann draws, then discards
            legal = _call(port, "GET", base, token=token)[1]["you"]["legal_moves"]
            move = next((m for m in legal if m["type"] == "discard"), legal[0])
            assert _call(port, "POST", f"{base}/moves", move, token=token)[0] == 200
        wait_until(lambda: _call(port, "GET", base)[1]["turn"] == 0, 20, "the bot's turn")
        wait_until(lambda: len(receiver.messages("your_turn")) == 2, 20, "the webhooks")
        version = _call(port, "GET", base)[1]["version"]
    finally:
        receiver.close()
        _interrupt(served)
    assert any((data / "redis").rglob("appendonly*"))

    again = _serve(port, data)
    try:
        wait_until(lambda: _healthy(port), 30, "cardtrail serve, again")
        view = _call(port, "GET", base, token=token)[1]
        assert view["version"] == version and view["turn"] == 0
        # Ann resigns: serve's worker seals the game into the data directory's archives,
        # and it reads as before, from there.
        assert _call(port, "POST", f"{base}/moves", {"type": "forfeit"}, token=token)[0] == 200
        ended = _call(port, "GET", base, token=token)[1]
        wait_until(lambda: any((data / "archives").rglob("*.zst")), 20, "the game sealed")
        assert _call(port, "GET", base, token=token)[1] == ended
    finally:
        _interrupt(again)
