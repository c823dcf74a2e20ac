"""Webhook delivery and turn reminders, run by the workers."""

import http.client
import socket
import ssl
import time
from urllib.parse import urlsplit

from service.webhooks import check_url, message, send, sign
from workers.connection import cardtrail

TIMEOUT_S = 5


class DeliveryFailed(Exception):
    """The receiver did not answer 2xx; RQ retries the job with back-off."""


class PinnedHTTPSConnection(http.client.HTTPSConnection):
    """TLS to the address that was checked, with the certificate verified against the
    URL's host name: a DNS answer that changes after the check (rebinding) is never used."""

    def __init__(self, host: str, address: str, port: int, timeout: float) -> None:
        self.tls = ssl.create_default_context()  # verifies the chain and the host name
        super().__init__(host, port, timeout=timeout, context=self.tls)
        self.address = address

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self.tls.wrap_socket(sock, server_hostname=self.host)


def _connection(scheme: str, host: str, address: str, port: int) -> http.client.HTTPConnection:
    if scheme == "https":
        return PinnedHTTPSConnection(host, address, port, TIMEOUT_S)
    return http.client.HTTPConnection(address, port, timeout=TIMEOUT_S)


def deliver(url: str, secret: str, body: str) -> int:
    """POST one signed message; raises (so RQ retries) unless the receiver answers 2xx.

    The connection goes to an address that was checked just now (in DNS's order, the
    next one when one cannot be reached), never to whatever DNS answers next."""
    addresses = check_url(url)  # again at send time: DNS may have changed since registration
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    data = body.encode()
    timestamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "cardtrail-webhook/1",
        "X-Cardtrail-Timestamp": timestamp,
        "X-Cardtrail-Signature": sign(secret, timestamp, data),
        "Host": parts.netloc,
    }
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    unreachable: list[str] = []
    for address in addresses:
        conn = _connection(parts.scheme, parts.hostname or "", address, port)
        try:
            try:
                conn.connect()
            except ssl.SSLError:
                raise  # the receiver answered with the wrong certificate: no other address
            except OSError as error:
                unreachable.append(f"{address}: {error}")
                continue
            conn.request("POST", path, data, headers)
            status = conn.getresponse().status
        finally:
            conn.close()
        if not 200 <= status < 300:
            raise DeliveryFailed(f"{url} answered {status}")
        return status
    raise DeliveryFailed(f"{url}: no address could be reached ({'; '.join(unreachable)})")


def remind(game_id: str, turn_version: int, seat: int) -> str:
    """At 80% of the move time: remind the seat, unless it has moved since."""
    app = cardtrail()
    turn = app.scheduler.clocked_turns(game_id).get(seat)
    if turn is None or turn.version != turn_version:
        return "moved"
    hooks = app.repository.tables.get(game_id).webhooks()
    reminder = message(game_id, seat, "reminder", turn_version, deadline=turn.deadline)
    send(app.scheduler, hooks, [reminder])
    return "reminded"
