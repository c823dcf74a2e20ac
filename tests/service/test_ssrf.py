"""Webhooks cannot reach the server's own network, however the address is written.

An IPv6 address can carry an IPv4 one: mapped (::ffff:a.b.c.d), IPv4-compatible
(::a.b.c.d), NAT64 (64:ff9b::/96 reaches a.b.c.d through the translator), 6to4
(2002:AABB:CCDD::) and Teredo. Each is judged by the IPv4 address it reaches, at
registration (over HTTP, 422 naming the field) and at every delivery (DNS may answer
otherwise by then), by one function, `service.webhooks.address_refusal`. Multicast,
broadcast, unspecified and reserved addresses are refused even when private addresses
are allowed: they are never a receiver.

No test here sends a packet anywhere but this machine: literal addresses are judged
without being dialled, host names resolve through a resolver of the test's own, and
`socket.create_connection` is replaced by one that records the address and refuses.
"""

import json
import socket

import pytest

from service.webhooks import WebhookRefused, address_refusal
from tests.service.helpers import assert_problem, create_game
from tests.service.live import ALLOW_PRIVATE
from workers.notify import Deadline, DeliveryFailed, PinnedHTTPConnection, deliver

# Refused unless CARDTRAIL_WEBHOOK_ALLOW_PRIVATE=1: the server's own and its neighbours'.
PRIVATE = [
    "127.0.0.1",
    "10.0.0.1",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",  # cloud metadata
    "100.64.0.1",  # carrier-grade NAT
    "198.18.0.1",  # benchmarking
    "192.0.2.1",  # documentation
    "192.88.99.1",  # the deprecated 6to4 relay anycast
    "::1",
    "fe80::1",
    "fc00::1",
    "fd00:ec2::254",  # cloud metadata over IPv6
    "fec0::1",  # site-local, deprecated
    "2001:db8::1",  # documentation
    "3fff::1",  # documentation, 2024
    "::ffff:127.0.0.1",  # IPv4-mapped
    "::ffff:169.254.169.254",
    "::ffff:10.0.0.1",
    "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
    "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
    "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
    "64:ff9b:1::a00:1",  # local-use NAT64
    "2002:7f00:1::",  # 6to4 of 127.0.0.1
    "2002:a9fe:a9fe::1",  # 6to4 of 169.254.169.254
    "2002:c0a8:101::",  # 6to4 of 192.168.1.1
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
    "2001:0:a00:1::fefe:fefe",  # Teredo: server 10.0.0.1, client 1.1.1.1
]
# Refused whatever the setting: never a receiver.
NOWHERE = [
    "224.0.0.1",
    "239.255.255.250",
    "255.255.255.255",
    "240.0.0.1",
    "0.0.0.0",  # noqa: S104 - "this host", the address under test
    "0.1.2.3",
    "::",
    "ff02::1",
    "ff0e::1",
    "100::1",  # discard-only
    "4000::1",  # unassigned
    "::127.0.0.1",  # IPv4-compatible, deprecated: whatever it carries
    "::10.0.0.1",
    "::8.8.8.8",
    "::ffff:224.0.0.1",
    "64:ff9b::e000:1",  # NAT64 of 224.0.0.1
    "2002:e000:1::",  # 6to4 of 224.0.0.1
    "2002:ffff:ffff::",  # 6to4 of the broadcast address
]
# Globally routable unicast: accepted (never dialled here).
PUBLIC = [
    "1.1.1.1",
    "8.8.8.8",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:1.1.1.1",  # mapped: only another spelling of 1.1.1.1
    "64:ff9b::101:101",  # NAT64 of 1.1.1.1
    "2002:101:101::",  # 6to4 of 1.1.1.1
]


def url_of(address: str) -> str:
    host = f"[{address}]" if ":" in address else address
    return f"http://{host}:8080/hook"


@pytest.fixture
def private_refused(monkeypatch):
    monkeypatch.delenv(ALLOW_PRIVATE, raising=False)


@pytest.fixture
def private_allowed(monkeypatch):
    monkeypatch.setenv(ALLOW_PRIVATE, "1")


@pytest.fixture
def dialled(monkeypatch):
    """Every address a delivery dials; none is reached (nothing leaves this machine)."""
    tried: list[tuple[str, int]] = []

    def create_connection(address, *args, **kwargs):
        tried.append(address)
        raise OSError("not dialled in tests")

    monkeypatch.setattr(socket, "create_connection", create_connection)
    return tried


@pytest.fixture
def dns(monkeypatch):
    """A resolver of the test's own for names under .test; `dns[name] = address` sets
    what it answers from then on. Every other name is resolved as given only when numeric."""
    answers: dict[str, str] = {}
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host in answers:
            family = socket.AF_INET6 if ":" in answers[host] else socket.AF_INET
            return [(family, socket.SOCK_STREAM, 6, "", (answers[host], port))]
        kwargs["flags"] = kwargs.get("flags", 0) | socket.AI_NUMERICHOST
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return answers


def refused_at_registration(client, url: str) -> None:
    """Refused when a game is created and when a seat is joined, 422 naming the field,
    and nothing is created or seated."""
    body = {"seats": [{"name": "ann"}, {"name": "bob", "webhook": url}]}
    answer = assert_problem(client.post("/games", json=body), 422, "webhook_refused")
    assert answer["errors"] == [{"field": "seats.1.webhook", "reason": answer["detail"]}]
    table = create_game(client, seats=[{"name": "ann"}, {"open": True}, {"open": True}])
    joined = client.post(f"/games/{table['id']}/join", json={"name": "bob", "webhook": url})
    answer = assert_problem(joined, 422, "webhook_refused")
    assert answer["errors"] == [{"field": "webhook", "reason": answer["detail"]}]
    assert client.get(f"/games/{table['id']}").get_json()["seats"][1]["open"] is True


def accepted_at_registration(client, url: str) -> None:
    """Accepted on a table still waiting for players: nothing is sent to it."""
    seats = [{"name": "ann", "webhook": url}, {"open": True}, {"open": True}]
    created = client.post("/games", json={"seats": seats})
    assert created.status_code == 201, created.get_json()
    assert created.get_json()["seats"][0]["webhook_secret"]
    joined = client.post(
        f"/games/{created.get_json()['id']}/join", json={"name": "bob", "webhook": url}
    )
    assert joined.status_code == 201, joined.get_json()


# -- the judgement ----------------------------------------------------------------------------


@pytest.mark.parametrize("address", PRIVATE)
def test_private_addresses_are_refused_unless_allowed(address):
    assert "non-public" in address_refusal(address, private_ok=False)
    assert address_refusal(address, private_ok=True) is None


@pytest.mark.parametrize("address", NOWHERE)
def test_addresses_that_are_never_a_receiver_are_refused_even_when_private_ones_are_allowed(
    address,
):
    for private_ok in (False, True):
        assert "no webhook goes to" in address_refusal(address, private_ok=private_ok)


@pytest.mark.parametrize("address", PUBLIC)
def test_globally_routable_unicast_addresses_are_accepted(address):
    assert address_refusal(address, private_ok=False) is None


def test_a_refusal_says_which_ipv4_address_an_ipv6_one_carries():
    assert "which carries 169.254.169.254" in address_refusal("64:ff9b::a9fe:a9fe", False)
    assert "which carries 127.0.0.1" in address_refusal("2002:7f00:1::", False)


# -- at registration, over HTTP -----------------------------------------------------------------


@pytest.mark.parametrize("address", PRIVATE + NOWHERE)
def test_every_internal_form_is_refused_at_registration(client, private_refused, address):
    refused_at_registration(client, url_of(address))


@pytest.mark.parametrize("address", NOWHERE)
def test_never_a_receiver_is_refused_at_registration_when_private_is_allowed(
    client, private_allowed, address
):
    refused_at_registration(client, url_of(address))


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_are_accepted_at_registration(client, private_refused, address):
    accepted_at_registration(client, url_of(address))


@pytest.mark.parametrize("address", ["127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe"])
def test_private_addresses_are_accepted_at_registration_when_allowed(
    client, private_allowed, address
):
    accepted_at_registration(client, url_of(address))


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.test\n/x",
        "http://hooks.test/\x00",
        "http://hooks.test/a b",
        "http://b\u00fccher.test/",
        "http://hooks.test:0/",
    ],
)
def test_urls_that_could_not_be_sent_are_refused_at_registration(client, dns, url):
    dns["hooks.test"] = dns["b\u00fccher.test"] = "1.1.1.1"
    refused_at_registration(client, url)


def test_a_name_that_resolves_to_an_internal_address_is_refused_at_registration(
    client, private_refused, dns
):
    for address in ("64:ff9b::7f00:1", "::ffff:169.254.169.254", "2002:a00:1::", "224.0.0.1"):
        dns["hooks.test"] = address
        refused_at_registration(client, "https://hooks.test/hook")


# -- at delivery ----------------------------------------------------------------------------------


@pytest.mark.parametrize("address", PRIVATE + NOWHERE)
def test_a_name_that_resolves_to_an_internal_form_is_refused_at_delivery(
    private_refused, dns, dialled, address
):
    dns["hooks.test"] = address
    with pytest.raises(WebhookRefused, match="hooks.test resolves to"):
        deliver("http://hooks.test/hook", "secret", "{}")
    assert dialled == []


@pytest.mark.parametrize("address", NOWHERE)
def test_never_a_receiver_is_refused_at_delivery_when_private_is_allowed(
    private_allowed, dns, dialled, address
):
    dns["hooks.test"] = address
    with pytest.raises(WebhookRefused):
        deliver("http://hooks.test/hook", "secret", "{}")
    assert dialled == []


@pytest.mark.parametrize("address", PUBLIC)
def test_a_public_address_is_dialled_at_delivery(private_refused, dns, dialled, address):
    dns["hooks.test"] = address
    with pytest.raises(DeliveryFailed, match="no address could be reached"):
        deliver("http://hooks.test/hook", "secret", "{}")
    assert dialled == [(address, 80)]


@pytest.mark.parametrize("address", ["169.254.169.254", "64:ff9b::7f00:1", "ff02::1"])
def test_a_connection_never_dials_a_refused_address_whoever_hands_it_over(
    private_refused, dialled, address
):
    connection = PinnedHTTPConnection(address, 80, Deadline.after(5))
    with pytest.raises(WebhookRefused, match="not dialled"):
        connection.connect()
    assert dialled == []


def test_the_queued_delivery_of_a_registered_webhook_is_refused_once_dns_rebinds(
    app, client, redis_client, private_refused, dns, dialled
):
    """The job a move queues, taken from the real notify queue and performed as a worker
    performs it: the name was public when the seat registered it, internal by delivery."""
    dns["hooks.test"] = "1.1.1.1"
    url = "http://hooks.test/hook"
    created = create_game(
        client, seats=[{"name": "ann", "webhook": url}, {"name": "bob", "webhook": url}]
    )
    jobs = app.extensions["cardtrail"].scheduler.notify_queue.get_jobs()
    assert jobs, "the first turn's message was queued"
    assert all(job.args[0] == url for job in jobs)
    assert json.loads(jobs[0].args[2])["game_id"] == created["id"]
    dns["hooks.test"] = "64:ff9b::a9fe:a9fe"  # NAT64 of the metadata address
    for job in jobs:
        with pytest.raises(WebhookRefused, match="which carries 169.254.169.254"):
            job.perform()
    assert dialled == []
