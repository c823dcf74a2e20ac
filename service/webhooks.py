"""Your-turn notifications: signed webhook POSTs, queued so they never slow a move down.

A seat may register a webhook URL; it gets a secret (returned once) and every
message carries `X-Cardtrail-Signature: sha256=HMAC(secret, "<timestamp>.<body>")`
and `X-Cardtrail-Timestamp`, so the receiver can verify it and refuse replays.
Only http(s) URLs, and never loopback, private, link-local or otherwise
non-public addresses unless the server allows them (CARDTRAIL_WEBHOOK_ALLOW_PRIVATE=1):
the server must not be a way to reach its own network.
"""

import hashlib
import hmac
import ipaddress
import json
import os
import socket
import time
from typing import Any
from urllib.parse import urlsplit

from rq import Queue, Retry

DELIVER_JOB = "workers.notify.deliver"
RETRY = Retry(max=5, interval=[1, 2, 4, 8, 16])


class WebhookRefused(ValueError):
    """A URL the server will not call."""


def allow_private() -> bool:
    return os.environ.get("CARDTRAIL_WEBHOOK_ALLOW_PRIVATE") == "1"


def check_url(url: str, private_ok: bool | None = None) -> list[str]:
    """The addresses a webhook may be sent to, or WebhookRefused saying why not."""
    private_ok = allow_private() if private_ok is None else private_ok
    try:  # a malformed port or IPv6 literal is a refusal, not a server error
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise WebhookRefused(f"not a valid URL ({error})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookRefused("a webhook must be an http(s) URL with a host")
    if parts.username or parts.password:
        raise WebhookRefused("a webhook URL may not carry credentials")
    try:
        infos = socket.getaddrinfo(parts.hostname, port or 443, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError):
        raise WebhookRefused(f"cannot resolve {parts.hostname!r}") from None
    addresses = list(dict.fromkeys(info[4][0] for info in infos))  # in DNS's order
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        if not private_ok and not ip.is_global:
            raise WebhookRefused(
                f"{parts.hostname} resolves to a non-public address ({ip}); not allowed"
            )
    return addresses


def sign(secret: str, timestamp: str, body: bytes) -> str:
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def message(game_id: str, seat: int, kind: str, version: int, **extra: Any) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "seat": seat,
        "kind": kind,
        "version": version,
        "sent_at": round(time.time(), 3),
        **extra,
    }


def queue_messages(
    queue: Queue, hooks: dict[int, dict[str, str]], messages: list[dict[str, Any]]
) -> None:
    """One delivery job per message, each retried with back-off by RQ."""
    for msg in messages:
        hook = hooks.get(msg["seat"])
        if hook:
            queue.enqueue(
                DELIVER_JOB,
                hook["url"],
                hook["secret"],
                json.dumps(msg),
                retry=RETRY,
                result_ttl=600,
                failure_ttl=86400,
            )
