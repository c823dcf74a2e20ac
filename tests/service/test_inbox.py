"""A player's inbox and their one stream of news, over the HTTP API with the real Redis
(the streams over a real socket, from a real HTTP server in a thread)."""

import time

from tests.service.accounts import CSRF, account, bare, log_in
from tests.service.helpers import assert_problem, auth, cards_in
from tests.service.live import SseClient

SHORT = {"game_end": "deals", "deals": 1}
ANN_FIRST = {**SHORT, "first_dealer": 1}  # the dealer's left (seat 0) plays first
BOB_FIRST = {**SHORT, "first_dealer": 0}


def create(http, creator, seats, options):
    response = http.post("/games", json={"seats": seats, "options": options},
                         headers=creator.headers)  # fmt: skip
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]


def join(http, player, game_id):
    response = http.post(f"/games/{game_id}/join", json={}, headers=player.headers)
    assert response.status_code == 201, response.get_json()


def inbox(http, player, query=""):
    response = http.get(f"/players/me/games{query}", headers=player.headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def play_a_turn(http, player, game_id):
    """Draw from the stock and discard the first card allowed."""
    for _ in range(2):
        mine = http.get(f"/games/{game_id}", headers=player.headers).get_json()
        legal = mine["you"]["legal_moves"]
        discards = [m for m in legal if m["type"] == "discard"]
        command = discards[0] if discards else next(m for m in legal if m["type"] == "draw")
        answer = http.post(f"/games/{game_id}/moves", json=command, headers=player.headers)
        assert answer.status_code == 200, answer.get_json()


def test_the_inbox_puts_my_turns_first_the_soonest_deadline_first(app):
    ann, bob = account(app, "ann"), account(app, "bob")
    http = bare(app)
    later = create(http, ann, [{"me": True}, {"player": "bob"}], {**ANN_FIRST, "move_time": "3d"})
    sooner = create(http, ann, [{"me": True}, {"player": "bob"}], {**ANN_FIRST, "move_time": "2h"})
    theirs = create(http, ann, [{"me": True}, {"player": "bob"}], BOB_FIRST)
    unclocked = create(http, ann, [{"me": True}, {"player": "bob"}], ANN_FIRST)
    over = create(http, ann, [{"me": True}, {"player": "bob"}], ANN_FIRST)
    for game_id in (later, sooner, theirs, unclocked, over):
        join(http, bob, game_id)
    invited = create(http, bob, [{"me": True}, {"player": "ann"}], SHORT)
    resigned = http.post(f"/games/{over}/moves", json={"type": "forfeit"}, headers=ann.headers)
    assert resigned.status_code == 200, resigned.get_json()

    listed = inbox(http, ann)
    assert [g["id"] for g in listed["items"]] == [sooner, later, unclocked, invited, theirs, over]
    assert listed["total"] == 6
    first, second = listed["items"][:2]
    assert first["your_turn"] and first["deadline"] < second["deadline"]
    assert first["your_seats"] == [0] and first["to_act"] == [0]
    assert first["seats"][1]["name"] == "bob" and first["play"] == f"/play/{sooner}"
    assert first["last"]["description"] and first["last"]["type"] != "turn_started"
    waiting = listed["items"][3]
    assert waiting["invited"] and waiting["your_seats"] == [] and waiting["status"] == "waiting"
    mine_not = listed["items"][4]
    assert not mine_not["your_turn"] and mine_not["to_act"] == [1] and mine_not["deadline"] is None
    ended = listed["items"][5]
    assert ended["status"] == "finished" and ended["replay"] == f"/games/{over}/hands"
    assert ended["result"]["winners"] == [1] and not ended["your_turn"]
    # Bob's inbox: his turn in `theirs`, then the games waiting on ann, his invitation to ann.
    assert inbox(http, bob)["items"][0]["id"] == theirs
    # Filtered and paged.
    assert [g["id"] for g in inbox(http, ann, "?status=finished")["items"]] == [over]
    paged = inbox(http, ann, "?page=2&page_size=4")
    assert [g["id"] for g in paged["items"]] == [theirs, over] and paged["total"] == 6


def test_only_a_player_has_an_inbox(app, client):
    http = bare(app)
    assert_problem(http.get("/players/me/games"), 401, "not_logged_in")
    assert_problem(http.get("/players/me/stream"), 401, "not_logged_in")
    game = client.post("/games", json={"seats": [{"name": "ann"}, {"bot": "random"}]}).get_json()
    seat = auth(game["seats"][0]["token"])
    assert_problem(http.get("/players/me/games", headers=seat), 403, "not_a_player")
    ann = account(app, "ann")
    assert_problem(http.get("/players/me/games?status=lost", headers=ann.headers), 422)
    bad_id = {**ann.headers, "Last-Event-ID": "12"}
    assert_problem(http.get("/players/me/stream", headers=bad_id), 400)


def test_the_player_stream_says_your_turn_in_each_of_three_games_within_a_second(app, live_server):
    ann, bob = account(app, "ann"), account(app, "bob")
    http = bare(app)
    games = [create(http, ann, [{"me": True}, {"player": "bob"}], BOB_FIRST) for _ in range(3)]
    for game_id in games:
        join(http, bob, game_id)
    stream = SseClient(live_server, "/players/me/stream", ann.headers)
    try:
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type").startswith("text/event-stream")
        delays = []
        for game_id in games:
            play_a_turn(http, bob, game_id)
            moved = time.monotonic()
            told = stream.next_event(timeout=5)
            delays.append(time.monotonic() - moved)
            assert told["event"] == "your_turn", told
            assert told["data"]["game"] == game_id and told["data"]["seat"] == 0
            assert cards_in(told["data"]) == set()
        assert max(delays) < 1.0, delays
        # The inbox agrees: all three are ann's turn now.
        assert all(g["your_turn"] for g in inbox(http, ann)["items"])
        # A game's end: ann resigns one; both hear it once, and it carries the result.
        bobs = SseClient(live_server, "/players/me/stream", bob.headers)
        try:
            http.post(f"/games/{games[0]}/moves", json={"type": "forfeit"}, headers=ann.headers)
            ended = [stream.next_event(timeout=5), bobs.next_event(timeout=5)]
            for told in ended:
                assert told["event"] == "game_ended" and told["data"]["game"] == games[0]
                assert told["data"]["result"]["winners"] == [1]
        finally:
            bobs.close()
        # Resuming after a notice gives what came after it, and only that.
        kept = app.extensions["cardtrail"].player_games.news(ann.id)
        resumed = SseClient(
            live_server, "/players/me/stream", {**ann.headers, "Last-Event-ID": kept[-2]["id"]}
        )
        try:
            again = resumed.next_event(timeout=5)
            assert again["id"] == kept[-1]["id"] and again["event"] == "game_ended"
        finally:
            resumed.close()
    finally:
        stream.close()


def test_an_invitation_and_a_rematch_offer_reach_the_stream(app, live_server):
    ann, bob = account(app, "ann"), account(app, "bob")
    http = bare(app)
    stream = SseClient(live_server, "/players/me/stream", bob.headers)
    try:
        game_id = create(http, ann, [{"me": True}, {"player": "bob"}], ANN_FIRST)
        told = stream.next_event(timeout=5)
        assert told["event"] == "invited" and told["data"]["game"] == game_id
        join(http, bob, game_id)
        http.post(f"/games/{game_id}/moves", json={"type": "forfeit"}, headers=ann.headers)
        assert stream.next_event(timeout=5)["event"] == "game_ended"
        offered = http.post(f"/games/{game_id}/rematch", headers=ann.headers)
        assert offered.status_code in (200, 201), offered.get_json()
        told = stream.next_event(timeout=5)
        assert told["event"] == "rematch_offered"
        assert told["data"]["game"] == offered.get_json()["id"]
    finally:
        stream.close()


def test_a_revoked_token_or_a_closed_session_ends_the_streams_it_opened(app, live_server):
    """A stream checks its credential before each frame: once the token is revoked (or
    the session closed) it sends `closed` and ends, and shows the seat nothing more."""
    ann, bob = account(app, "ann"), account(app, "bob")
    http = bare(app)
    game_id = create(http, ann, [{"me": True}, {"player": "bob"}], BOB_FIRST)
    join(http, bob, game_id)
    version = http.get(f"/games/{game_id}").get_json()["version"]
    tokens = http.get("/players/me/tokens", headers=ann.headers).get_json()["items"]
    last_seen = {**ann.headers, "Last-Event-ID": str(version)}
    game_stream = SseClient(live_server, f"/games/{game_id}/stream", last_seen)
    news = SseClient(live_server, "/players/me/stream", ann.headers)
    try:
        assert game_stream.response.status == 200 and news.response.status == 200
        http.delete(f"/players/me/tokens/{tokens[0]['id']}", headers=ann.headers)
        play_a_turn(http, bob, game_id)  # events for the game stream, a notice for ann
        for stream in (game_stream, news):
            closed = stream.next_event(timeout=5)
            assert closed["event"] == "closed", closed
            assert closed["data"] == {"reason": "credential_revoked"}
            assert stream.next_event(timeout=5) is None  # and nothing after it
    finally:
        game_stream.close()
        news.close()

    # The same for a browser's session, once it logs out.
    browser = app.test_client()
    csrf = log_in(browser, "bob", bob.password)
    cookie = browser.get_cookie("cardtrail_session").value
    news = SseClient(live_server, "/players/me/stream", {"Cookie": f"cardtrail_session={cookie}"})
    try:
        assert news.response.status == 200
        assert browser.delete("/session", headers={CSRF: csrf}).status_code == 204
        carol = account(app, "carol")
        create(http, carol, [{"me": True}, {"player": "bob"}], SHORT)  # a notice for bob
        assert news.next_event(timeout=5)["event"] == "closed"
    finally:
        news.close()
