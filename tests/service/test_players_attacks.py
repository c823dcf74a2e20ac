"""Attacks on the players features: accounts, the inbox, the player stream, invitations
(what a red-team pass found, kept as tests of what the service does instead).

Everything over the HTTP API with a real Redis (the suite's, or one of the test's own
where the test changes the server's settings), the streams over real sockets from a
real HTTP server in a thread. Nothing is mocked.
"""

import queue
import socket
import threading
import time
from dataclasses import replace
from http.client import HTTPConnection

import pytest
import redis

from service.api import create_app
from service.player_games import PENDING_INVITATIONS
from service.redis_server import EmbeddedRedis
from service.tables import TableStore
from tests.service.accounts import account, bare
from tests.service.helpers import assert_problem
from tests.service.live import SseClient

SHORT = {"game_end": "deals", "deals": 1}
BOB_FIRST = {**SHORT, "first_dealer": 0}  # the dealer's left, seat 1, plays first


def create(http, creator, seats, options=SHORT):
    headers = creator.headers if creator is not None else {}
    response = http.post("/games", json={"seats": seats, "options": options}, headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]


def join(http, player, game_id, **body):
    response = http.post(f"/games/{game_id}/join", json=body, headers=player.headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


# -- the player stream's Last-Event-ID ------------------------------------------------------


@pytest.mark.parametrize(
    "last_event_id",
    ["18446744073709551616-0", "0-18446744073709551616", "99999999999999999999-0"],
)
def test_a_notice_id_redis_cannot_read_is_a_400_not_a_stream_that_breaks(app, last_event_id):
    """`inputs.news_id` lets each part of a notice id have 20 digits, but a Redis stream id
    is two unsigned 64-bit integers (at most 18446744073709551615). A larger one passes
    the check, the stream answers 200, and its first XREAD raises an unhandled
    `ResponseError` ("Invalid stream ID"): the stream dies after its `retry:` line, the
    server logs an error, and an EventSource client reconnects with the same id forever."""
    ann = account(app, "ann")
    answer = bare(app).get(
        "/players/me/stream",
        headers={**ann.headers, "Last-Event-ID": last_event_id},
        buffered=False,
    )
    try:
        if answer.status_code == 200:
            frames = iter(answer.response)
            first = next(frames)
            try:
                second = next(frames)
            except Exception as error:  # what the server's WSGI loop gets
                second = f"{type(error).__module__}.{type(error).__name__}: {error}"
            pytest.fail(
                f"Last-Event-ID {last_event_id!r} answered 200; frames: {first!r}, then {second}"
            )
        assert_problem(answer, 400, "malformed_last_event_id")
    finally:
        answer.close()


# -- invitations ------------------------------------------------------------------------


def test_invitations_from_strangers_cannot_push_my_turn_out_of_my_inbox(app):
    """Inviting needs an account (an anonymous create may not keep a seat for anyone),
    at most PENDING_INVITATIONS games await one player, and the inbox ranks the live
    games apart from the rest: however many invitations come, bob's turn stays first."""
    ann, bob, eve = account(app, "ann"), account(app, "bob"), account(app, "eve")
    http = bare(app)
    real = create(http, ann, [{"me": True}, {"player": "bob"}], BOB_FIRST)
    join(http, bob, real)
    anonymous = http.post("/games", json={"seats": [{"name": "x"}, {"player": "bob"}]})
    assert_problem(anonymous, 401, "not_logged_in")
    assert anonymous.get_json()["errors"][0]["field"] == "seats.1.player"
    for _ in range(PENDING_INVITATIONS):
        create(http, eve, [{"me": True}, {"player": "bob"}])
    refused = http.post("/games", json={"seats": [{"me": True}, {"player": "bob"}]},
                        headers=eve.headers)  # fmt: skip
    assert_problem(refused, 422, "too_many_invitations")
    listed = http.get("/players/me/games?page_size=5", headers=bob.headers).get_json()
    first = listed["items"][0]
    assert (first["id"], first["your_turn"]) == (real, True), first
    assert all(item["invited"] for item in listed["items"][1:])
    assert listed["total"] == PENDING_INVITATIONS + 1
    # Taking one up frees a place for the next.
    join(http, bob, listed["items"][1]["id"])
    create(http, eve, [{"me": True}, {"player": "bob"}])


def test_an_invited_player_cannot_take_an_open_seat_and_leave_their_kept_one_empty(app):
    """A player holds at most one seat of a game, "reserved ones count" (seating.seats).
    The join script counts only taken seats: bob, invited to seat 1, may join the open
    seat 2 with `{"seat": 2}`. Seat 1 stays kept for him and nobody else may take it,
    and he may not take it either (already_seated): the table waits until it is
    abandoned, and ann's game never starts."""
    ann, bob = account(app, "ann"), account(app, "bob")
    http = bare(app)
    game_id = create(http, ann, [{"me": True}, {"player": "bob"}, {"open": True}])
    answer = http.post(f"/games/{game_id}/join", json={"seat": 2}, headers=bob.headers)
    if answer.status_code == 201:
        seats = http.get(f"/games/{game_id}").get_json()["seats"]
        pytest.fail(
            f"bob took open seat {answer.get_json()['seat']} while seat 1 is kept for him: "
            f"seats now {seats}; bob's own seat is refused to him: "
            f"{http.post(f'/games/{game_id}/join', json={}, headers=bob.headers).get_json()}"
        )
    assert answer.status_code in (409, 422), answer.get_json()


# -- the player stream's places -----------------------------------------------------------


def _dropped_stream(port: int, token: str) -> None:
    """Open the player stream, read the head and first frame, then leave (close)."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=10)
    request = f"GET /players/me/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
    conn.sendall(request.encode() + b"\r\n")
    received = b""
    while b"retry: 2000" not in received:
        more = conn.recv(4096)
        assert more, received
        received += more
    assert received.startswith(b"HTTP/1.1 200"), received
    conn.close()


def test_a_client_that_left_does_not_keep_its_place_in_the_player_stream(app, live_server):
    """A player may hold 4 streams; one whose client has gone keeps its place until the
    server next writes to it, up to 15 s later (KEEP_ALIVE_S; a connection that died
    silently, a phone changing networks, keeps it until the stream ends, 300 s). A
    client that reconnects a few times (EventSource does so by itself, 2 s after a
    drop) is then refused its own stream with 503 too_many_streams_for_player."""
    ann = account(app, "ann")
    inbox = app.extensions["cardtrail"].inbox
    for _ in range(inbox.per_player):
        _dropped_stream(live_server, ann.token)
    time.sleep(0.5)
    answer = bare(app).get("/players/me/stream", headers=ann.headers, buffered=False)
    try:
        assert answer.status_code == 200, (
            answer.status_code,
            answer.get_data(as_text=True),
            f"places still held for ann by clients that left: {inbox._total}",
        )
    finally:
        answer.close()


@pytest.fixture
def own_redis(tmp_path):
    """A redis-server of this test's own: the test changes its settings."""
    server = EmbeddedRedis(tmp_path / "redis").start()
    yield server
    server.stop()


@pytest.mark.off_protocol("the store refuses a connection on purpose: 503 store_unavailable")
def test_a_stream_that_fails_to_open_gives_its_place_back(own_redis):
    """`Inbox.follow` counts the player's place, then reads the newest notice id; when that
    read fails (here Redis is at `maxclients`, so the stream client cannot connect: 503
    store_unavailable), the place is never given back. Each such failure keeps one of the
    player's 4 places until the process restarts; after 4 the player has no stream."""
    app = create_app({"REDIS_URL": own_redis.url, "RATE_LIMITS_ENABLED": False})
    admin = redis.Redis.from_url(own_redis.url)
    try:
        ann = account(app, "ann")
        http = bare(app)
        inbox = app.extensions["cardtrail"].inbox
        connected = int(admin.info("clients")["connected_clients"])
        admin.config_set("maxclients", connected)  # no new connection: the stream client's
        try:
            failed = http.get("/players/me/stream", headers=ann.headers, buffered=False)
            failed.close()
        finally:
            admin.config_set("maxclients", 10000)
        assert failed.status_code == 503, failed.get_data(as_text=True)
        opened = []
        try:
            for _ in range(inbox.per_player):
                answer = http.get("/players/me/stream", headers=ann.headers, buffered=False)
                opened.append(answer)
                assert answer.status_code == 200, (
                    f"stream {len(opened)} of {inbox.per_player}: {answer.status_code} "
                    f"{answer.get_data(as_text=True)}; places counted: {inbox._total}"
                )
        finally:
            for answer in opened:
                answer.close()
    finally:
        admin.close()
        app.extensions["cardtrail"].close()


# -- an invitation told before its game exists -----------------------------------------------

INVITATIONS = PENDING_INVITATIONS - 1  # as many as may await bob at once


class InvitationReader:
    """The invitee's client: on each `invited` its stream tells, it reads that game at
    once over a kept connection, recording each answer's status (and its beginning)."""

    def __init__(self, port: int, player) -> None:
        self.port, self.player = port, player
        self.stream = SseClient(port, "/players/me/stream", player.headers)
        self.answers: list[tuple[int, str]] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        conn = HTTPConnection("127.0.0.1", self.port, timeout=30)
        while not self.done.is_set():
            try:
                told = self.stream.next_event(timeout=1)
            except queue.Empty:
                continue
            if told is None:
                break
            conn.request("GET", f"/games/{told['data']['game']}", headers=self.player.headers)
            answer = conn.getresponse()
            self.answers.append((answer.status, answer.read()[:120].decode()))
        conn.close()

    def close(self) -> None:
        self.done.set()
        self.stream.close()
        self.thread.join(5)


def test_reading_a_game_as_soon_as_i_am_invited_to_it_never_fails(app, live_server):
    """A create tells the invited players (`PlayerGames.seated`: an `invited` notice, which
    wakes their streams at once) before the game's first event is appended
    (`Handlers.open_table`). A client doing what the docs say, reading the game (or its
    inbox) when its stream says `invited`, may land in between: the table is there, its
    log is empty, the folded state is None, and GET /games/{id} (as GET /players/me/games)
    answers 500 (`AttributeError: 'NoneType' object has no attribute 'status'`, in
    `to_act` / `is_finished`). A race: about one read in a hundred lands in the window
    here. Now the notices go out once the first event is written, and a table whose log
    is empty (a create that died half way) is 404, never a 500."""
    ann, bob = account(app, "ann"), account(app, "bob")
    others = [account(app, name) for name in ("cid", "dee", "eve", "fay")]
    http = bare(app)
    # bob's seat first: telling the others widens the window a little, as in life
    seats = [{"me": True}, {"player": "bob"}, *({"player": o.name} for o in others)]
    reader = InvitationReader(live_server, bob)
    try:
        for _ in range(INVITATIONS):
            create(http, ann, seats)
        deadline = time.monotonic() + 20
        while len(reader.answers) < INVITATIONS and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        reader.close()
    failed = [answer for answer in reader.answers if answer[0] != 200]
    assert len(reader.answers) == INVITATIONS and not failed, (
        f"{len(reader.answers)} reads, {len(failed)} not 200, the first: {failed[:1]}"
    )


def test_a_table_without_its_first_event_is_not_found_not_a_500(app, client):
    """A create that died between writing its table and its first event leaves a table
    with an empty log: every read of it is 404, never a state of None."""
    made = client.post("/games", json={"seats": [{"name": "ann"}, {"bot": "random"}]})
    table = app.extensions["cardtrail"].repository.tables.get(made.get_json()["id"])
    orphan = replace(table, id="orphan-game-1")
    TableStore(app.extensions["cardtrail"].redis).add(orphan)
    for path in ("/games/orphan-game-1", "/games/orphan-game-1/events"):
        assert_problem(client.get(path), 404, "game_not_found")
