"""Webhook delivery and turn reminders, run by the workers."""

import http.client
import socket
import time
from urllib.parse import urlsplit

from service.webhooks import check_url, message, queue_messages, sign
from workers.connection import game_service

TIMEOUT_S = 5


class DeliveryFailed(Exception):
    """The receiver did not answer 2xx; RQ retries the job with back-off."""


class PinnedHTTPSConnection(http.client.HTTPSConnection):
    """TLS to the address that was checked, with the certificate verified against the
    URL's host name: a DNS answer that changes after the check (rebinding) is never used."""

    def __init__(self, host: str, address: str, port: int | None, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def deliver(url: str, secret: str, body: str) -> int:
    """POST one signed message; raises (so RQ retries) unless the receiver answers 2xx."""
    addresses = check_url(url)  # again at send time: DNS may have changed since registration
    parts = urlsplit(url)
    data = body.encode()
    timestamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "cardtrail-webhook/1",
        "X-Cardtrail-Timestamp": timestamp,
        "X-Cardtrail-Signature": sign(secret, timestamp, data),
        "Host": parts.netloc,
    }
    # Connect to the address we checked, not whatever DNS answers next.
    if parts.scheme == "https":
        conn = PinnedHTTPSConnection(parts.hostname, addresses[0], parts.port, TIMEOUT_S)
    else:
        conn = http.client.HTTPConnection(addresses[0], parts.port or 80, timeout=TIMEOUT_S)
    try:
        path = parts.path or "/"
        conn.request("POST", path + (f"?{parts.query}" if parts.query else ""), data, headers)
        status = conn.getresponse().status
    finally:
        conn.close()
    if not 200 <= status < 300:
        raise DeliveryFailed(f"{url} answered {status}")
    return status


def remind(game_id: str, turn_version: int, seat: int) -> str:
    """At 80% of the move time: remind the seat, unless it has moved since."""
    service = game_service()
    turn = service.clock.turns(game_id).get(seat)
    if turn is None or turn["version"] != turn_version:
        return "moved"
    hooks = service.webhooks(service.load(game_id).meta)
    queue_messages(
        service.notify_queue,
        hooks,
        [message(game_id, seat, "reminder", turn_version, deadline=turn["deadline"])],
    )
    return "reminded"
