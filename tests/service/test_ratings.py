"""Ratings, projected by real RQ workers from real games, equal the ratings rebuilt from
the event streams alone (`cardtrail rebuild ratings`), whatever order the games arrive in.

Bots are rated identities, so games of bots (and of bots with anonymous people) are
played here by the workers to the end; accounts are rated the same way (their games are
in tests/service/test_player_ratings.py).
"""

import os
import subprocess
import sys
import threading
import time

import pytest
from rq.job import JobStatus

from service import keys
from service.ratings import Ratings
from service.scheduler import RATINGS_JOB
from tests.service.helpers import assert_problem, auth
from tests.service.test_workers import workers  # noqa: F401  (the fixture)

SPADES_PAIRS = "spades-pairs"
ONE_HAND = {"max_hands": 1}
ONE_DEAL = {"game_end": "deals", "deals": 1}


def create(client, seats, game="rummy", preset=None, **options):
    body = {"game": game, "seats": seats, "options": options}
    if preset:
        body["preset"] = preset
    response = client.post("/games", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def bots(*levels):
    return [{"bot": level} for level in levels]


def series(client):
    """Games of every pool, a forfeit and a time-out among them; their ids, by what they are."""
    made = {
        "pairs": create(
            client, bots("strong", "random", "strong", "greedy"), "spades", "pairs", **ONE_HAND
        ),
        "solo": create(client, bots("strong", "greedy", "random"), "spades", "solo", **ONE_HAND),
        "duel": create(client, bots("greedy", "random"), preset="block", **ONE_DEAL),
        "table": create(client, bots("strong", "greedy", "random"), preset="block", **ONE_DEAL),
        # an anonymous person partnering the strong bot resigns at once: their side loses
        "forfeit": create(
            client, [{"name": "ann"}, *bots("greedy", "strong", "random")], "spades", "pairs"
        ),
        # an anonymous person with the strong bot lets their clock run out, forfeiting
        "timeout": create(
            client,
            [{"name": "cat"}, *bots("random", "strong", "greedy")],
            "spades",
            "pairs",
            first_dealer=3,
            move_time="1s",
            on_timeout="forfeit",
        ),
        # only one rated identity: nobody to be rated against
        "alone": create(client, [{"name": "dan"}, {"bot": "strong"}], preset="block", **ONE_DEAL),
    }
    forfeiting = made["forfeit"]
    answer = client.post(
        f"/games/{forfeiting['id']}/moves",
        json={"type": "forfeit"},
        headers=auth(forfeiting["seats"][0]["token"]),
    )
    assert answer.status_code == 200, answer.get_json()
    alone = made["alone"]
    client.post(
        f"/games/{alone['id']}/moves",
        json={"type": "forfeit"},
        headers=auth(alone["seats"][0]["token"]),
    )
    return {kind: game["id"] for kind, game in made.items()}


def projection(redis_client) -> dict:
    """Everything the ratings keep, but the write counters (they count writes, not games)."""
    kept = {}
    for key in sorted(redis_client.scan_iter(match="cardtrail:ratings:*")):
        kind = redis_client.type(key)
        if kind == b"hash":
            kept[key] = redis_client.hgetall(key)
        elif kind == b"zset":
            kept[key] = redis_client.zrange(key, 0, -1, withscores=True)
    return kept


def drop(redis_client) -> None:
    for key in list(redis_client.scan_iter(match="cardtrail:ratings:*")):
        redis_client.delete(key)


def ledger(redis_client, pool) -> list[str]:
    return [member.decode() for member in redis_client.zrange(keys.rating_ledger(pool), 0, -1)]


def rated_games(redis_client) -> set[str]:
    found = set()
    for pool in ("rummy-2", "rummy-3-6", SPADES_PAIRS, "spades-solo"):
        found.update(ledger(redis_client, pool))
    return found


def wait_until(predicate, timeout=120.0, what="the workers"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} did not finish in time")


def rebuild_with_the_command(redis_url) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "cardtrail.cli", "rebuild", "ratings"],
        env={**os.environ, "REDIS_URL": redis_url},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout


@pytest.fixture
def played(app, client, redis_client, workers):  # noqa: F811
    """The series, every game finished and rated by the workers."""
    workers()
    ids = series(client)
    rated = {kind: game for kind, game in ids.items() if kind != "alone"}
    wait_until(lambda: rated_games(redis_client) >= set(rated.values()))
    return ids


def test_the_workers_ratings_equal_the_rebuild_from_the_streams(played, redis_client, redis_url):
    assert rated_games(redis_client) == {game for kind, game in played.items() if kind != "alone"}
    incremental = projection(redis_client)
    assert incremental
    drop(redis_client)
    printed = rebuild_with_the_command(redis_url)
    assert f"{SPADES_PAIRS}: 3 rated games" in printed
    assert projection(redis_client) == incremental


def test_games_applied_in_any_order_fold_to_the_same_ratings(played, app, redis_client):
    ratings: Ratings = app.extensions["cardtrail"].ratings
    expected = projection(redis_client)
    games = [played[kind] for kind in ("pairs", "forfeit", "timeout")]
    ordered = ledger(redis_client, SPADES_PAIRS)
    assert sorted(ordered) == sorted(games)
    drop(redis_client)
    outcomes = [ratings.apply(game) for game in reversed(ordered)]
    assert outcomes == ["applied", "refolded", "refolded"]  # each arrived before its elders
    for kind in ("solo", "duel", "table"):
        assert ratings.apply(played[kind]) == "applied"
    assert projection(redis_client) == expected


def test_concurrent_applications_of_one_pool_never_lose_a_game(played, app, redis_client):
    ratings: Ratings = app.extensions["cardtrail"].ratings
    expected = projection(redis_client)
    drop(redis_client)
    games = [game for kind, game in played.items() if kind != "alone"] * 2  # each one twice
    threads = [threading.Thread(target=ratings.apply, args=(game,)) for game in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert projection(redis_client) == expected


def test_a_game_is_applied_once_however_often_its_job_runs(played, app, redis_client):
    ratings: Ratings = app.extensions["cardtrail"].ratings
    before = projection(redis_client)
    assert ratings.apply(played["pairs"]) == "already"
    queue = app.extensions["cardtrail"].scheduler.queue
    again = queue.enqueue(RATINGS_JOB, played["duel"])  # the game's job, run a second time
    wait_until(lambda: again.get_status(refresh=True) == JobStatus.FINISHED, what="the job")
    assert again.return_value() == "already"
    assert projection(redis_client) == before


def test_partners_and_forfeits(played, client):
    board = client.get(f"/ratings/{SPADES_PAIRS}").get_json()
    assert board["total"] == 3  # strong, greedy and random: the people were anonymous
    by_id = {row["player"]: row for row in board["ratings"]}
    strong, greedy, random_bot = (
        by_id[f"bot:spades:{level}"] for level in ("strong", "greedy", "random")
    )
    assert strong["name"] == "strong bot" and strong["bot"] is True
    # every bot played all three pairs games; the strong bot's partners resigned or timed out
    # in two of them, so it lost those whatever its tricks: greedy and random beat it twice
    assert strong["games"] == greedy["games"] == random_bot["games"] == 3
    assert all(row["provisional"] for row in board["ratings"])
    assert strong["mu"] < greedy["mu"] == random_bot["mu"]  # greedy and random always partnered
    assert [row["rank"] for row in board["ratings"]] == [1, 2, 3]
    ordinals = [row["ordinal"] for row in board["ratings"]]
    assert ordinals == sorted(ordinals, reverse=True)


def test_a_forfeit_counts_as_a_loss_for_the_side_that_resigned(app, client, redis_client, workers):  # noqa: F811
    workers()
    game = create(client, [{"name": "ann"}, *bots("greedy", "strong", "random")], "spades", "pairs")
    client.post(
        f"/games/{game['id']}/moves",
        json={"type": "forfeit"},
        headers=auth(game["seats"][0]["token"]),
    )
    wait_until(lambda: game["id"] in ledger(redis_client, SPADES_PAIRS))
    board = {
        row["player"]: row for row in client.get(f"/ratings/{SPADES_PAIRS}").get_json()["ratings"]
    }
    assert board["bot:spades:strong"]["mu"] < 25 < board["bot:spades:greedy"]["mu"]
    assert board["bot:spades:random"]["mu"] == board["bot:spades:greedy"]["mu"]


def test_abandoned_and_unrated_games_do_not_count(app, client, redis_client):
    ratings: Ratings = app.extensions["cardtrail"].ratings
    waiting = create(client, [{"bot": "strong"}, {"bot": "greedy"}, {"open": True}], preset="block")
    assert app.extensions["cardtrail"].handlers.abandon(waiting["id"], time.time()) is not None
    assert ratings.apply(waiting["id"]) == "not_rated"
    playing = create(client, bots("strong", "greedy"), preset="block")
    assert ratings.apply(playing["id"]) == "not_rated"  # not over
    assert ratings.rebuild() == dict.fromkeys(
        ("rummy-2", "rummy-3-6", "minitricks", SPADES_PAIRS, "spades-solo"), 0
    )
    assert projection(redis_client) == {}


def test_the_pools_and_a_players_ratings(played, app, client):
    pools = {pool["pool"]: pool for pool in client.get("/ratings").get_json()["pools"]}
    assert {"rummy-2", "rummy-3-6", SPADES_PAIRS, "spades-solo"} <= set(pools)
    assert pools["rummy-2"]["rated"] == 2 and pools["rummy-2"]["title"] == "Rummy, 2 players"
    mine = app.extensions["cardtrail"].ratings.of_player("bot:spades:strong")
    assert {row["pool"] for row in mine} == {SPADES_PAIRS, "spades-solo"}
    assert all(row["games"] >= 1 and row["rank"] >= 1 for row in mine)
    assert app.extensions["cardtrail"].ratings.of_player("nobody") == []


def test_the_leaderboard_pages(played, client):
    first = client.get(f"/ratings/{SPADES_PAIRS}?page=1&page_size=2").get_json()
    second = client.get(f"/ratings/{SPADES_PAIRS}?page=2&page_size=2").get_json()
    assert [row["rank"] for row in first["ratings"]] == [1, 2]
    assert [row["rank"] for row in second["ratings"]] == [3]
    assert first["total"] == second["total"] == 3
    assert first["provisional_games"] == 10


def test_an_unknown_pool_or_page_is_refused(client):
    assert_problem(client.get("/ratings/chess"), 404, "pool_not_found")
    body = assert_problem(client.get(f"/ratings/{SPADES_PAIRS}?page=0"), 422, "validation_error")
    assert body["errors"][0]["field"] == "page"


def test_the_document_describes_the_rating_routes(client):
    doc = client.get("/openapi.json").get_json()
    pools, board = doc["paths"]["/ratings"]["get"], doc["paths"]["/ratings/{pool}"]["get"]
    assert pools["operationId"] == "listRatingPools" and board["operationId"] == "getLeaderboard"
    assert pools["security"] == board["security"] == []  # public
    assert {"404", "422", "500", "503"} <= set(board["responses"])
    (pool,) = doc["paths"]["/ratings/{pool}"]["parameters"]
    assert set(pool["schema"]["enum"]) >= {"rummy-2", "rummy-3-6", SPADES_PAIRS, "spades-solo"}


def test_ratings_rebuilt_from_sealed_games_are_the_same(played, redis_client, redis_url, tmp_path):
    """`cardtrail archive --all-finished` seals the series out of Redis; the rebuild then
    reads every log from the archives and gives the very same ratings."""
    incremental = projection(redis_client)
    env = {**os.environ, "REDIS_URL": redis_url, "CARDTRAIL_ARCHIVE": str(tmp_path / "a")}
    sealed = subprocess.run(
        [sys.executable, "-m", "cardtrail.cli", "archive", "--all-finished"],
        env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert sealed.stdout.strip() == f"{len(played)} sealed", sealed.stdout
    assert not list(redis_client.scan_iter(match=keys.events("*")))  # no log left in Redis
    assert len(list((tmp_path / "a").rglob("*.zst"))) == len(played)
    drop(redis_client)
    rebuilt = subprocess.run(
        [sys.executable, "-m", "cardtrail.cli", "rebuild", "ratings"],
        env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert f"{SPADES_PAIRS}: 3 rated games" in rebuilt.stdout
    assert projection(redis_client) == incremental
    again = subprocess.run(
        [sys.executable, "-m", "cardtrail.cli", "archive", "--all-finished"],
        env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert again.stdout.strip() == "0 games"  # nothing left to seal
