"""Turn clocks with real workers: a seat that does not move is timed out, the log says so,
the audit passes; a deadline survives the death of the worker holding the scheduler;
reminders go out at 80% of the move time only to a seat that has not moved.
"""

import random
import time

import pytest
from rq import Queue
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from replays.audit import audit_export
from service.scheduler import DEADLINE_JOB, QUEUE, REMIND_AT
from tests.service.helpers import auth, view
from tests.service.live import (
    ALLOW_PRIVATE,
    SCHEDULER_LOCK,
    Receiver,
    Workers,
    play_own_turns,
    queue_idle,
    signature_valid,
    wait_until,
)
from workers.connection import cardtrail
from workers.reconcile import reconcile

CLOCK_EVENTS = ("turn_started", "turn_timed_out")


@pytest.fixture
def workers(redis_url, redis_client):
    pool = Workers(redis_url, redis_client)
    yield pool
    pool.close()


@pytest.fixture
def receiver():
    hook = Receiver()
    yield hook
    hook.close()


def create_clocked(client, clock, seats=None, first_dealer=1, seed="clock tests"):
    """A one-deal block game (first dealer 1: ann, seat 0, plays first) with a turn clock."""
    response = client.post(
        "/games",
        json={
            "preset": "block",
            "seed": seed,
            "options": {"game_end": "deals", "deals": 1, "first_dealer": first_dealer, **clock},
            "seats": seats or [{"name": "ann"}, {"bot": "greedy"}],
        },
    )
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def logged(store, game_id, kind, seat=None):
    """(index, event) of each logged event of this kind (and seat)."""
    return [
        (index, event)
        for index, event in enumerate(store.read(game_id))
        if event["type"] == kind and (seat is None or event.get("seat") == seat)
    ]


def assert_audits(client, game_id, token):
    """The server's audit and the offline audit of the export both pass."""
    audit = client.get(f"/games/{game_id}/audit", headers=auth(token)).get_json()
    assert audit["ok"], audit
    export = client.get(f"/games/{game_id}/export", headers=auth(token))
    assert export.status_code == 200
    lines = export.get_data(as_text=True).splitlines()
    verdict = audit_export(lines)
    assert verdict.ok, verdict.summary()
    return lines


def test_a_seat_that_does_not_move_is_played_by_the_timeout_bot(client, store, workers):
    workers.start()
    created = create_clocked(client, {"move_time": "2s"})
    game_id, token = created["id"], created["seats"][0]["token"]

    # ann's turn is on the clock: in the log, and as her seat's deadline in the view.
    [(_, started)] = logged(store, game_id, "turn_started", seat=0)
    assert started["deadline"] == pytest.approx(started["at"] + 2, abs=0.002)
    seats = view(client, game_id)["seats"]
    assert seats[0]["deadline"] == started["deadline"]
    assert "deadline" not in seats[1]

    # ann does not move: the deadline job times her out and the greedy bot plays her turn.
    wait_until(lambda: logged(store, game_id, "turn_timed_out"), 10, "the time-out")
    [(timed_index, timed_out)] = logged(store, game_id, "turn_timed_out")
    assert timed_out["seat"] == 0 and timed_out["action"] == "bot"
    assert timed_out["at"] >= started["deadline"]
    assert timed_index > logged(store, game_id, "turn_started", seat=0)[0][0]
    records = store.records(game_id)
    assert records[timed_index].command["seat"] == 0  # the bot's command, for ann's seat
    after = [e for e in store.read(game_id)[timed_index + 1 :] if e["type"] not in CLOCK_EVENTS]
    assert after[0]["type"] == "card_drawn" and after[0]["seat"] == 0

    # The rest of the game by hand, quickly; every turn ann is on shows her deadline.
    rng = random.Random(1)

    def deadline_shown(game_view):
        if game_view["turn"] == 0:
            newest = logged(store, game_id, "turn_started", seat=0)[-1][1]

            def shown():  # the clock is recorded just after the append: allow a moment
                current = view(client, game_id)
                if current["version"] != game_view["version"]:
                    return "moved on"  # e.g. the time-out bot was finishing ann's turn
                seats = current["seats"]
                return seats[0].get("deadline") == newest["deadline"] and "deadline" not in seats[1]

            wait_until(shown, 1, "ann's deadline in the game view")
        return False

    play_own_turns(client, game_id, token, 0, rng, until=deadline_shown)
    assert view(client, game_id)["status"] == "finished"
    assert all("deadline" not in seat for seat in view(client, game_id)["seats"])
    lines = assert_audits(client, game_id, token)
    assert any('"turn_timed_out"' in line for line in lines)  # the time-out is in the export


def test_with_on_timeout_forfeit_the_absent_player_loses(client, store, workers):
    workers.start()
    created = create_clocked(client, {"move_time": "2s", "on_timeout": "forfeit"})
    game_id, token = created["id"], created["seats"][0]["token"]
    wait_until(lambda: logged(store, game_id, "game_ended"), 10, "the forfeit")
    [(timed_index, timed_out)] = logged(store, game_id, "turn_timed_out")
    [(ended_index, ended)] = logged(store, game_id, "game_ended")
    assert timed_out["seat"] == 0 and timed_out["action"] == "forfeit"
    assert ended_index == timed_index + 1
    assert ended["forfeited"] == 0 and ended["winners"] == [1]
    assert store.records(game_id)[timed_index].command == {"type": "forfeit", "seat": 0}
    assert view(client, game_id)["status"] == "finished"
    assert_audits(client, game_id, token)


def test_the_deadline_fires_after_the_scheduler_worker_is_killed(
    client, store, redis_client, workers
):
    first = workers.start()
    created = create_clocked(client, {"move_time": "2s"})
    game_id = created["id"]
    [(_, started)] = logged(store, game_id, "turn_started", seat=0)
    lock_holder = redis_client.get(SCHEDULER_LOCK)
    assert lock_holder is not None
    workers.kill(first)  # the worker and its forked scheduler, before the deadline
    assert time.time() < started["deadline"]
    assert not logged(store, game_id, "turn_timed_out")
    workers.start(scheduler=False)  # its scheduler cannot take the dead one's lock for ~60 s
    wait_until(lambda: logged(store, game_id, "turn_timed_out"), 20, "the time-out")
    [(timed_index, timed_out)] = logged(store, game_id, "turn_timed_out")
    assert timed_out["seat"] == 0 and timed_out["at"] >= started["deadline"]
    # It was not a scheduler that fired it: the dead worker's lock is still there.
    assert redis_client.get(SCHEDULER_LOCK) == lock_holder
    wait_until(lambda: len(store.read(game_id)) > timed_index + 1, 5, "the bot to play ann's turn")
    assert store.read(game_id)[timed_index + 1]["type"] == "card_drawn"
    assert store.read(game_id)[timed_index + 1]["seat"] == 0


def test_a_bots_own_turn_is_never_timed_out(client, store, redis_url, monkeypatch, workers):
    """The clock is for absent humans. A bot whose turn outlives the move time (its worker
    was slow or died) is left to the bot reconciler, never timed out or forfeited."""
    created = create_clocked(
        client, {"move_time": "1s", "on_timeout": "forfeit"}, first_dealer=0
    )  # dealer 0: the bot (seat 1) plays first, and no worker is running yet
    game_id = created["id"]
    [(_, started)] = logged(store, game_id, "turn_started", seat=1)
    time.sleep(max(0.0, started["deadline"] + 1.2 - time.time()))  # overdue for the reconciler
    monkeypatch.setenv("REDIS_URL", redis_url)
    cardtrail.cache_clear()
    try:
        reconcile()  # what a worker's maintenance tick runs
    finally:
        cardtrail.cache_clear()
    queue = Queue(QUEUE, connection=store.redis)
    scheduled = ScheduledJobRegistry(queue=queue).get_job_ids()
    jobs = queue.get_jobs() + [Job.fetch(job_id, connection=store.redis) for job_id in scheduled]
    assert not [job for job in jobs if job.func_name == DEADLINE_JOB and job.args[2] == 1]
    workers.start(scheduler=False)
    wait_until(lambda: logged(store, game_id, "turn_started", seat=0), 10, "ann's turn")
    assert not logged(store, game_id, "turn_timed_out")
    assert not logged(store, game_id, "game_ended")


def test_reminder_at_80_percent_only_while_the_seat_has_not_moved(
    client, store, redis_client, workers, receiver, monkeypatch
):
    monkeypatch.setenv(ALLOW_PRIVATE, "1")
    workers.start(**{ALLOW_PRIVATE: "1"})
    client.post("/games", json={"seats": [{"name": "warm"}, {"name": "up"}]})  # first-call costs
    # RQ schedules in whole seconds; start the turn early in a second so that the reminder
    # (at 2.4 s) and the deadline (at 3 s) fall in different seconds of the scheduler.
    wait_until(lambda: 0.05 <= time.time() % 1 <= 0.3, 2, "an early point in a second", 0.005)
    seats = [{"name": "ann", "webhook": receiver.url}, {"bot": "greedy"}]
    created = create_clocked(client, {"move_time": "3s"}, seats=seats)
    game_id, token = created["id"], created["seats"][0]["token"]
    secret = created["seats"][0]["webhook_secret"]
    [(first_index, first)] = logged(store, game_id, "turn_started", seat=0)
    first_version = first_index + 1

    # ann does not move: a reminder at 80% of her time, then the time-out.
    wait_until(lambda: logged(store, game_id, "turn_timed_out"), 10, "the time-out")
    [(timed_index, timed_out)] = logged(store, game_id, "turn_timed_out")
    reminders = wait_until(lambda: receiver.messages("reminder"), 5, "the reminder")
    [reminder] = reminders
    assert reminder["version"] == first_version and reminder["seat"] == 0
    assert reminder["deadline"] == first["deadline"]
    assert first["at"] + REMIND_AT * 3 <= reminder["sent_at"] < timed_out["at"]
    assert all(signature_valid(secret, r) for r in receiver.requests)

    # Her next turn she plays at once: that turn's reminder is skipped.
    def started_after(seat, index):
        later = [(i, e) for i, e in logged(store, game_id, "turn_started", seat=seat) if i > index]
        return later[0] if later else None

    second_index, second = wait_until(lambda: started_after(0, timed_index), 10, "ann's turn")
    second_version = second_index + 1
    play_own_turns(
        client,
        game_id,
        token,
        0,
        random.Random(8),
        until=lambda _: started_after(1, second_index),  # the bot's turn: hers is over
    )
    assert time.time() < second["at"] + 1.0  # she finished her turn within its first second
    assert not [i for i, _ in logged(store, game_id, "turn_timed_out") if i > second_index]
    job_id = f"remind-{game_id}-{second_version}"
    assert Job.exists(job_id, connection=redis_client)  # scheduled, then run: a finished job
    wait_until(lambda: not Job.exists(job_id, connection=redis_client), 6, "the reminder job")
    wait_until(lambda: queue_idle(redis_client, scheduled_too=False), 5, "the queue to drain")
    reminded = [m["version"] for m in receiver.messages("reminder")]
    assert first_version in reminded and second_version not in reminded
    your_turns = {m["version"]: m for m in receiver.messages("your_turn")}
    assert your_turns[second_version]["deadline"] == second["deadline"]
