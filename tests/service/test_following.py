"""The follower hub: one blocking read per followed game, however many follow it; every
follower woken by the event; bounded, so that no wait hangs and a full hub says so."""

import threading
import time

import pytest

from service.api import create_app
from service.errors import Busy
from service.following import FollowerHub
from service.queries import Queries
from service.store import Batch, EventStore
from tests.service.helpers import assert_problem, create_game, move, view


def append_note(store: EventStore, game_id: str) -> int:
    version = store.version(game_id)
    batch = Batch.of(game_id, version, store.hash_at(game_id, version), [{"type": "note"}], None)
    return store.append(batch).version


def xreads(redis_client) -> int:
    return int(redis_client.info("commandstats").get("cmdstat_xread", {}).get("calls", 0))


def test_many_followers_of_a_game_share_one_read_and_all_wake(client, redis_client, store):
    games = [create_game(client, seed=f"hub {n}")["id"] for n in range(2)]
    versions = [store.version(game_id) for game_id in games]
    hub = FollowerHub(redis_client, block_ms=2_000)
    woke: dict[int, list[float]] = {0: [], 1: []}

    def follow(which: int) -> None:
        hub.wait_once(games[which], versions[which], 10)
        woke[which].append(time.monotonic())

    threads = [threading.Thread(target=follow, args=(n % 2,)) for n in range(120)]
    reads_before = xreads(redis_client)
    for thread in threads:
        thread.start()
    time.sleep(0.5)
    assert hub.followers == 120 and hub.games == 2
    appended_at = time.monotonic()
    append_note(store, games[0])
    for thread in threads[0::2]:
        thread.join(5)
    assert len(woke[0]) == 60 and max(woke[0]) - appended_at < 1.0
    assert woke[1] == []  # the other game's followers still wait
    # One reader per game: the 120 followers made a handful of XREADs, not 120.
    assert xreads(redis_client) - reads_before <= 8
    append_note(store, games[1])
    for thread in threads[1::2]:
        thread.join(5)
    assert len(woke[1]) == 60
    time.sleep(2.5)  # the readers notice nobody follows any more, and stop
    assert hub.games == 0 and hub.followers == 0


def test_a_full_hub_says_so_at_once(redis_client, store, client):
    game_id = create_game(client, seed="full hub")["id"]
    version = store.version(game_id)
    hub = FollowerHub(redis_client, max_followers=3)
    waiting = [threading.Thread(target=hub.wait_once, args=(game_id, version, 3)) for _ in range(3)]
    for thread in waiting:
        thread.start()
    time.sleep(0.3)
    started = time.monotonic()
    with pytest.raises(Busy):
        hub.wait_once(game_id, version, 3)
    assert time.monotonic() - started < 0.1
    for thread in waiting:
        thread.join(5)


@pytest.fixture
def small_app(redis_url, redis_client):
    app = create_app({"REDIS_URL": redis_url, "ALLOW_PRESET_DECK": True, "MAX_FOLLOWERS": 2})
    yield app
    app.extensions["cardtrail"].redis.close()


def test_past_the_followers_limit_a_long_poll_gets_503_with_retry_after(small_app):
    client = small_app.test_client()
    created = create_game(client, seed="busy")
    game_id, version = created["id"], created["version"]
    url = f"/games/{game_id}/events?after={version}&wait=3"
    holders = [threading.Thread(target=small_app.test_client().get, args=(url,)) for _ in range(2)]
    for thread in holders:
        thread.start()
    time.sleep(0.3)
    started = time.monotonic()
    response = client.get(url)
    assert time.monotonic() - started < 1.0
    assert_problem(response, 503, "too_many_followers")
    assert response.headers["Retry-After"] == "1"
    streamed = client.get(f"/games/{game_id}/stream?after={version}")
    assert_problem(streamed, 503, "too_many_followers")
    for thread in holders:
        thread.join(10)


@pytest.mark.parametrize("wait", ["0", "0.0009", "0.001", "1e-9"])
def test_tiny_waits_answer_at_once(client, wait):
    created = create_game(client, seed="tiny waits")
    game_id, version = created["id"], created["version"]
    started = time.monotonic()
    response = client.get(f"/games/{game_id}/events?after={version}&wait={wait}")
    assert response.status_code == 200 and response.get_json()["events"] == []
    assert time.monotonic() - started < 0.5


@pytest.mark.parametrize("wait", ["31", "1e9", "-1", "nan", "inf"])
def test_waits_out_of_bounds_are_refused_at_once(client, wait):
    game_id = create_game(client, seed="huge waits")["id"]
    started = time.monotonic()
    response = client.get(f"/games/{game_id}/events?after=0&wait={wait}")
    assert_problem(response, 422)
    assert time.monotonic() - started < 0.5


def test_a_stream_at_its_deadline_ends_at_once(app, client):
    created = create_game(client, seed="stream deadline")
    game_id, version = created["id"], created["version"]
    queries: Queries = app.extensions["cardtrail"].queries
    for seconds in (0.0, 0.0005, 0.002):
        started = time.monotonic()
        stream = queries.follow(game_id, None, version, seconds)
        frames = list(stream)
        stream.close()
        assert time.monotonic() - started < 0.5, seconds
        assert frames[0].startswith("retry:")
    assert queries.hub.followers == 0  # every stream gave its place back


def test_a_stream_closed_before_its_first_frame_gives_its_place_back(app, client):
    created = create_game(client, seed="never read")
    queries: Queries = app.extensions["cardtrail"].queries
    stream = queries.follow(created["id"], None, created["version"], 60)
    assert queries.hub.followers == 1
    stream.close()
    assert queries.hub.followers == 0


def test_a_follower_sees_a_move_made_over_http(client):
    created = create_game(client, seed="follow a move")
    game_id, version = created["id"], created["version"]
    tokens = [seat["token"] for seat in created["seats"]]
    seen = {}

    def follow() -> None:
        seen["answer"] = client.get(f"/games/{game_id}/events?after={version}&wait=10").get_json()

    thread = threading.Thread(target=follow)
    thread.start()
    time.sleep(0.3)
    turn = view(client, game_id)["turn"]
    assert (
        move(client, game_id, tokens[turn], {"type": "draw", "source": "stock"}).status_code == 200
    )
    thread.join(5)
    assert [event["type"] for event in seen["answer"]["events"]][0] == "card_drawn"
    assert seen["answer"]["receipt"]["version"] == seen["answer"]["version"]


@pytest.mark.off_protocol("fills the hub on purpose")
def test_polls_that_wait_for_nothing_do_not_keep_a_real_follower_out(app, client):
    """A reader whose followers are gone gives its place back: short polls of every game
    do not fill the hub and keep a real follower of another game out."""
    hub = app.extensions["cardtrail"].queries.hub
    hub.max_games = 2
    games = [create_game(client, seed=f"hub {n}")["id"] for n in range(3)]
    for game_id in games[:2]:
        started = time.monotonic()
        polled = client.get(f"/games/{game_id}/events?after=1000000000&wait=0.05")
        assert polled.status_code == 200 and polled.get_json()["events"] == []
        assert time.monotonic() - started < 1  # answered at once: nobody waits any more
    assert hub.followers == 0
    # A real follower of the third game, with nobody following anything:
    real = client.get(f"/games/{games[2]}/events?after=1000000000&wait=1")
    assert real.status_code == 200, real.get_json()
