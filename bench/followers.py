"""Thousands of followers against one web process: how fast each hears of a move, and
whether health checks and moves stay quick meanwhile.

One asyncio process plays every client: followers (half Server-Sent Events streams, half
long-polls that re-ask after each answer) spread over the games, one mover making moves,
and a prober asking `/health/live` and, when workers run, `/health/ready`. Sockets are
plain asyncio streams with a minimal HTTP/1.1 client, so a follower costs the clients
almost nothing and the server's work is what is measured.

    python -m bench.followers [--followers 5000] [--games 100] [--moves 40] [--json]
"""

import argparse
import asyncio
import json
import multiprocessing
import os
import queue
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import report
from service.redis_server import EmbeddedRedis

ROOT = Path(__file__).resolve().parents[1]


async def request(
    port: int, method: str, path: str, body: Any = None, token: str | None = None
) -> tuple[int, Any]:
    """One HTTP/1.1 request on a connection of its own; (status, JSON body or None)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    data = json.dumps(body).encode() if body is not None else b""
    head = [f"{method} {path} HTTP/1.1", "Host: bench", "Connection: close"]
    if token:
        head.append(f"Authorization: Bearer {token}")
    if body is not None:
        head += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
    raw = await reader.read()
    writer.close()
    header, _, payload = raw.partition(b"\r\n\r\n")
    status = int(header.split(b" ", 2)[1])
    try:
        return status, json.loads(payload) if payload else None
    except ValueError:
        return status, None


@dataclass
class Log:
    """When each follower first saw each version of its game."""

    seen: dict[tuple[int, int], float] = field(default_factory=dict)  # (follower, version)
    errors: list[str] = field(default_factory=list)
    connected: int = 0

    def saw(self, follower: int, version: int) -> None:
        self.seen.setdefault((follower, version), time.monotonic())


async def stream_follower(port: int, index: int, game: str, after: int, log: Log) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET /games/{game}/stream?after={after} HTTP/1.1\r\nHost: bench\r\n"
        "Accept: text/event-stream\r\nConnection: close\r\n\r\n".encode()
    )
    status = await reader.readline()
    if b" 200 " not in status:
        log.errors.append(f"stream {status!r}")
        return
    log.connected += 1
    while line := await reader.readline():
        if line.startswith(b"id: "):
            version = int(line[4:])
            for earlier in range(after + 1, version + 1):
                log.saw(index, earlier)
            after = version


async def poll_follower(port: int, index: int, game: str, after: int, log: Log) -> None:
    first = True
    while True:
        status, body = await request(port, "GET", f"/games/{game}/events?after={after}&wait=25")
        if status != 200:
            log.errors.append(f"poll {status} {body}")
            await asyncio.sleep(1)
            continue
        if first:
            log.connected += 1
            first = False
        for event in body["events"]:
            log.saw(index, event["version"])
        after = max(after, body["version"])


@dataclass
class Game:
    id: str
    tokens: list[str]
    version: int


async def new_games(port: int, count: int) -> list[Game]:
    games = []
    for _ in range(count):
        seats = [{"name": "ann"}, {"name": "bob"}]
        status, created = await request(port, "POST", "/games", {"seats": seats})
        assert status == 201, created
        tokens = [seat["token"] for seat in created["seats"]]
        games.append(Game(created["id"], tokens, created["version"]))
    return games


async def make_move(port: int, game: Game) -> tuple[float, int, float]:
    """One legal move in `game`: (when it was sent, the version it made, its latency)."""
    _, shown = await request(port, "GET", f"/games/{game.id}")
    token = game.tokens[shown["turn"]]
    _, mine = await request(port, "GET", f"/games/{game.id}", token=token)
    command = mine["you"]["legal_moves"][0]
    sent = time.monotonic()
    status, answer = await request(port, "POST", f"/games/{game.id}/moves", command, token)
    assert status == 200, answer
    game.version = answer["version"]
    return sent, game.version, time.monotonic() - sent


async def probe(port: int, path: str, every: float, times: list[float], stop: asyncio.Event):
    while not stop.is_set():
        started = time.monotonic()
        status, _ = await request(port, "GET", path)
        if status == 200:
            times.append(time.monotonic() - started)
        await asyncio.sleep(every)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _probe_and_move(port: int, games: list[Game], moves: int, ready: bool, out) -> None:
    """In a process of its own, so that the followers' work on the clients' side cannot
    delay (and so inflate) the probes: health probes throughout, and the moves."""

    async def main() -> dict[str, Any]:
        health: list[float] = []
        readiness: list[float] = []
        stop = asyncio.Event()
        probes = [asyncio.create_task(probe(port, "/health/live", 0.05, health, stop))]
        if ready:
            probes.append(asyncio.create_task(probe(port, "/health/ready", 0.2, readiness, stop)))
        made = []
        for number in range(moves):
            game = number % len(games)
            sent, version, latency = await make_move(port, games[game])
            made.append((game, sent, version, latency))
            await asyncio.sleep(0.25)
        await asyncio.sleep(1.5)
        stop.set()
        await asyncio.gather(*probes)
        return {"health": health, "readiness": readiness, "made": made}

    out.put(asyncio.run(main()))


async def _idle_health(port: int) -> list[float]:
    idle: list[float] = []
    stop = asyncio.Event()
    task = asyncio.create_task(probe(port, "/health/live", 0.02, idle, stop))
    await asyncio.sleep(2)
    stop.set()
    await task
    return idle


async def measure(
    port: int, followers: int, games_count: int, moves: int, ready: bool = False
) -> dict[str, Any]:
    """Followers spread over `games_count` games, then `moves` moves, one at a time."""
    games = await new_games(port, games_count)
    idle = await _idle_health(port)
    log = Log()
    of_game: dict[int, list[int]] = {g: [] for g in range(games_count)}
    tasks = []
    for index in range(followers):
        game = index % games_count
        of_game[game].append(index)
        follower = stream_follower if index % 2 == 0 else poll_follower
        tasks.append(
            asyncio.create_task(follower(port, index, games[game].id, games[game].version, log))
        )
    deadline = time.monotonic() + 60
    while log.connected < followers and time.monotonic() < deadline and not log.errors:
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)  # the long-polls are all waiting again
    results: Any = multiprocessing.get_context("spawn").Queue()
    mover = multiprocessing.get_context("spawn").Process(
        target=_probe_and_move, args=(port, games, moves, ready, results)
    )
    mover.start()
    while (done := await asyncio.to_thread(_poll, results)) is None:
        pass
    mover.join(10)
    health, readiness, made = done["health"], done["readiness"], done["made"]
    delays, missed = [], 0
    for game, sent, version, _ in made:
        for follower in of_game[game]:
            at = log.seen.get((follower, version))
            if at is None:
                missed += 1
            else:
                delays.append(at - sent)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "followers": followers,
        "followers_connected": log.connected,
        "follower_errors": log.errors[:5],
        "games": games_count,
        "moves": moves,
        "deliveries": len(delays),
        "missed": missed,
        "fanout_p50_ms": round(1000 * _pct(delays, 0.50), 1),
        "fanout_p99_ms": round(1000 * _pct(delays, 0.99), 1),
        "fanout_max_ms": round(1000 * max(delays, default=float("nan")), 1),
        "late_over_1s": sum(1 for delay in delays if delay > 1.0),
        "health_idle_p99_ms": round(1000 * _pct(idle, 0.99), 2),
        "health_loaded_p99_ms": round(1000 * _pct(health, 0.99), 2),
        "health_loaded_max_ms": round(1000 * max(health, default=float("nan")), 2),
        "health_p99_over_idle": round(_pct(health, 0.99) / _pct(idle, 0.99), 2),
        "ready_max_ms": round(1000 * max(readiness, default=0.0), 2),
        "move_max_ms": round(1000 * max(m[3] for m in made), 2),
        "move_p50_ms": round(1000 * statistics.median(m[3] for m in made), 2),
    }


def _poll(results: Any) -> Any:
    try:
        return results.get(timeout=0.5)
    except queue.Empty:
        return None


class Server:
    """An embedded Redis and one web process as `cardtrail serve` runs it (gunicorn with
    cardtrail/web.py's settings), optionally with an RQ worker per queue."""

    def __init__(self, tmp: str, workers: bool = False, env: dict[str, str] | None = None) -> None:
        self.tmp = Path(tmp)
        self.extra_env = env or {}
        self.redis = EmbeddedRedis(self.tmp / "redis")
        self.workers = workers
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> "Server":
        from cardtrail.web import gunicorn_options

        url = self.redis.start().url
        env = {
            **os.environ,
            "REDIS_URL": url,
            "CARDTRAIL_SIGNING_KEY_FILE": str(self.tmp / "key.pem"),
            "CARDTRAIL_MAX_CONNECTIONS_PER_CLIENT": "100000",  # every client is on loopback
            "CARDTRAIL_RATE_LIMITS": "off",
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
            **self.extra_env,
        }
        self.port = _free_port()
        options = gunicorn_options("127.0.0.1", self.port, 1)
        gunicorn = str(Path(sys.executable).with_name("gunicorn"))
        args = [
            gunicorn,
            "service.api:create_app()",
            "-c",
            "python:cardtrail.web",
            "--bind",
            options["bind"],
            "--workers",
            "1",
            "--log-level",
            "warning",
            "--no-control-socket",
        ]
        self.procs.append(subprocess.Popen(args, env=env, cwd=ROOT))
        if self.workers:
            code = "from workers.run import run_worker; run_worker(queues=[{!r}])"
            for queue in ("turns", "notify"):
                self.procs.append(
                    subprocess.Popen(
                        [sys.executable, "-c", code.format(queue)],
                        env=env,
                        cwd=ROOT,
                        start_new_session=True,
                    )
                )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if asyncio.run(request(self.port, "GET", "/health/live"))[0] == 200:
                    return self
            except OSError:
                time.sleep(0.2)
        self.__exit__()
        raise RuntimeError("the web process did not start")

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs:
            proc.kill()
        for proc in self.procs:
            proc.wait(10)
        self.redis.stop()


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def raise_file_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, needed), hard))


def run(followers: int, games: int, moves: int, workers: bool = False) -> dict[str, Any]:
    raise_file_limit(followers + 1000)
    with tempfile.TemporaryDirectory() as tmp, Server(tmp, workers) as server:
        return asyncio.run(measure(server.port, followers, games, moves, ready=workers))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--followers", type=int, default=5000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report(run(args.followers, args.games, args.moves), args.json)


if __name__ == "__main__":
    main()
