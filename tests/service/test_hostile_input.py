"""Hostile input at every edge of the HTTP API: each answer is 4xx problem+json naming what
was wrong, never a 500, and nothing is appended.

Header integers are ASCII digits only (`str.isdigit()` says yes to "²", `int()` reads
"٣" as 3 and refuses more than 4,300 digits); no string in a body may hold a lone
surrogate (valid JSON, but no UTF-8 can encode it); seat names are normalised and may
not hide, reorder or blank what other players read. The property-based tests at the end
throw arbitrary text, surrogates included, and arbitrary header values at every endpoint
that takes input.
"""

import http.client
import json
import socket
import threading
from urllib.parse import quote_from_bytes

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from werkzeug.serving import make_server

from service.store import EventStore
from tests.service.helpers import assert_problem, auth, create_game, tokens, view

SURROGATE = "\ud800"
DRAW = {"type": "draw", "source": "stock"}


def post_json(client, path, body, headers=None):
    """POST a body as JSON text exactly as a client may write it: json.dumps escapes a
    lone surrogate as \\ud800, which is valid JSON."""
    return client.post(
        path, data=json.dumps(body), content_type="application/json", headers=headers
    )


def assert_names(response, status, field):
    body = assert_problem(response, status)
    named = [error["field"] for error in body.get("errors", [])]
    assert field in named, (field, body)
    return body


@pytest.fixture
def game(client, redis_client):
    """(game id, tokens, seat to act, the stream's raw events before the test)."""
    created = create_game(client, seed="hostile input")
    game_id, toks = created["id"], tokens(created)
    store = EventStore(redis_client)
    return game_id, toks, view(client, game_id)["turn"], store.read_raw(game_id), store


@pytest.fixture
def open_game(client, redis_client):
    """A table with two open seats: one join never fills it, so nothing is dealt."""
    created = create_game(client, seats=[{"name": "ann"}, {"open": True}, {"open": True}])
    return created["id"], EventStore(redis_client)


# -- integers in headers ---------------------------------------------------------------------

BAD_INTEGERS = [
    "\u00b2",  # superscript two: isdigit() is True, int() fails
    "\u0663",  # Arabic-Indic three: int() reads it as 3
    "\uff11\uff12",  # fullwidth 12
    "1" * 5000,  # past int()'s 4,300-digit limit
    "1" * 19,  # past the 18-digit cap
    "+3",
    "-0",
    "0x3",
    "3.0",
    "1_0",
    "3 4",
    "abc",
]


@pytest.mark.parametrize("value", [*BAD_INTEGERS, '"\u00b2"', 'W/"\u0663"', "*", '"3", "4"', '"'])
def test_a_bad_if_match_is_400_naming_it(client, game, value):
    game_id, toks, turn, before, store = game
    response = client.post(
        f"/games/{game_id}/moves", json=DRAW, headers={**auth(toks[turn]), "If-Match": value}
    )
    body = assert_names(response, 400, "If-Match")
    assert body["code"] == "malformed_if_match"
    assert store.read_raw(game_id) == before


@pytest.mark.parametrize("value", ["3", '"3"', 'W/"3"', ' "3" '])
def test_an_if_match_of_ascii_digits_is_read(client, game, value):
    """Version 3 is the game's after the deal: the tag is read, in any of its forms."""
    game_id, toks, turn, _, store = game
    assert store.version(game_id) == 3
    response = client.post(
        f"/games/{game_id}/moves", json=DRAW, headers={**auth(toks[turn]), "If-Match": value}
    )
    assert response.status_code == 200, response.get_json()


def test_an_if_match_of_eighteen_digits_is_a_version_that_is_not_the_games(client, game):
    game_id, toks, turn, before, store = game
    response = client.post(
        f"/games/{game_id}/moves", json=DRAW, headers={**auth(toks[turn]), "If-Match": "9" * 18}
    )
    assert_problem(response, 412, "version_mismatch")
    assert store.read_raw(game_id) == before


@pytest.mark.parametrize("value", BAD_INTEGERS)
def test_a_bad_last_event_id_is_400_naming_it(client, game, value):
    response = client.get(
        f"/games/{game[0]}/stream", headers={"Last-Event-ID": value}, buffered=False
    )
    try:  # unbuffered: a stream opened by mistake must not hold the test for minutes
        body = assert_names(response, 400, "Last-Event-ID")
    finally:
        response.close()
    assert body["code"] == "malformed_last_event_id"


@pytest.mark.parametrize("value", ["", " ", "0", "3", "9" * 18])
def test_a_last_event_id_of_digits_or_none_opens_the_stream(client, game, value):
    response = client.get(
        f"/games/{game[0]}/stream", headers={"Last-Event-ID": value}, buffered=False
    )
    try:
        assert response.status_code == 200
        assert response.mimetype == "text/event-stream"
    finally:
        response.close()


@pytest.mark.parametrize(
    "query",
    [
        "wait=nan",
        "wait=inf",
        "wait=-inf",
        "wait=1e999",
        "wait=" + "9" * 5000,
        "after=\u00b2",
        "after=" + "1" * 5000,
        "after=1e3",
        "after=nan",
        "after=%00",
        "after=%ff",
        "wait=%ed%a0%80",
    ],
)
@pytest.mark.parametrize("endpoint", ["events", "stream"])
def test_bad_after_and_wait_are_422_naming_them(client, game, query, endpoint):
    response = client.get(f"/games/{game[0]}/{endpoint}?{query}")
    assert_names(response, 422, query.partition("=")[0])


# -- tokens in headers -----------------------------------------------------------------------


@pytest.mark.parametrize("key", [SURROGATE, "caf\u00e9", "key\x00", "key\x7f", "", "k" * 201])
def test_a_bad_idempotency_key_is_400_naming_it(client, game, key):
    game_id, toks, turn, before, store = game
    response = client.post(
        f"/games/{game_id}/moves", json=DRAW, headers={**auth(toks[turn]), "Idempotency-Key": key}
    )
    body = assert_names(response, 400, "Idempotency-Key")
    assert body["code"] == "malformed_idempotency_key"
    assert store.read_raw(game_id) == before


@pytest.mark.parametrize("token", [SURROGATE, "caf\u00e9", "\u202e"])
def test_a_token_that_is_not_ascii_is_401(client, game, token):
    assert_problem(client.get(f"/games/{game[0]}", headers=auth(token)), 401)


# -- lone surrogates in bodies ---------------------------------------------------------------

SEATS = [{"name": "ann"}, {"name": "bob"}]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"seats": SEATS, "seed": SURROGATE}, "seed"),
        ({"seats": SEATS, "seed": "fine" + SURROGATE}, "seed"),
        ({"seats": [{"name": "ann", "client_seed": SURROGATE}, SEATS[1]]}, "seats.0.client_seed"),
        ({"seats": [SEATS[0], {"name": "b\udfffb"}]}, "seats.1.name"),
        ({"seats": [SEATS[0], {"bot": SURROGATE}]}, "seats.1.bot"),
        (
            {"seats": [SEATS[0], {"name": "bob", "webhook": f"http://{SURROGATE}/"}]},
            "seats.1.webhook",
        ),
        ({"seats": SEATS, "preset": SURROGATE}, "preset"),
        ({"seats": SEATS, "game": SURROGATE}, "game"),
        ({"seats": SEATS, "options": {"scoring": SURROGATE}}, "options.scoring"),
        ({"seats": SEATS, "options": {SURROGATE: 1}}, "options.\\ud800"),
        ({"seats": SEATS, "deck": ["AS", SURROGATE]}, "deck.1"),
        ({"seats": SEATS, SURROGATE: 1}, "\\ud800"),
    ],
)
def test_a_lone_surrogate_anywhere_in_a_new_game_is_422_naming_it(
    client, redis_client, body, field
):
    games_before = client.get("/games").get_json()["total"]
    assert_names(post_json(client, "/games", body), 422, field)
    assert client.get("/games").get_json()["total"] == games_before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": SURROGATE}, "name"),
        ({"name": "zed", "client_seed": "\udc00"}, "client_seed"),
        ({"name": "zed", "webhook": f"https://{SURROGATE}.example/"}, "webhook"),
    ],
)
def test_a_lone_surrogate_when_joining_is_422_naming_it(client, open_game, body, field):
    game_id, store = open_game
    before = store.read_raw(game_id)
    assert_names(post_json(client, f"/games/{game_id}/join", body), 422, field)
    assert store.read_raw(game_id) == before


@pytest.mark.parametrize(
    ("command", "field"),
    [
        ({"type": SURROGATE}, "type"),
        ({"type": "draw", "source": SURROGATE}, "source"),
        ({"type": "discard", "card": SURROGATE}, "card"),
        ({"type": "meld", "cards": ["AH", SURROGATE]}, "cards.1"),
        ({"type": "draw", SURROGATE: "stock"}, "\\ud800"),
    ],
)
def test_a_lone_surrogate_in_a_move_is_422_naming_it(client, game, command, field):
    game_id, toks, turn, before, store = game
    assert_names(
        post_json(client, f"/games/{game_id}/moves", command, auth(toks[turn])), 422, field
    )
    assert store.read_raw(game_id) == before


@pytest.mark.parametrize(
    ("receipt", "field"),
    [
        (
            {"game": SURROGATE, "version": 1, "hash": "a", "key_id": "b", "signature": "c"},
            "receipts.0.game",
        ),
        (
            {"game": "g", "version": 1, "hash": "a", "key_id": "b", "signature": "c\udc80"},
            "receipts.0.signature",
        ),
        ({SURROGATE: 1}, "receipts.0.\\ud800"),
    ],
)
def test_a_lone_surrogate_in_receipts_to_audit_is_422_naming_it(client, game, receipt, field):
    """The record's own schemas too: every JSON body is read by one parser."""
    response = post_json(client, f"/games/{game[0]}/audit", {"receipts": [receipt]})
    assert_names(response, 422, field)


def test_a_number_too_long_for_python_is_malformed_json(client, game, open_game):
    """json.loads raises a plain ValueError past int()'s 4,300 digits, not a decoding error."""
    game_id, toks, turn, before, store = game
    long = "1" + "0" * 5000
    answers = [
        ("/games", '{"seats": [], "options": {"deals": ' + long + "}}", {}),
        (f"/games/{open_game[0]}/join", '{"name": "z", "seat": ' + long + "}", {}),
        (f"/games/{game_id}/moves", '{"type": "lay_off", "meld": ' + long + "}", auth(toks[turn])),
    ]
    for path, data, headers in answers:
        response = client.post(path, data=data, content_type="application/json", headers=headers)
        assert_problem(response, 400, "malformed_json")
    assert store.read_raw(game_id) == before


# -- names -----------------------------------------------------------------------------------

BAD_NAMES = [
    "\u202eann",  # RIGHT-TO-LEFT OVERRIDE: "ann" would end every sentence reversed
    "ann\u202d",  # LEFT-TO-RIGHT OVERRIDE
    "\u2067bob\u2069",  # RIGHT-TO-LEFT ISOLATE … POP DIRECTIONAL ISOLATE
    "ann\u200f",  # RIGHT-TO-LEFT MARK
    "a\u200bnn",  # ZERO WIDTH SPACE
    "a\u200dnn",  # ZERO WIDTH JOINER
    "\ufeffann",  # BYTE ORDER MARK
    "ann\U000e0041",  # TAG LATIN CAPITAL LETTER A
    "ann\x07",  # BEL (C0)
    "ann\x85",  # NEXT LINE (C1)
    "ann\x9b",  # CONTROL SEQUENCE INTRODUCER (C1)
    "ann\tbob",  # a tab is a control character too
    "ann\nbob",
    "ann\u2028bob",  # LINE SEPARATOR
    "ann\u2029",  # PARAGRAPH SEPARATOR
    "\ue000",  # private use
    "\U000f0000",  # supplementary private use
    "ann\u0378",  # unassigned
    "\U000effff",  # unassigned, a noncharacter plane's end
    "\u3164",  # HANGUL FILLER: a letter that shows nothing
    "ann\u115f",
    "\u2800",  # BRAILLE PATTERN BLANK
    "\u0301ann",  # a combining mark first would sit on the text before the name
    "   ",  # nothing once trimmed
    "\u00a0\u3000",
    "b" * 41,
]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_name_that_hides_reorders_or_blanks_text_is_422_when_creating(client, name):
    body = {"seats": [{"name": "ann"}, {"name": name}]}
    problem = assert_names(post_json(client, "/games", body), 422, "seats.1.name")
    assert client.get("/games").get_json()["total"] == 0, problem


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_name_that_hides_reorders_or_blanks_text_is_422_when_joining(client, open_game, name):
    game_id, store = open_game
    before = store.read_raw(game_id)
    assert_names(post_json(client, f"/games/{game_id}/join", {"name": name}), 422, "name")
    assert store.read_raw(game_id) == before


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("  ann  ", "ann"),  # trimmed
        ("ann\u00a0\u2003 lee", "ann lee"),  # each run of spaces inside is one space
        ("Zoe\u0308", "Zo\u00eb"),  # NFC: one name, one spelling
        ("\u212bngstr\u00f6m", "\u00c5ngstr\u00f6m"),  # ANGSTROM SIGN is Å under NFC
        ("\u674e\u96f7", "\u674e\u96f7"),
        ("\u05d3\u05e0\u05d4", "\u05d3\u05e0\u05d4"),  # Hebrew letters are fine; overrides are not
        ("\U0001f0a1 ace", "\U0001f0a1 ace"),
        ("x" * 38 + "  ", "x" * 38),
    ],
)
def test_names_are_normalised_when_creating_and_joining(client, open_game, given, kept):
    created = create_game(client, seats=[{"name": given}, {"name": "bob"}], names=())
    assert created["seats"][0]["name"] == kept
    assert view(client, created["id"])["seats"][0]["name"] == kept
    joined = post_json(client, f"/games/{open_game[0]}/join", {"name": given})
    assert joined.status_code == 201, joined.get_json()
    assert view(client, open_game[0])["seats"][joined.get_json()["seat"]]["name"] == kept


# -- over a real socket ----------------------------------------------------------------------


@pytest.fixture
def live_port(app):
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_port
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("header", ["If-Match", "Last-Event-ID", "Idempotency-Key"])
@pytest.mark.parametrize("raw", [b"\xb2", b"\xc2\xb2", b"\xd9\xa3", b"1" * 5000])
def test_raw_header_bytes_over_a_socket_are_400_naming_the_header(
    client, game, live_port, header, raw
):
    """On the wire a header is bytes, read as Latin-1: b"\\xb2" arrives as "²"."""
    game_id, toks, turn, before, store = game
    conn = http.client.HTTPConnection("127.0.0.1", live_port, timeout=10)
    try:
        if header == "Last-Event-ID":
            conn.putrequest("GET", f"/games/{game_id}/stream")
        else:
            conn.putrequest("POST", f"/games/{game_id}/moves")
            conn.putheader("Authorization", f"Bearer {toks[turn]}")
            conn.putheader("Content-Type", "application/json")
            conn.putheader("Content-Length", str(len(json.dumps(DRAW))))
        conn.putheader(header, raw)
        conn.endheaders(json.dumps(DRAW).encode() if header != "Last-Event-ID" else None)
        response = conn.getresponse()
        body = json.loads(response.read())
    finally:
        conn.close()
    assert response.status == 400, body
    assert response.getheader("Content-Type") == "application/problem+json"
    assert body["errors"] == [{"field": header, "reason": body["detail"]}]
    assert store.read_raw(game_id) == before


# -- arbitrary input, never a 500 ------------------------------------------------------------

ANY_TEXT = st.text(st.characters(), max_size=60)  # every code point, lone surrogates too
KNOWN_HOSTILE = st.sampled_from(
    ["\ud800", "\udfff", "a\ud83c", "ann\u202e", "\u3164", "\u00b2", "9" * 5000, "", " "]
)
HOSTILE_TEXT = st.one_of(ANY_TEXT, KNOWN_HOSTILE)
JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | HOSTILE_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(HOSTILE_TEXT, inner, max_size=4),
    max_leaves=12,
)
VALUE = st.one_of(KNOWN_HOSTILE, ANY_TEXT, JSON_VALUE)  # mostly text, often known-bad
# What an HTTP server can hand over (Latin-1), and what only a test client can (anything).
HEADER_VALUE = st.one_of(
    st.text(st.characters(max_codepoint=0xFF, exclude_characters="\r\n"), max_size=40),
    st.text(st.characters(exclude_characters="\r\n"), max_size=40),
    st.sampled_from(["\u00b2", "9" * 5000, '"\u0663"', "W/", '"', "\ud800"]),
)
HEADERS = st.dictionaries(
    st.sampled_from(["If-Match", "Idempotency-Key", "Last-Event-ID", "Authorization"]),
    HEADER_VALUE,
)


def no_long_wait(value: bytes) -> bytes:
    """A `wait` the server would honour becomes 0: a long-poll must not hold the test."""
    try:
        seconds = float(value.decode("utf-8", "replace"))
    except ValueError:
        return value
    return b"0" if 0 < seconds <= 30 else value


QUERY = st.dictionaries(
    st.sampled_from(["after", "wait", "page", "status", "step"]),
    st.binary(max_size=20).map(no_long_wait)
    | st.sampled_from([b"nan", b"inf", b"1e999", b"\xc2\xb2", b"9" * 5000]),
)
HYPOTHESIS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# Where one hostile value goes into an otherwise valid body, so that it reaches as deep as
# it can: the deal's hashing, the store, the engine.
CREATE_PLACES = [
    ("seed",),
    ("preset",),
    ("game",),
    ("deck",),
    ("options",),
    ("options", "scoring"),
    ("options", "move_time"),
    ("seats", 0, "name"),
    ("seats", 1, "name"),
    ("seats", 1, "client_seed"),
    ("seats", 1, "webhook"),
    ("seats", 1, "bot"),
    ("seats", 1, "open"),
]
JOIN_PLACES = [("name",), ("client_seed",), ("webhook",), ("seat",)]
MOVE_PLACES = [("type",), ("source",), ("card",), ("cards",), ("meld",)]


def placed(body, place, value):
    """`body` with `value` at `place` (a path of keys and indexes); as it is without one,
    so that the headers alone are hostile."""
    if place is None:
        return body
    body = json.loads(json.dumps(body))
    node = body
    for step in place[:-1]:
        node = node[step]
    node[place[-1]] = value
    return body


def no_dns(monkeypatch):
    """Webhook hosts are resolved only when they are numeric: arbitrary text must not
    become a DNS query."""
    real = socket.getaddrinfo

    def numeric_only(host, port, *args, **kwargs):
        kwargs["flags"] = kwargs.get("flags", 0) | socket.AI_NUMERICHOST
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", numeric_only)


def assert_answered(response):
    assert response.status_code < 500, (response.status_code, response.get_data(as_text=True))
    if response.status_code >= 400:
        assert response.mimetype == "application/problem+json"


@HYPOTHESIS
@given(place=st.none() | st.sampled_from(CREATE_PLACES), value=VALUE, headers=HEADERS)
def test_creating_with_arbitrary_input_never_fails_on_our_side(
    client, monkeypatch, place, value, headers
):
    no_dns(monkeypatch)
    body = placed({"seats": [{"name": "ann"}, {"name": "bob"}], "options": {}}, place, value)
    assert_answered(post_json(client, "/games", body, headers))


@HYPOTHESIS
@given(place=st.none() | st.sampled_from(JOIN_PLACES), value=VALUE, headers=HEADERS)
def test_joining_with_arbitrary_input_never_fails_on_our_side(
    client, monkeypatch, place, value, headers
):
    no_dns(monkeypatch)
    table = create_game(client, seats=[{"name": "ann"}, {"open": True}])  # a join deals
    body = placed({"name": "zed"}, place, value)
    assert_answered(post_json(client, f"/games/{table['id']}/join", body, headers))


@HYPOTHESIS
@given(place=st.none() | st.sampled_from(MOVE_PLACES), value=VALUE, headers=HEADERS)
def test_moving_with_arbitrary_input_never_fails_on_our_side(client, place, value, headers):
    created = create_game(client, seed="arbitrary moves")
    game_id, toks = created["id"], tokens(created)
    turn = view(client, game_id)["turn"]
    body = placed(DRAW, place, value)
    headers = {**auth(toks[turn]), **headers}
    assert_answered(post_json(client, f"/games/{game_id}/moves", body, headers))


@HYPOTHESIS
@given(
    query=st.just({}) | QUERY,
    headers=HEADERS,
    endpoint=st.sampled_from(["events", "stream", "", "hands/1/replay", "export", "audit"]),
)
def test_reading_with_arbitrary_queries_and_headers_never_fails_on_our_side(
    client, game, query, headers, endpoint
):
    query_string = "&".join(f"{key}={quote_from_bytes(value)}" for key, value in query.items())
    path = f"/games/{game[0]}/{endpoint}".rstrip("/")
    response = client.get(f"{path}?{query_string}", headers=headers, buffered=False)
    try:
        assert_answered(response)
    finally:
        response.close()
