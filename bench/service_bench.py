"""Store and replay benchmarks, in-process against a real (embedded) Redis.

* fold ÷ read — rebuilding a finished 10-hand game: folding its events ÷ reading the same
  events from Redis (XRANGE and JSON decoding). Goal ≤ 1.0.
* replay ÷ read — a replay of a random step of a finished hand ÷ a plain state read
  (GET /games/{id}), both through the Flask app. Goal ≤ 2.
* receipts — a move's CPU time through the handlers with a signed receipt ÷ without one
  (the same moves, alternating rounds; goal ≤ 1.10: signing costs the move path at most
  10%), and one receipt's signing time.

  python -m bench.service_bench [--json]
"""

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import redis

from bench import report
from engine import games, table
from service.api import create_app
from service.bootstrap import Cardtrail, build
from service.commands import CreateGame, MakeMove, SeatRequest
from service.redis_server import EmbeddedRedis
from service.signing import ephemeral
from service.store import EventStore

LONG_GAME = {"game_end": "deals", "deals": 1000, "max_stock_reuses": None, "first_dealer": 0}


def _finished_game(client, deals: int) -> str:
    created = client.post(
        "/games",
        json={
            "preset": "block",
            "options": {"game_end": "deals", "deals": deals},
            "seats": [{"name": "ann"}, {"name": "bob"}],
        },
    ).get_json()
    game_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    rng = random.Random(3)
    while True:
        view = client.get(f"/games/{game_id}").get_json()
        if view["status"] == "finished":
            return game_id
        token = tokens[view["turn"]]
        mine = client.get(f"/games/{game_id}", headers={"Authorization": f"Bearer {token}"})
        move = rng.choice(mine.get_json()["you"]["legal_moves"])
        client.post(
            f"/games/{game_id}/moves", json=move, headers={"Authorization": f"Bearer {token}"}
        )


def _median_time(work, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def run() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        url = os.environ.get("REDIS_URL")
        embedded = None
        if not url:
            embedded = EmbeddedRedis(Path(tmp) / "redis").start()
            url = embedded.url
        try:
            app = create_app({"REDIS_URL": url, "RATE_LIMITS_ENABLED": False})
            client = app.test_client()
            game_id = _finished_game(client, 10)
            store = EventStore(app.extensions["cardtrail"].redis)
            game = games.get("rummy")
            events = store.read(game_id)
            read = _median_time(lambda: store.read(game_id), 15)
            fold = _median_time(lambda: table.fold(game, events), 15)
            hands = client.get(f"/games/{game_id}/hands").get_json()["hands"]
            rng = random.Random(5)
            client.get(f"/games/{game_id}")
            for hand in hands:  # first visits fold each hand once; steps then cost a lookup
                client.get(f"/games/{game_id}/hands/{hand['number']}/replay?step=0")
            plain = _median_time(lambda: client.get(f"/games/{game_id}"), 200)

            def random_step():
                hand = rng.choice(hands)
                step = rng.randrange(hand["steps"] + 1)
                client.get(f"/games/{game_id}/hands/{hand['number']}/replay?step={step}")

            replay = _median_time(random_step, 200)
            receipts = _receipt_cost(url)
        finally:
            if embedded:
                embedded.stop()
    return {
        "events_in_game": len(events),
        "fold_finished_game_ms": round(fold * 1000, 3),
        "read_finished_game_ms": round(read * 1000, 3),
        "fold_over_read": round(fold / read, 3),
        "replay_step_ms": round(replay * 1000, 3),
        "state_read_ms": round(plain * 1000, 3),
        "replay_over_read": round(replay / plain, 3),
        **receipts,
    }


def _moves_cpu(app: Cardtrail, game_id: str, moves: int) -> float:
    """CPU seconds for `moves` moves (draw from the stock, discard the card drawn)."""
    started = time.process_time()
    for _ in range(moves // 2):
        loaded = app.repository.load(game_id)
        seat = loaded.game.to_act(loaded.state)[0]
        answer = app.handlers.act(MakeMove(game_id, seat, {"type": "draw", "source": "stock"}))
        drawn = next(e["card"] for e in answer["events"] if e["type"] == "card_drawn")
        app.handlers.act(MakeMove(game_id, seat, {"type": "discard", "card": drawn}))
    return time.process_time() - started


def _receipt_cost(url: str) -> dict:
    signer = ephemeral()
    apps = {  # a testing server: both games dealt from one chosen seed, move for move alike
        "with": build(redis.Redis.from_url(url), allow_preset_deck=True, signer=signer),
        "without": build(
            redis.Redis.from_url(url), allow_preset_deck=True, signer=signer, receipts=False
        ),
    }
    seats = [SeatRequest(name="a"), SeatRequest(name="b")]
    game = CreateGame(seats=seats, preset="pagat", options=LONG_GAME, seed="receipts bench")
    ids = {name: app.handlers.create(game)["id"] for name, app in apps.items()}
    best = {name: float("inf") for name in apps}
    for _ in range(5):
        for name, app in apps.items():
            best[name] = min(best[name], _moves_cpu(app, ids[name], 200) / 200)
    started = time.process_time()
    for version in range(2000):
        signer.receipt("abcdefghijkl", version, "ab" * 32)
    sign = (time.process_time() - started) / 2000
    return {
        "move_cpu_ms_with_receipt": round(best["with"] * 1000, 3),
        "move_cpu_ms_without_receipt": round(best["without"] * 1000, 3),
        "receipt_move_ratio": round(best["with"] / best["without"], 3),
        "receipt_sign_us": round(sign * 1e6, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report(run(), args.json)


if __name__ == "__main__":
    main()
