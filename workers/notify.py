"""Webhook delivery and turn reminders, run by the workers.

One delivery attempt has a wall-clock deadline: ATTEMPT_S (10 s) from its start for
everything — resolving the URL's host again, connecting, the TLS handshake, sending the
request, and the whole answer (status line, headers and the first BODY_LIMIT bytes of
its body at most). A timeout that applied to each socket operation alone would let a
receiver that sends one byte every few seconds hold the attempt, and the worker, for as
long as it liked; so every send and every receive is given only the time left, and a
trickling receiver is cut at the deadline, not after it. Past the deadline the attempt
raises DeliveryTimedOut (a DeliveryFailed: RQ retries it with back-off, as it does a
non-2xx answer) and its socket is closed. A body is read to its end (only then is the
answer complete) but never beyond BODY_LIMIT, so a receiver streaming an endless body
does not hold the worker either; a refusal's first bytes go into the failure's message.
Name resolution itself cannot be interrupted (the resolver's own timeouts bound it),
but its time counts against the deadline.

Any number of notify workers may run side by side: every delivery is one RQ job, taken
by exactly one worker, and depends on nothing but its arguments (no state is shared
between attempts or workers), so a stuck attempt holds up only the worker running it.
Deliveries are therefore neither ordered nor exactly-once: two messages to one seat may
arrive in either order, and a retried message may arrive twice (receivers order and
deduplicate by the message's game, seat, kind and version). Reminders are jobs of the
turns queue, unique per game and turn; `remind` only enqueues deliveries.
"""

import http.client
import io
import socket
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from service.webhooks import WebhookRefused, address_refusal, check_url, message, send, sign
from workers.connection import cardtrail

ATTEMPT_S = 10.0  # one delivery attempt, all of it, whatever the receiver does
CONNECT_S = 5.0  # one address's TCP connect at most, so the next address still has time
BODY_LIMIT = 64 * 1024  # read no more of an answer's body than this
EXCERPT_CHARS = 200  # of a refusing answer's body, in the failure's message


class DeliveryFailed(Exception):
    """The receiver did not answer 2xx; RQ retries the job with back-off."""


class DeliveryTimedOut(DeliveryFailed):
    """No complete answer within the attempt's deadline; retried like a non-2xx."""


@dataclass(frozen=True)
class Deadline:
    """The moment (time.monotonic) one attempt must be over by."""

    at: float

    @classmethod
    def after(cls, seconds: float) -> "Deadline":
        return cls(time.monotonic() + seconds)

    def left(self) -> float:
        """The time left, as the next socket operation's timeout; TimeoutError once there
        is none (never 0, which would make the socket non-blocking)."""
        left = self.at - time.monotonic()
        if left <= 0:
            raise TimeoutError("the attempt's deadline has passed")
        return left

    def passed(self) -> bool:
        return time.monotonic() >= self.at


class _DeadlineReader(io.RawIOBase):
    """The socket's receiving side, each receive given only the time left."""

    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        super().__init__()
        self._sock = sock
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self._sock.settimeout(self._deadline.left())
        return self._sock.recv_into(buffer)


class DeadlineSocket:
    """The socket as http.client uses it (sendall, makefile, close), every send and
    receive bounded by the attempt's deadline.

    It closes nothing itself: http.client lets go of its socket as soon as it hands the
    connection to a response that reads to the connection's end, and that response still
    reads from it. The connection that opened the socket closes it (`hang_up`)."""

    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        self.sock = sock
        self.deadline = deadline

    def sendall(self, data: bytes) -> None:
        # Not socket.sendall with one timeout: an SSL socket's sendall gives each of its
        # sends the whole timeout again, and a receiver reading slowly could stretch it.
        view = memoryview(data)
        while view:
            self.sock.settimeout(self.deadline.left())
            view = view[self.sock.send(view) :]

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self.sock, self.deadline))

    def close(self) -> None:
        """http.client letting go of the socket; see the class."""


class PinnedHTTPConnection(http.client.HTTPConnection):
    """HTTP to the address that was checked (never to whatever DNS answers next), every
    socket operation bounded by the attempt's deadline."""

    def __init__(self, address: str, port: int, deadline: Deadline) -> None:
        super().__init__(address, port)
        self.address = address
        self.deadline = deadline
        self.pinned: socket.socket | None = None

    def connect(self) -> None:
        self.pinned = self.open()
        self.sock = DeadlineSocket(self.pinned, self.deadline)

    def open(self) -> socket.socket:
        """A TCP connection to the address, in at most CONNECT_S (or the time left).

        The address is judged again right here, by the very function that judged the URL
        (`service.webhooks.address_refusal`): whatever hands an address to a connection,
        none that a webhook may not reach is ever dialled."""
        refusal = address_refusal(self.address)
        if refusal:
            raise WebhookRefused(f"{self.address} is {refusal}; not dialled")
        timeout = min(CONNECT_S, self.deadline.left())
        return socket.create_connection((self.address, self.port), timeout)

    def hang_up(self) -> None:
        """Close the connection and its socket for good, whatever still holds them."""
        self.close()
        if self.pinned is not None:
            self.pinned.close()


class PinnedHTTPSConnection(PinnedHTTPConnection):
    """TLS to the address that was checked, with the certificate verified against the
    URL's host name: a DNS answer that changes after the check (rebinding) is never used."""

    def __init__(self, host: str, address: str, port: int, deadline: Deadline) -> None:
        super().__init__(address, port, deadline)
        self.host = host  # the name sent (SNI) and verified; the address is what is dialled
        self.tls = ssl.create_default_context()  # verifies the chain and the host name

    def open(self) -> socket.socket:
        sock = super().open()
        try:
            # The handshake is one operation: CPython bounds it as a whole by the timeout.
            sock.settimeout(self.deadline.left())
            return self.tls.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise


def _connection(
    scheme: str, host: str, address: str, port: int, deadline: Deadline
) -> PinnedHTTPConnection:
    if scheme == "https":
        return PinnedHTTPSConnection(host, address, port, deadline)
    return PinnedHTTPConnection(address, port, deadline)


def _headers(secret: str, data: bytes, netloc: str) -> dict[str, str]:
    timestamp = str(int(time.time()))
    return {
        "Content-Type": "application/json",
        "User-Agent": "cardtrail-webhook/1",
        "X-Cardtrail-Timestamp": timestamp,
        "X-Cardtrail-Signature": sign(secret, timestamp, data),
        "Host": netloc,
    }


def _read_body(response: http.client.HTTPResponse) -> bytes:
    """The answer's body, to its end or to BODY_LIMIT bytes, whichever comes first."""
    chunks: list[bytes] = []
    size = 0
    while size < BODY_LIMIT and (chunk := response.read(BODY_LIMIT - size)):
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _exchange(
    conn: PinnedHTTPConnection, path: str, data: bytes, headers: Mapping[str, str]
) -> tuple[int, bytes]:
    """POST on a connected connection: the answer's status and, for a refusal, (the start
    of) its body. A 2xx status line with its headers is the receiver's yes: its body is
    not awaited (a receiver that answers 200 without a length and keeps the connection
    open has still accepted the message)."""
    conn.request("POST", path, data, dict(headers))
    response = conn.getresponse()
    try:
        if 200 <= response.status < 300:
            return response.status, b""
        return response.status, _read_body(response)
    finally:
        response.close()


def _refused(url: str, status: int, answer: bytes) -> DeliveryFailed:
    excerpt = answer[:EXCERPT_CHARS].decode("utf-8", "replace").strip()
    return DeliveryFailed(f"{url} answered {status}" + (f": {excerpt!r}" if excerpt else ""))


def _post(
    url: str, addresses: list[str], data: bytes, headers: Mapping[str, str], deadline: Deadline
) -> int:
    """POST to the first checked address that can be reached (in DNS's order); the status
    of its answer, or DeliveryFailed unless it is 2xx."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    unreachable: list[str] = []
    for address in addresses:
        conn = _connection(parts.scheme, parts.hostname or "", address, port, deadline)
        try:
            try:
                conn.connect()
            except ssl.SSLError:
                raise  # the receiver answered with the wrong certificate: no other address
            except OSError as error:
                if isinstance(error, TimeoutError) and deadline.passed():
                    raise  # no time is left for another address
                unreachable.append(f"{address}: {error}")
                continue
            status, answer = _exchange(conn, path, data, headers)
        finally:
            conn.hang_up()
        if not 200 <= status < 300:
            raise _refused(url, status, answer)
        return status
    raise DeliveryFailed(f"{url}: no address could be reached ({'; '.join(unreachable)})")


def deliver(url: str, secret: str, body: str) -> int:
    """POST one signed message; raises (so RQ retries) unless the receiver answers 2xx
    within the attempt's deadline.

    The connection goes to an address that was checked just now (in DNS's order, the
    next one when one cannot be reached), never to whatever DNS answers next. The whole
    attempt, whatever the receiver does, is over within ATTEMPT_S."""
    deadline = Deadline.after(ATTEMPT_S)
    addresses = check_url(url)  # again at send time: DNS may have changed since registration
    data = body.encode()
    headers = _headers(secret, data, urlsplit(url).netloc)
    try:
        return _post(url, addresses, data, headers, deadline)
    except TimeoutError as error:
        raise DeliveryTimedOut(f"{url}: no complete answer within {ATTEMPT_S:g} s") from error


def remind(game_id: str, turn_version: int, seat: int) -> str:
    """At 80% of the move time: remind the seat, unless it has moved since.

    The reminder's job is unique per game and turn; the message it sends is one more
    delivery job, which any notify worker may take."""
    app = cardtrail()
    turn = app.scheduler.clocked_turns(game_id).get(seat)
    if turn is None or turn.version != turn_version:
        return "moved"
    hooks = app.repository.tables.get(game_id).webhooks()
    reminder = message(game_id, seat, "reminder", turn_version, deadline=turn.deadline)
    send(app.scheduler, hooks, [reminder])
    return "reminded"
