"""Waiting games expire: a table whose open seats stay empty past CARDTRAIL_WAITING_EXPIRES
is abandoned by the reconciler (run here in-process, as a worker's maintenance tick
runs it), recorded as `game_abandoned` and `seed_revealed`, and audits."""

import time

import pytest

from replays.audit import audit_export
from replays.export import export_lines
from service import keys
from service.auth import new_token
from service.tables import Seat
from tests.service.helpers import assert_problem, create_game, move, view
from workers.connection import cardtrail
from workers.reconcile import WAITING_EXPIRES_ENV, reconcile

OPEN = [{"name": "ann"}, {"open": True}]


@pytest.fixture
def sweep(redis_url, redis_client, monkeypatch):
    """The reconciler with a one-second expiry (each call takes its turn at once)."""
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv(WAITING_EXPIRES_ENV, "1s")
    cardtrail.cache_clear()

    def run() -> int:
        redis_client.delete(keys.RECONCILE_LOCK)
        return reconcile()

    yield run
    cardtrail.cache_clear()


def expire() -> None:
    time.sleep(1.2)  # past the one-second expiry, by the index's creation times


def types(store, game_id):
    return [event["type"] for event in store.read(game_id)]


def listed(client, status):
    return [item["id"] for item in client.get(f"/games?status={status}").get_json()["items"]]


def test_a_waiting_game_past_its_expiry_is_abandoned(client, store, sweep):
    created = create_game(client, seed="abandon me", seats=OPEN)
    game_id, ann = created["id"], created["seats"][0]["token"]
    expire()
    assert sweep() == 1
    assert types(store, game_id) == ["game_created", "game_abandoned", "seed_revealed"]
    records = store.records(game_id)
    assert [r.command for r in records] == [{"type": "create"}, {"type": "abandon"}, None]
    assert records[2].event["server_seed"] == "abandon me"

    assert listed(client, "abandoned") == [game_id]
    assert listed(client, "waiting") == []
    shown = view(client, game_id, ann)
    assert shown["status"] == "abandoned" and shown["version"] == 3
    assert shown["you"]["legal_moves"] == []
    assert view(client, game_id)["status"] == "abandoned"

    assert_problem(
        client.post(f"/games/{game_id}/join", json={"name": "bob"}), 409, "game_abandoned"
    )
    assert_problem(
        move(client, game_id, ann, {"type": "draw", "source": "stock"}), 409, "game_abandoned"
    )
    assert types(store, game_id)[-1] == "seed_revealed" and store.version(game_id) == 3

    told = client.get(f"/games/{game_id}/events?after=1").get_json()["events"]
    assert told[0]["type"] == "game_abandoned" and "abandoned" in told[0]["description"]
    assert client.get(f"/games/{game_id}/hands").get_json() == {"hands": []}

    lines = list(export_lines(game_id, "rummy", records))
    verdict = audit_export(lines)
    assert verdict.ok, verdict.first_bad
    assert verdict.finished is False and verdict.hands == 0
    assert any("abandoned before it was dealt" in note for note in verdict.notes)
    # Over HTTP too: an abandoned game is over, so it exports and audits.
    exported = client.get(f"/games/{game_id}/export").get_data(as_text=True)
    assert audit_export(exported.splitlines()).ok
    assert client.get(f"/games/{game_id}/audit").get_json()["ok"] is True
    # A stream of it ends once it has told what happened.
    stream = client.get(f"/games/{game_id}/stream?after=0").get_data(as_text=True)
    assert "event: game_abandoned" in stream and "event: seed_revealed" in stream
    assert sweep() == 0  # nothing more to do: it is out of the waiting index


def test_a_seat_with_a_webhook_hears_that_the_game_was_abandoned(client, sweep, monkeypatch):
    monkeypatch.setenv("CARDTRAIL_WEBHOOK_ALLOW_PRIVATE", "1")
    seats = [{"name": "ann", "webhook": "http://127.0.0.1:9/hook"}, {"open": True}]
    game_id = create_game(client, seed="tell ann", seats=seats)["id"]
    app = cardtrail()
    queued = app.scheduler.notify_queue
    before = queued.count
    expire()
    assert sweep() == 1
    bodies = [job.args[2] for job in queued.get_jobs()[before:]]
    assert any('"kind": "game_abandoned"' in body and game_id in body for body in bodies), bodies


def test_a_waiting_game_joined_before_the_sweep_and_a_playing_game_are_untouched(
    client, store, sweep
):
    joined = create_game(client, seed="joined in time", seats=OPEN)["id"]
    playing = create_game(client, seed="never waited", names=("ann", "bob"))["id"]
    expire()
    response = client.post(f"/games/{joined}/join", json={"name": "bob"})
    assert response.status_code == 201, response.get_json()
    before = {game_id: store.read(game_id) for game_id in (joined, playing)}
    assert sweep() == 0
    for game_id, events in before.items():
        assert store.read(game_id) == events
        assert "game_abandoned" not in types(store, game_id)
        assert view(client, game_id)["status"] == "playing"
    assert listed(client, "abandoned") == []
    handlers = cardtrail().handlers
    assert handlers.abandon(playing, time.time()) is None  # the handler refuses it too
    assert store.read(playing) == before[playing]


def test_a_young_waiting_game_keeps_waiting(client, store, sweep, monkeypatch):
    game_id = create_game(client, seed="young", seats=OPEN)["id"]
    monkeypatch.setenv(WAITING_EXPIRES_ENV, "1h")
    assert sweep() == 0
    assert types(store, game_id) == ["game_created"]
    assert listed(client, "waiting") == [game_id]


def test_a_join_that_took_the_last_seat_first_wins(client, store, sweep):
    """The last seat taken (the join's start not yet appended): nothing is abandoned, and
    the join finishes the start as usual."""
    game_id = create_game(client, seed="last seat", seats=OPEN)["id"]
    expire()
    tables = cardtrail().repository.tables
    _, digest = new_token()
    assert tables.take_seat(game_id, None, Seat(-1, "bob", None, digest)) == (1, 0)
    assert sweep() == 0
    assert types(store, game_id) == ["game_created"]
    assert tables.get(game_id).status == "waiting"


def test_a_sweep_cut_short_after_closing_the_table_is_finished_once(client, store, sweep):
    game_id = create_game(client, seed="cut short", seats=OPEN)["id"]
    tables = cardtrail().repository.tables
    assert tables.close(game_id)  # a crash right after: closed, nothing appended
    assert_problem(
        client.post(f"/games/{game_id}/join", json={"name": "bob"}), 409, "game_abandoned"
    )
    expire()
    assert sweep() == 1
    assert types(store, game_id) == ["game_created", "game_abandoned", "seed_revealed"]
    assert cardtrail().handlers.abandon(game_id, time.time()) == 3  # once only
    assert store.version(game_id) == 3
