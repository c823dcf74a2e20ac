"""One delivery attempt is over within its 10 s deadline, whatever the receiver does.

Real sockets on localhost: receivers that trickle their answer one byte every 2 s (so a
timeout per socket operation would never fire), one that never answers the TLS
handshake, one streaming an endless body as fast as it is read; and real notify worker
processes, two of them, so a stuck attempt holds up only its own worker.
"""

import json
import socket
import ssl
import threading
import time

import pytest
from rq import Queue, Worker
from rq.registry import StartedJobRegistry

from service.scheduler import NOTIFY_QUEUE
from tests.service.live import (
    ALLOW_PRIVATE,
    Receiver,
    SlowReceiver,
    Workers,
    signature_valid,
    wait_until,
)
from tests.service.test_webhook_tls import HOST, certificates  # noqa: F401 (a fixture)
from workers.notify import ATTEMPT_S, DeliveryFailed, DeliveryTimedOut, deliver

EARLIEST, LATEST = 9.5, 12.0  # seconds: the deadline, give or take the machine
STATUS_LINE = b"HTTP/1.1 200 OK"
ENDLESS = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000000000\r\n\r\n"
BODY = json.dumps({"game_id": "g1", "seat": 0, "kind": "your_turn", "version": 3})


@pytest.fixture
def slow_receivers():
    made: list[SlowReceiver] = []

    def make(**kwargs) -> SlowReceiver:
        made.append(SlowReceiver(**kwargs))
        return made[-1]

    yield make
    for receiver in made:
        receiver.close()


@pytest.fixture
def workers(redis_url, redis_client):
    pool = Workers(redis_url, redis_client)
    yield pool
    pool.close()


def timed_failure(url: str) -> tuple[float, DeliveryFailed]:
    """Deliver BODY to `url`, which must fail at the deadline: how long it took, and how.
    (In a thread, so that an attempt that is never cut fails the test instead of hanging it.)"""
    outcome: dict = {}

    def attempt() -> None:
        started = time.monotonic()
        try:
            deliver(url, "secret", BODY)
        except Exception as error:
            outcome["error"] = error
        outcome["took"] = time.monotonic() - started

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(LATEST + 3)
    assert not thread.is_alive(), f"the attempt was still running after {LATEST + 3} s"
    assert isinstance(outcome.get("error"), DeliveryTimedOut), outcome
    return outcome["took"], outcome["error"]


def assert_cut_at_the_deadline(receiver: SlowReceiver, took: float, trickled: bool = True):
    assert ATTEMPT_S == 10
    assert EARLIEST <= took <= LATEST, took
    [connection] = receiver.connections  # one address, one connection, no second try
    # The socket is closed with the failure (the receiver sees it within its 2 s tick).
    wait_until(lambda: connection["closed"], 3, "the worker to close the connection")
    assert connection["closed"] - connection["accepted"] <= LATEST
    if trickled:  # a byte every 2 s all along: no single receive ever waited 5 s
        assert connection["sent"] >= 4


def test_a_status_line_trickled_a_byte_every_2_s_is_cut_at_the_deadline(
    slow_receivers, monkeypatch
):
    monkeypatch.setenv(ALLOW_PRIVATE, "1")
    receiver = slow_receivers(head=STATUS_LINE, drip=b" ", every=2.0)  # it never ends
    took, failure = timed_failure(receiver.url)
    assert "no complete answer within 10 s" in str(failure)
    assert_cut_at_the_deadline(receiver, took)
    request = receiver.connections[0]["request"]
    assert request.startswith(b"POST /hook?seat=ann HTTP/1.1\r\n")
    assert request.endswith(b"\r\n\r\n" + BODY.encode())  # the message went out whole


def test_an_endless_body_trickled_after_the_headers_is_cut_at_the_deadline(
    slow_receivers, monkeypatch
):
    """A refusal whose body never ends is cut at the deadline (its message is read for the
    log); a 200 with such a body is a yes at once: the body is not awaited."""
    monkeypatch.setenv(ALLOW_PRIVATE, "1")
    refusing = slow_receivers(
        head=ENDLESS.replace(b"200 OK", b"500 Internal Server Error"), drip=b"a", every=2.0
    )
    took, _ = timed_failure(refusing.url)
    assert_cut_at_the_deadline(refusing, took)
    accepting = slow_receivers(head=ENDLESS, drip=b"a", every=2.0)
    started = time.monotonic()
    assert deliver(accepting.url, "secret", BODY) == 200
    assert time.monotonic() - started < 3


def test_a_tls_handshake_never_answered_is_cut_at_the_deadline(slow_receivers, monkeypatch):
    monkeypatch.setenv(ALLOW_PRIVATE, "1")
    receiver = slow_receivers(silent=True)  # accepts, reads the client's hello, says nothing
    took, _ = timed_failure(f"https://127.0.0.1:{receiver.port}/hook")
    assert_cut_at_the_deadline(receiver, took, trickled=False)
    assert receiver.connections[0]["sent"] == 0


def test_a_status_line_trickled_over_tls_is_cut_at_the_deadline(
    certificates,  # noqa: F811 (the fixture imported above)
    slow_receivers,
    monkeypatch,
):
    """The handshake completes, then the answer trickles: each TLS read is bounded too."""
    monkeypatch.setenv(ALLOW_PRIVATE, "1")
    monkeypatch.setenv("SSL_CERT_FILE", str(certificates["ca"]))  # trust the test CA
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host != HOST:
            return real(host, port, *args, **kwargs)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(*certificates[HOST])
    receiver = slow_receivers(head=STATUS_LINE, drip=b" ", every=2.0, tls=tls)
    took, _ = timed_failure(f"https://{HOST}:{receiver.port}/hook")
    assert_cut_at_the_deadline(receiver, took)
    assert receiver.connections[0]["request"].endswith(BODY.encode())  # sent over TLS


def test_an_endless_body_streamed_fast_is_read_only_so_far(slow_receivers, monkeypatch):
    """The status is all that counts; at most 64 KiB of the body is read, then the
    connection is closed, however much more the receiver would send."""
    monkeypatch.setenv(ALLOW_PRIVATE, "1")
    receiver = slow_receivers(head=ENDLESS, drip=b"a" * 16384, every=0, chunk=16384)
    started = time.monotonic()
    assert deliver(receiver.url, "secret", BODY) == 200
    assert time.monotonic() - started < 3
    [connection] = receiver.connections
    wait_until(lambda: connection["closed"], 3, "the connection to be closed")

    refusing = slow_receivers(
        head=ENDLESS.replace(b"200 OK", b"500 Internal Server Error"),
        drip=b"out of luck ",
        every=0,
        chunk=16384,
    )
    started = time.monotonic()
    with pytest.raises(DeliveryFailed, match=r"answered 500: 'out of luck out of luck") as failed:
        deliver(refusing.url, "secret", BODY)
    assert time.monotonic() - started < 3
    assert not isinstance(failed.value, DeliveryTimedOut)
    assert len(str(failed.value)) < 400  # an excerpt of the body, not all 64 KiB of it


def hooked_game(client, url: str, seed: str) -> dict:
    """A one-deal block game in which ann (seat 0, with the webhook `url`) plays first:
    creating it sends her one your_turn message."""
    response = client.post(
        "/games",
        json={
            "preset": "block",
            "seed": seed,
            "options": {"game_end": "deals", "deals": 1, "first_dealer": 1},
            "seats": [{"name": "ann", "webhook": url}, {"name": "bob"}],
        },
    )
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_a_stuck_delivery_holds_up_only_its_own_worker(
    client, redis_client, workers, slow_receivers, monkeypatch
):
    """Two notify workers: while game A's receiver trickles, game B's message, enqueued
    after A's, is delivered by the other worker at once; A's attempt is cut at 10 s."""
    monkeypatch.setenv(ALLOW_PRIVATE, "1")
    notify = Queue(NOTIFY_QUEUE, connection=redis_client)
    for _ in range(2):
        workers.start(scheduler=False, queues=("notify",), **{ALLOW_PRIVATE: "1"})
    wait_until(lambda: len(Worker.all(queue=notify)) == 2, 20, "both notify workers")
    trickling = slow_receivers(head=STATUS_LINE, drip=b" ", every=2.0)
    fast = Receiver()
    try:
        hooked_game(client, trickling.url, seed="game A")
        wait_until(lambda: trickling.connections, 15, "A's delivery to begin")
        a_attempt = trickling.connections[0]
        wait_until(lambda: a_attempt["request"], 5, "A's request to be sent")

        created = hooked_game(client, fast.url, seed="game B")
        enqueued = time.monotonic()
        wait_until(lambda: fast.messages("your_turn"), 2, "B's delivery, within 2 s")
        delivered = time.monotonic() - enqueued
        assert delivered < 2, delivered
        assert a_attempt["closed"] is None  # A's attempt is still stuck...
        assert StartedJobRegistry(queue=notify).count == 1  # ...on the other worker

        [record] = fast.requests  # B's message, exactly as before: signed, whole, once
        assert signature_valid(created["seats"][0]["webhook_secret"], record)
        assert record["message"]["game_id"] == created["id"]
        assert record["message"]["version"] == created["version"]

        # The worker cuts A's attempt at its deadline, and RQ will retry it.
        wait_until(lambda: a_attempt["closed"], LATEST, "A's attempt to be cut")
        assert a_attempt["closed"] - a_attempt["accepted"] <= LATEST
        assert a_attempt["sent"] >= 4  # it trickled all along
    finally:
        fast.close()
