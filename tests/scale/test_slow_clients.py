"""Clients that try to hold the web process without finishing a request, against the very
gunicorn settings `cardtrail serve` and docker-compose run (cardtrail/web.py): slowloris
sockets are dropped at the header deadline and never stop /health/live from answering,
a body that stalls is cut at the read timeout, and one address cannot open more than
its share of connections."""

import select
import socket
import time
from collections.abc import Iterator

import pytest

from bench.followers import Server, raise_file_limit
from cardtrail.web import HEADER_TIMEOUT

READ_TIMEOUT = 2
PER_CLIENT = 250


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    raise_file_limit(2000)
    env = {
        "CARDTRAIL_READ_TIMEOUT": str(READ_TIMEOUT),
        "CARDTRAIL_MAX_CONNECTIONS_PER_CLIENT": str(PER_CLIENT),
    }
    with Server(str(tmp_path_factory.mktemp("slow")), env=env) as running:
        yield running


def live(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"GET /health/live HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        return sock.recv(200)


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server ends the connection (EOF or reset) within `within` seconds."""
    readable, _, _ = select.select([sock], [], [], within)
    if not readable:
        return False
    try:
        return sock.recv(1) == b""
    except OSError:
        return True


def test_two_hundred_slowloris_sockets_do_not_stop_health_and_are_dropped(server: Server):
    sockets = []
    for _ in range(200):
        sock = socket.create_connection(("127.0.0.1", server.port))
        sock.sendall(b"GET /health/live HTTP/1.1\r\nHo")
        sockets.append(sock)
    started = time.monotonic()
    try:
        while time.monotonic() - started < HEADER_TIMEOUT - 1:
            for sock in sockets:
                sock.sendall(b"s")  # a byte at a time, well inside any per-read timeout
            assert live(server.port).startswith(b"HTTP/1.1 200"), "health stopped answering"
            time.sleep(1)
        dropped = sum(closed_by_server(sock, HEADER_TIMEOUT + 5) for sock in sockets)
        assert dropped == len(sockets)
    finally:
        for sock in sockets:
            sock.close()
    assert live(server.port).startswith(b"HTTP/1.1 200")


def test_a_body_that_stalls_is_cut_at_the_read_timeout(server: Server):
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(
            b"POST /games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b'Content-Length: 500\r\n\r\n{"seats": '
        )
        readable, _, _ = select.select([sock], [], [], READ_TIMEOUT / 4)
        assert not readable, "cut before the timeout"
        readable, _, _ = select.select([sock], [], [], READ_TIMEOUT + 5)
        assert readable, "a stalled body held its connection"
        answer = sock.recv(400)
        assert answer == b"" or answer.startswith(b"HTTP/1.1 400"), answer


def test_one_address_holds_at_most_its_share_of_connections(server: Server):
    held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(PER_CLIENT)]
    try:
        time.sleep(0.5)  # the server has accepted each one
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as extra:
            answer = extra.recv(400)
        assert answer.startswith(b"HTTP/1.1 503")
        assert b"Retry-After: 1" in answer and b"too_many_connections" in answer
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.5)
    assert live(server.port).startswith(b"HTTP/1.1 200")
