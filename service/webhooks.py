"""Your-turn notifications: signed webhook POSTs, queued so they never slow a move down.

A seat may register a webhook URL; it gets a secret (returned once) and every
message carries `X-Cardtrail-Signature: sha256=HMAC(secret, "<timestamp>.<body>")`
and `X-Cardtrail-Timestamp`, so the receiver can verify it and refuse replays.
Only http(s) URLs, and never loopback, private, link-local or otherwise
non-public addresses unless the server allows them (CARDTRAIL_WEBHOOK_ALLOW_PRIVATE=1):
the server must not be a way to reach its own network. An address is judged by what it
reaches, not how it is written: an IPv6 address that carries an IPv4 one (mapped, NAT64,
6to4, Teredo) is judged by that IPv4 address too. Multicast, broadcast, unspecified and
reserved addresses are never a receiver and are refused even when private ones are allowed.
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


IP = ipaddress.IPv4Address | ipaddress.IPv6Address

# Never a receiver, whatever the setting: multicast and broadcast reach many hosts or
# none, "this network" and the unspecified address mean this very host, and reserved
# space (IPv4 240/4, IPv6 outside the assigned blocks, the discard prefix) is routed
# nowhere. A private deployment has no use for them; an attacker might.
_NOWHERE_V4 = (ipaddress.IPv4Network("0.0.0.0/8"),)
_NOWHERE_V6 = (ipaddress.IPv6Network("100::/64"),)  # discard-only
# Not public though the `ipaddress` of some Pythons says so: local-use NAT64 (RFC 8215),
# site-local (deprecated, RFC 3879), the 2024 documentation block (RFC 9637), the
# deprecated 6to4 relay anycast (RFC 7526), the SRv6 SID block (RFC 9602).
_NOT_PUBLIC = (
    ipaddress.IPv6Network("64:ff9b:1::/48"),
    ipaddress.IPv6Network("fec0::/10"),
    ipaddress.IPv6Network("3fff::/20"),
    ipaddress.IPv6Network("5f00::/16"),
    ipaddress.IPv4Network("192.88.99.0/24"),
)
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # the well-known prefix, RFC 6052
_COMPATIBLE = ipaddress.IPv6Network("::/96")  # IPv4-compatible, deprecated (RFC 4291)
_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address stands for, or carries traffic to: mapped,
    NAT64 (the well-known prefix puts it in the last 32 bits), 6to4, and Teredo's server
    and client."""
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if ip in _NAT64:
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip.teredo is not None:
        return list(ip.teredo)
    return []


def _reach(ip: IP) -> str:
    """Where one address leads: "public"; "private" (refused unless private addresses
    are allowed); or "nowhere" (always refused). By what it reaches, not how it is written:
    a mapped or NAT64 address is its IPv4 address; 6to4 and Teredo are no more public
    than the IPv4 addresses they carry."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None or ip in _NAT64:  # only another spelling of it
            return _reach(_embedded_ipv4(ip)[0])
        if ip in _COMPATIBLE and not (ip.is_loopback or ip.is_unspecified):
            return "nowhere"
        embedded = [_reach(v4) for v4 in _embedded_ipv4(ip)]
        own = _reach_v6(ip)
        return max([own, *embedded], key=("public", "private", "nowhere").index)
    if ip.is_multicast or ip.is_reserved or any(ip in net for net in _NOWHERE_V4):
        return "nowhere"
    return "public" if ip.is_global and not any(ip in n for n in _NOT_PUBLIC) else "private"


def _reach_v6(ip: ipaddress.IPv6Address) -> str:
    """An IPv6 address's own reach: public only in the global unicast block 2000::/3."""
    if ip.is_multicast or ip.is_unspecified or any(ip in net for net in _NOWHERE_V6):
        return "nowhere"
    if ip.is_loopback or ip.is_private or ip.is_link_local or ip.is_site_local:
        return "private"
    if any(ip in net for net in _NOT_PUBLIC):
        return "private"
    if ip.is_reserved or ip not in _GLOBAL_UNICAST:  # unassigned space: routed nowhere
        return "nowhere"
    return "public" if ip.is_global else "private"


def address_refusal(address: str, private_ok: bool | None = None) -> str | None:
    """Why a webhook may not be sent to this address (one of getaddrinfo's answers), or
    None when it may. Registration and every delivery attempt judge by this alone, so
    what was refused when a URL was registered is refused when DNS says it later."""
    private_ok = allow_private() if private_ok is None else private_ok
    ip = ipaddress.ip_address(address.split("%")[0])  # without an IPv6 zone
    reach = _reach(ip)
    shown = str(ip)
    if isinstance(ip, ipaddress.IPv6Address) and (carried := _embedded_ipv4(ip)):
        shown += ", which carries " + " and ".join(map(str, carried))
    if reach == "nowhere":
        return f"an address no webhook goes to ({shown}: multicast, reserved or unspecified)"
    if reach == "private" and not private_ok:
        return f"a non-public address ({shown})"
    return None


def check_url(url: str, private_ok: bool | None = None) -> list[str]:
    """The addresses a webhook may be sent to, or WebhookRefused saying why not."""
    if not url.isascii() or not url.isprintable() or " " in url:
        raise WebhookRefused(
            "a webhook URL is printable ASCII without spaces (an international domain"
            " name in its xn-- form, other characters percent-encoded)"
        )
    try:  # a malformed port or IPv6 literal is a refusal, not a server error
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise WebhookRefused(f"not a valid URL ({error})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or port == 0:
        raise WebhookRefused("a webhook must be an http(s) URL with a host")
    if parts.username or parts.password:
        raise WebhookRefused("a webhook URL may not carry credentials")
    try:
        infos = socket.getaddrinfo(parts.hostname, port or 443, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError):
        raise WebhookRefused(f"cannot resolve {parts.hostname!r}") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))  # in DNS's order
    for address in addresses:
        refusal = address_refusal(address, private_ok)
        if refusal:
            raise WebhookRefused(f"{parts.hostname} resolves to {refusal}; not allowed")
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
