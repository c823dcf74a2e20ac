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
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from engine.events import GAME_ABANDONED, HAND_CLOSERS, TURN_STARTED
from service.scheduler import TurnScheduler
from service.tables import Webhook


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
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))  # in DNS's order
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


def turn_messages(
    game_id: str,
    version: int,
    events: list[dict[str, Any]],
    new_turns: list[int],
    hooked: Iterable[int],
) -> list[dict[str, Any]]:
    """What an append tells the seats with webhooks: whose turn began (with its deadline
    on a clocked table), and the end of a hand or the game, or that a game nobody filled
    in time was abandoned (to every hooked seat)."""
    hooked = set(hooked)
    messages = []
    deadlines = {e["seat"]: e["deadline"] for e in events if e["type"] == TURN_STARTED}
    for seat in new_turns:
        extra = {"deadline": deadlines[seat]} if seat in deadlines else {}
        messages.append(message(game_id, seat, "your_turn", version, **extra))
    for event in events:
        if event["type"] in HAND_CLOSERS or event["type"] == GAME_ABANDONED:
            result = {k: event[k] for k in ("winner", "winners", "scores", "hand") if k in event}
            for seat in sorted(hooked):
                messages.append(message(game_id, seat, event["type"], version, result=result))
    return [msg for msg in messages if msg["seat"] in hooked]


def send(
    scheduler: TurnScheduler, hooks: Mapping[int, Webhook], messages: list[dict[str, Any]]
) -> None:
    """One delivery job per message to a seat with a webhook."""
    for msg in messages:
        hook = hooks.get(msg["seat"])
        if hook:
            scheduler.deliver(hook.url, hook.secret, json.dumps(msg))
