"""Your-turn webhooks delivered by real workers to a real receiver on localhost, the SSRF
guard with the private-address setting off, and the Server-Sent Events stream read from a
real HTTP server.
"""

import json
import random
import threading

import pytest
from rq import Queue
from rq.registry import StartedJobRegistry

from service.scheduler import NOTIFY_QUEUE
from service.webhooks import WebhookRefused
from tests.service.helpers import (
    assert_problem,
    auth,
    cards_in,
    create_game,
    play_to_the_end,
    tokens,
    view,
)
from tests.service.live import (
    ALLOW_PRIVATE,
    Receiver,
    SseClient,
    Workers,
    play_own_turns,
    queue_idle,
    signature_valid,
    turns_begun,
    wait_until,
)
from workers.notify import deliver


@pytest.fixture
def workers(redis_url, redis_client):
    pool = Workers(redis_url, redis_client)
    yield pool
    pool.close()


@pytest.fixture
def receivers():
    made: list[Receiver] = []

    def make(**kwargs) -> Receiver:
        made.append(Receiver(**kwargs))
        return made[-1]

    yield make
    for receiver in made:
        receiver.close()


def create_hooked(client, webhook, first_dealer=1, seed="webhook tests"):
    """A one-deal block game, ann (seat 0, with `webhook`) against a greedy bot."""
    response = client.post(
        "/games",
        json={
            "preset": "block",
            "seed": seed,
            "options": {"game_end": "deals", "deals": 1, "first_dealer": first_dealer},
            "seats": [{"name": "ann", "webhook": webhook}, {"bot": "greedy"}],
        },
    )
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    assert created["seats"][0]["webhook_secret"]
    assert "webhook_secret" not in created["seats"][1]
    return created


# -- webhooks ---------------------------------------------------------------------------


def test_a_whole_game_sends_exactly_the_expected_signed_messages(
    client, store, redis_client, workers, receivers, monkeypatch
):
    monkeypatch.setenv(ALLOW_PRIVATE, "1")
    receiver = receivers()
    workers.start(**{ALLOW_PRIVATE: "1"})
    created = create_hooked(client, receiver.url, first_dealer=0)  # the bot plays first
    game_id, token = created["id"], created["seats"][0]["token"]
    secret = created["seats"][0]["webhook_secret"]
    assert play_own_turns(client, game_id, token, 0, random.Random(4)) > 0

    expected = turns_begun(store, game_id, 0)
    assert len(expected) > 1
    wait_until(
        lambda: (
            receiver.messages("game_ended") and len(receiver.messages("your_turn")) >= len(expected)
        ),
        15,
        "every notification",
    )
    wait_until(lambda: queue_idle(redis_client), 10, "the queue to drain")
    final = store.version(game_id)
    assert sorted(m["version"] for m in receiver.messages("your_turn")) == expected
    assert [m["version"] for m in receiver.messages("hand_ended")] == [final]
    [ended] = receiver.messages("game_ended")
    assert ended["version"] == final
    assert ended["result"]["winners"] == view(client, game_id)["result"]["winners"]
    assert len(receiver.requests) == len(expected) + 2  # nothing else, nothing twice
    for record in receiver.requests:
        assert record["status"] == 200 and record["path"] == "/hook?seat=ann"
        assert record["headers"]["Content-Type"] == "application/json"
        assert signature_valid(secret, record), record
        message = record["message"]
        assert message["game_id"] == game_id and message["seat"] == 0
        assert isinstance(message["sent_at"], float)
        assert "deadline" not in message  # no clock at this table
    # The secret and the URL are never shown again: not in views, events or the export.
    for path in ("", "/events", "/export"):
        shown = client.get(f"/games/{game_id}{path}", headers=auth(token)).get_data(as_text=True)
        assert secret not in shown and "/hook" not in shown


def test_a_receiver_that_fails_twice_gets_the_message_once_it_succeeds(
    client, redis_client, workers, receivers, monkeypatch
):
    monkeypatch.setenv(ALLOW_PRIVATE, "1")
    receiver = receivers(statuses=(500, 500))
    workers.start(**{ALLOW_PRIVATE: "1"})
    created = create_hooked(client, receiver.url)  # ann plays first: one your_turn message
    secret = created["seats"][0]["webhook_secret"]
    wait_until(lambda: receiver.messages("your_turn"), 15, "the third attempt")
    wait_until(lambda: queue_idle(redis_client), 10, "the queue to drain")
    assert [r["status"] for r in receiver.requests] == [500, 500, 200]
    assert len({r["body"] for r in receiver.requests}) == 1  # retries of the same message
    assert all(signature_valid(secret, r) for r in receiver.requests)
    [message] = receiver.messages()
    assert message["kind"] == "your_turn" and message["version"] == created["version"]


def test_a_hanging_receiver_never_holds_up_a_move_or_a_bot(
    client, workers, receivers, redis_client, monkeypatch
):
    """Deliveries wait on their own queue, served by their own worker: while the receiver
    hangs, ann's moves are answered and the bot's turn is played by the turns worker."""
    monkeypatch.setenv(ALLOW_PRIVATE, "1")
    release = threading.Event()
    receiver = receivers(hold=release)
    workers.start(queues=("turns",))
    workers.start(scheduler=False, queues=("notify",), **{ALLOW_PRIVATE: "1"})
    created = create_hooked(client, receiver.url)  # ann plays first
    game_id, token = created["id"], created["seats"][0]["token"]
    assert receiver.entered.wait(15), "the your_turn message never reached the receiver"
    try:
        for _ in range(2):  # ann draws, then discards, while the receiver hangs
            legal = view(client, game_id, token)["you"]["legal_moves"]
            discards = [m for m in legal if m["type"] == "discard"]
            answer = client.post(
                f"/games/{game_id}/moves", json=(discards or legal)[0], headers=auth(token)
            )
            assert answer.status_code == 200, answer.get_json()
            assert not release.is_set() and not receiver.requests[0]["answered"]
        # The bot's draw and discard, while the receiver still holds the first message.
        wait_until(lambda: view(client, game_id)["turn"] == 0, 15, "the bot to play its turn")
        assert not receiver.requests[0]["answered"]
        # ...and the delivery is still in flight (on one queue the bot would have waited
        # for it to time out first).
        assert StartedJobRegistry(queue=Queue(NOTIFY_QUEUE, connection=redis_client)).count == 1
        bot_moves = [
            e
            for e in client.get(f"/games/{game_id}/events").get_json()["events"]
            if e.get("seat") == 1 and e["type"] in ("card_drawn", "discarded")
        ]
        assert len(bot_moves) >= 2
    finally:
        release.set()
    wait_until(lambda: receiver.requests[0]["answered"], 5, "the receiver to answer")
    wait_until(lambda: queue_idle(redis_client), 15, "the deliveries to drain")
    kinds = [m["kind"] for m in receiver.messages()]
    assert kinds.count("your_turn") == 2  # the first, and ann's turn again after the bot


def test_webhooks_to_private_addresses_are_refused_when_not_allowed(client, receivers, monkeypatch):
    monkeypatch.delenv(ALLOW_PRIVATE, raising=False)
    receiver = receivers()
    refused = [
        receiver.url,
        f"http://localhost:{receiver.port}/",
        f"http://[::1]:{receiver.port}/",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://192.168.1.1:8080/",
        "http://0.0.0.0/",
        "ftp://x",
        "javascript:alert(1)",
        "http://user:secret@example.com/",
        "http://example.com:99999/",  # a bad port is a refusal, not a server error
    ]
    for url in refused:
        body = {"seats": [{"name": "ann"}, {"name": "bob", "webhook": url}]}
        answer = assert_problem(client.post("/games", json=body), 422, "webhook_refused")
        assert answer["errors"] == [{"field": "seats.1.webhook", "reason": answer["detail"]}]
    body = {"seats": [{"name": "ann", "webhook": receiver.url}, {"name": "bob"}]}
    answer = assert_problem(client.post("/games", json=body), 422, "webhook_refused")
    assert answer["errors"][0]["field"] == "seats.0.webhook"
    assert client.get("/games").get_json()["total"] == 0  # nothing was created

    open_game = create_game(client, seats=[{"name": "ann"}, {"open": True}])
    for url in (receiver.url, "http://169.254.169.254/", "http://10.0.0.1/", "ftp://x"):
        joined = client.post(f"/games/{open_game['id']}/join", json={"name": "bob", "webhook": url})
        answer = assert_problem(joined, 422, "webhook_refused")
        assert answer["errors"][0]["field"] == "webhook"
    assert view(client, open_game["id"])["seats"][1]["open"] is True  # still open

    # The worker checks again at send time: with the setting off, no request is made.
    with pytest.raises(WebhookRefused):
        deliver(receiver.url, "secret", json.dumps({"kind": "your_turn"}))
    assert receiver.requests == []

    # With the setting on, the same loopback receiver is accepted (and ftp still is not).
    monkeypatch.setenv(ALLOW_PRIVATE, "1")
    joined = client.post(
        f"/games/{open_game['id']}/join", json={"name": "bob", "webhook": receiver.url}
    )
    assert joined.status_code == 201 and joined.get_json()["webhook_secret"]
    body = {"seats": [{"name": "ann", "webhook": "ftp://x"}, {"name": "bob"}]}
    assert_problem(client.post("/games", json=body), 422, "webhook_refused")


# -- Server-Sent Events -------------------------------------------------------------------


def test_the_stream_delivers_the_opponents_move_and_resumes(client, live_server):
    created = create_game(
        client, seed="sse", preset="block", options={"game_end": "deals", "deals": 1}
    )  # first dealer 0: bob (seat 1) plays first
    game_id, toks = created["id"], tokens(created)
    path = f"/games/{game_id}/stream"
    ann = SseClient(live_server, path, auth(toks[0]))
    clients = [ann]
    try:
        assert ann.response.status == 200
        assert ann.response.getheader("Content-Type").startswith("text/event-stream")
        version = view(client, game_id)["version"]
        seen = [ann.next_event() for _ in range(version)]  # what happened so far
        assert [int(block["id"]) for block in seen] == list(range(1, version + 1))
        bobs_hand = set(view(client, game_id, toks[1])["you"]["hand"])
        assert not cards_in([block["data"] for block in seen]) & bobs_hand

        answer = client.post(
            f"/games/{game_id}/moves",
            json={"type": "draw", "source": "stock"},
            headers=auth(toks[1]),
        )
        assert answer.status_code == 200
        drawn = ann.next_event()
        assert drawn["event"] == "card_drawn" and int(drawn["id"]) == version + 1
        assert drawn["data"]["seat"] == 1 and drawn["data"]["version"] == version + 1
        assert cards_in(drawn["data"]) == set()  # bob's card stays hidden from ann

        # Reconnecting with Last-Event-ID resumes right after that event.
        resumed = SseClient(live_server, path, {**auth(toks[0]), "Last-Event-ID": str(version)})
        clients.append(resumed)
        again = resumed.next_event()
        assert int(again["id"]) == version + 1 and again["data"] == drawn["data"]

        # The streams follow the game to its end, and then close.
        play_to_the_end(client, game_id, toks, random.Random(2))
        final = view(client, game_id)["version"]
        for stream in clients:
            ids = []
            while (block := stream.next_event()) is not None:
                ids.append(int(block["id"]))
            assert ids == list(range(version + 2, final + 1))
    finally:
        for stream in clients:
            stream.close()
