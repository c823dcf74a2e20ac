"""Where a move's time goes: cProfile of moves through the Flask app (its WSGI stack, as
gunicorn calls it, without the socket) against a real embedded Redis, rate limits off as
in the HTTP benchmark. Moves are the HTTP benchmark's: draw from the stock, discard the
card drawn, in one long game. The process runs under gevent, patched as gunicorn's gevent
worker (cardtrail/web.py) patches the server's, so the Redis client's sockets cost what
they cost there. Times are CPU times: waiting on Redis is not counted.

    python -m bench.move_profile [--moves 2000] [--top 25] [--sort cumulative] [--out FILE]
    python -m bench --profile-move   # the same, defaults, also written to bench/move-profile.txt
"""

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402 - after the patching, as in the server
import cProfile  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import pstats  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from bench.http_bench import Player  # noqa: E402
from service.api import create_app  # noqa: E402
from service.redis_server import EmbeddedRedis  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


class AppClient:
    """`http_bench.Client`'s `call`, through Flask's test client."""

    def __init__(self, app: Any) -> None:
        self.client = app.test_client()

    def call(self, method: str, path: str, body: Any = None, token: str | None = None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        data = json.dumps(body) if body is not None else None
        answer = self.client.open(
            path, method=method, data=data, headers=headers, content_type="application/json"
        )
        return answer.status_code, (json.loads(answer.data) if answer.data else None)


def _cpu(work: Any, times: int) -> float:
    """CPU seconds per call of `work`, over `times` calls."""
    started = time.process_time()
    for _ in range(times):
        work()
    return (time.process_time() - started) / times


def run(moves: int, top: int, sort: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        redis = EmbeddedRedis(Path(tmp) / "redis", appendfsync="always").start()
        try:
            app = create_app({"REDIS_URL": redis.url, "RATE_LIMITS_ENABLED": False})
            client = AppClient(app)
            player = Player(client)  # type: ignore[arg-type]
            for _ in range(100):  # warm: the state cached, the first hands past
                player.move()
            noop = min(_cpu(lambda: client.call("GET", "/health/live"), 200) for _ in range(5))
            per_move = min(_cpu(player.move, moves // 5) for _ in range(5))
            profile = cProfile.Profile(time.process_time)  # CPU, not waiting on Redis
            profile.enable()
            for _ in range(moves):
                player.move()
            profile.disable()
        finally:
            redis.stop()
    text = io.StringIO()
    text.write(
        f"move {per_move * 1e3:.3f} ms CPU, no-op GET /health/live {noop * 1e3:.3f} ms CPU "
        f"(best of 5 rounds unprofiled, test client included); "
        f"then {moves} moves profiled (CPU time):\n"
    )
    stats = pstats.Stats(profile, stream=text)
    total = sum(own for *_, own in _by_package(stats, 10**6))
    text.write("\nOwn CPU (tottime) by package, per move, profiled (cProfile inflates calls):\n")
    for name, own in _by_package(stats, top):
        text.write(f"  {own / moves * 1e6:8.1f} µs {own / total:6.1%}  {name}\n")
    text.write("\ncardtrail's own functions:\n")
    stats.sort_stats(sort).print_stats(r"/(service|engine)/", top)
    text.write("The whole stack:\n")
    stats.strip_dirs().sort_stats(sort).print_stats(top)
    return text.getvalue().replace(f"{ROOT}/", "")


def _by_package(stats: pstats.Stats, top: int) -> list[tuple[str, float]]:  # (name, s)
    """Own time summed by installed package (or cardtrail's, or the standard library's)."""
    totals: dict[str, float] = {}
    for (path, _, name), (_, _, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        if "site-packages/" in path:
            where = path.split("site-packages/")[1].split("/")[0]
        elif path.startswith("~"):
            where = "built-in " + name.split(" of ")[0].strip("<>")[:40]
        elif any(f"/{part}/" in path for part in ("service", "engine", "bench")):
            where = "cardtrail " + "/".join(Path(path).parts[-2:])
        else:
            where = "stdlib " + Path(path).name
        totals[where] = totals.get(where, 0.0) + own
    return sorted(totals.items(), key=lambda item: -item[1])[:top]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--sort", default="cumulative", help="cumulative, tottime, …")
    parser.add_argument("--out", type=Path, default=None, help="also write the report here")
    args = parser.parse_args(argv)
    report = run(args.moves, args.top, args.sort)
    print(report)
    if args.out:
        args.out.write_text(report)


if __name__ == "__main__":
    main()
