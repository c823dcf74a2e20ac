"""Players: accounts, sessions with CSRF, personal tokens, and seats bound to players.

Everything over the HTTP API with the real Redis; the bot in the game between two
accounts is played by a real RQ worker process.
"""

import json
import time
import unicodedata

import pytest
from argon2 import PasswordHasher

from engine import games
from replays.audit import audit_export
from service import keys
from service.api import create_app
from service.store import EventStore
from tests.service.accounts import CSRF, account, bare, log_in, sign_up
from tests.service.helpers import assert_problem, auth, cards_in
from tests.service.live import Workers, wait_until

RUMMY = games.get("rummy")
SHORT = {"game_end": "deals", "deals": 1, "first_dealer": 0}


@pytest.fixture
def workers(redis_url, redis_client):
    started = Workers(redis_url, redis_client)
    yield started
    started.close()


# -- accounts -----------------------------------------------------------------------------


def test_signing_up_logging_in_and_the_account_the_credential_is_for(app, client):
    made = client.post("/players", json={"name": "Ann", "password": "correct horse"})
    assert made.status_code == 201
    body = made.get_json()
    assert body["name"] == "Ann" and body["id"].startswith("p_") and len(body["id"]) == 18
    assert made.headers["Location"] == "/players/Ann"
    assert "password" not in body
    logged = client.post("/session", json={"name": "ANN", "password": "correct horse"})
    assert logged.status_code == 200
    assert logged.get_json()["player"] == body
    cookies = logged.headers.getlist("Set-Cookie")
    session = next(c for c in cookies if c.startswith("cardtrail_session="))
    csrf = next(c for c in cookies if c.startswith("cardtrail_csrf="))
    assert "HttpOnly" in session and "SameSite=Lax" in session
    assert "HttpOnly" not in csrf and logged.get_json()["csrf"] in csrf
    assert client.get("/players/me").get_json() == body  # the cookie
    assert_problem(bare(app).get("/players/me"), 401, "not_logged_in")


def test_a_session_cookie_over_https_is_secure(app):
    browser = app.test_client()
    sign_up(browser, "ann", "correct horse")
    logged = browser.post(
        "/session", json={"name": "ann", "password": "correct horse"}, base_url="https://localhost"
    )
    assert all("Secure" in cookie for cookie in logged.headers.getlist("Set-Cookie"))


def test_names_are_one_in_any_case_and_any_normal_form(client):
    sign_up(client, "Zoë")  # composed ë
    for other in ("ZOË", "zoë", unicodedata.normalize("NFD", "Zoë"), " zoë "):
        assert_problem(client.post("/players", json={"name": other, "password": "x" * 8}), 409)
    assert client.get("/players/ZOË").get_json()["name"] == "Zoë"
    nfd = unicodedata.normalize("NFD", "zoë")
    assert client.get(f"/players/{nfd}").status_code == 200


@pytest.mark.parametrize(
    "name, code",
    [("me", "name_reserved"), ("Strong Bot", "name_reserved"), ("a/b", "name_refused")],
)
def test_names_that_would_pass_for_a_path_or_a_bot_are_refused(client, name, code):
    body = assert_problem(client.post("/players", json={"name": name, "password": "x" * 8}), 422)
    assert body["code"] == code and body["errors"][0]["field"] == "name"


def test_bad_sign_ups_are_422_naming_the_field(client):
    for sent, field in [
        ({"name": "ann", "password": "short"}, "password"),
        ({"name": "ann\u202e", "password": "x" * 8}, "name"),
        ({"password": "x" * 8}, "name"),
    ]:
        body = assert_problem(client.post("/players", json=sent), 422, "validation_error")
        assert [e["field"] for e in body["errors"]] == [field]


def test_passwords_are_kept_only_as_argon2_hashes(app, client, redis_client):
    password = "a password to look for"
    player = sign_up(client, "ann", password)
    log_in(client, "ann", password)
    record = redis_client.hgetall(keys.player(player["id"]))
    hashed = record[b"password"].decode()
    assert hashed.startswith("$argon2id$")
    assert PasswordHasher().verify(hashed, password)
    # Nowhere in Redis, under any key, is the password itself (nor its plain SHA-256).
    for key in redis_client.scan_iter("*"):
        kind = redis_client.type(key).decode()
        if kind == "hash":
            values = [*redis_client.hkeys(key), *redis_client.hvals(key)]
        elif kind == "string":
            values = [redis_client.get(key)]
        elif kind == "stream":
            values = [json.dumps(e) for e in EventStore(redis_client).read(key.decode())]
        else:
            values = [key]
        for value in values:
            text = value.decode() if isinstance(value, bytes) else str(value)
            assert password not in text, key


def test_a_wrong_password_and_an_unknown_name_get_the_same_answer(client):
    sign_up(client, "ann", "the right password")
    wrong = client.post("/session", json={"name": "ann", "password": "the wrong password"})
    unknown = client.post("/session", json={"name": "nobody", "password": "the wrong password"})
    for answer in (wrong, unknown):
        assert_problem(answer, 401, "bad_credentials")
        assert "Set-Cookie" not in answer.headers
    assert wrong.get_json() == unknown.get_json()
    assert wrong.headers["Content-Type"] == unknown.headers["Content-Type"]
    assert sorted(wrong.headers.keys()) == sorted(unknown.headers.keys())


def test_an_unknown_name_is_checked_against_a_hash_too(app, client):
    """No timing here (the machine is shared): the unknown name's log-in runs the same
    Argon2 verification, against a hash with the same parameters as a real one."""
    players = app.extensions["cardtrail"].players
    client.post("/session", json={"name": "nobody", "password": "whatever it is"})
    dummy = players._dummy_hash()
    real = client.application.extensions["cardtrail"].redis.hget(
        keys.player(sign_up(client, "ann")["id"]), "password"
    )
    assert dummy.split("$")[:4] == real.decode().split("$")[:4]  # argon2id, v, m/t/p


def test_the_login_limit_counts_per_address_and_per_name(redis_url, redis_client):
    config = {"RATE_LIMITS_ENABLED": True, "RATE_LIMITS": {"login": "3/hour"}}
    app = create_app({"REDIS_URL": redis_url, **config})
    try:
        client = app.test_client()
        sign_up(client, "ann", "the right password")
        wrong = {"name": "ann", "password": "a wrong password"}
        for number in range(3):  # three addresses, one name
            sent = client.post(
                "/session", json=wrong, environ_base={"REMOTE_ADDR": f"10.0.0.{number}"}
            )
            assert_problem(sent, 401, "bad_credentials")
        fourth = client.post("/session", json=wrong, environ_base={"REMOTE_ADDR": "10.0.0.9"})
        assert_problem(fourth, 429, "rate_limited")
        assert int(fourth.headers["Retry-After"]) >= 1
        # Even the right password waits: the name is being guessed.
        right = {"name": "ANN", "password": "the right password"}
        assert (
            client.post(
                "/session", json=right, environ_base={"REMOTE_ADDR": "10.0.0.8"}
            ).status_code
            == 429
        )
        # One address, many names.
        here = {"REMOTE_ADDR": "10.1.1.1"}
        for name in ("bob", "cid", "dee"):
            answer = client.post(
                "/session", json={"name": name, "password": "x" * 8}, environ_base=here
            )
            assert_problem(answer, 401, "bad_credentials")
        assert (
            client.post(
                "/session", json={"name": "eve", "password": "x" * 8}, environ_base=here
            ).status_code
            == 429
        )
    finally:
        app.extensions["cardtrail"].redis.close()


# -- sessions, CSRF and personal tokens --------------------------------------------------


def test_writes_made_with_the_cookie_need_the_csrf_token(app):
    browser = app.test_client()
    sign_up(browser, "ann", "correct horse")
    csrf = log_in(browser, "ann", "correct horse")
    refused = browser.post("/players/me/tokens", json={"label": "x"})
    assert_problem(refused, 403, "csrf_failed")
    assert_problem(browser.post("/players/me/tokens", json={}, headers={CSRF: "forged"}), 403)
    seats = {"seats": [{"me": True}, {"bot": "random"}]}
    assert_problem(browser.post("/games", json=seats), 403, "csrf_failed")
    assert browser.get("/players/me/tokens").status_code == 200  # reads need none
    assert browser.post("/games", json=seats, headers={CSRF: csrf}).status_code == 201
    assert_problem(browser.delete("/session"), 403, "csrf_failed")
    out = browser.delete("/session", headers={CSRF: csrf})
    assert out.status_code == 204
    assert all("Expires=Thu, 01 Jan 1970" in c for c in out.headers.getlist("Set-Cookie"))
    assert_problem(browser.get("/players/me"), 401, "not_logged_in")


def test_a_logged_out_session_is_over_even_for_a_cookie_kept(app):
    browser = app.test_client()
    sign_up(browser, "ann", "correct horse")
    csrf = log_in(browser, "ann", "correct horse")
    kept = browser.get_cookie("cardtrail_session").value
    browser.delete("/session", headers={CSRF: csrf})
    thief = app.test_client()
    thief.set_cookie("cardtrail_session", kept)
    assert_problem(thief.get("/players/me"), 401, "not_logged_in")


def test_personal_tokens_are_listed_without_secrets_and_stop_at_once_when_revoked(app):
    ann = account(app, "ann", "first")
    http = bare(app)
    second = http.post("/players/me/tokens", json={"label": "bot"}, headers=ann.headers)
    assert second.status_code == 201  # a personal token may ask for another
    other = second.get_json()
    listed = http.get("/players/me/tokens", headers=ann.headers).get_json()["items"]
    assert [t["label"] for t in listed] == ["first", "bot"]
    assert all(set(t) == {"id", "label", "created"} for t in listed)
    assert ann.token not in json.dumps(listed) and other["token"] not in json.dumps(listed)
    assert http.get("/players/me", headers=auth(other["token"])).get_json()["name"] == "ann"
    gone = http.delete(f"/players/me/tokens/{other['id']}", headers=ann.headers)
    assert gone.status_code == 204
    assert_problem(http.get("/players/me", headers=auth(other["token"])), 401, "unknown_token")
    assert http.get("/players/me", headers=ann.headers).status_code == 200
    again = http.delete(f"/players/me/tokens/{other['id']}", headers=ann.headers)
    assert_problem(again, 404, "token_not_found")
    bob = account(app, "bob")
    first_id = listed[0]["id"]
    assert_problem(http.delete(f"/players/me/tokens/{first_id}", headers=bob.headers), 404)


def test_a_revoked_token_stops_in_the_middle_of_a_game(app):
    ann, bob = account(app, "ann"), account(app, "bob")
    http = bare(app)
    game = create(http, ann, [{"me": True}, {"player": "bob"}])
    assert http.post(f"/games/{game['id']}/join", json={}, headers=bob.headers).status_code == 201
    seat_token = game["seats"][0]["token"]
    assert http.get(f"/games/{game['id']}", headers=ann.headers).get_json()["you"]["seat"] == 0
    token_id = http.get("/players/me/tokens", headers=ann.headers).get_json()["items"][0]["id"]
    http.delete(f"/players/me/tokens/{token_id}", headers=ann.headers)
    for answer in (
        http.get(f"/games/{game['id']}", headers=ann.headers),
        http.post(
            f"/games/{game['id']}/moves",
            json={"type": "draw", "source": "stock"},
            headers=ann.headers,
        ),  # fmt: skip
        http.get(f"/games/{game['id']}/events", headers=ann.headers),
    ):
        assert_problem(answer, 401, "unknown_token")
    # The seat's own token keeps working.
    assert http.get(f"/games/{game['id']}", headers=auth(seat_token)).get_json()["you"]["seat"] == 0


def test_a_seat_token_is_no_players_credential(app):
    http = bare(app)
    created = http.post("/games", json={"seats": [{"name": "ann"}, {"bot": "random"}]}).get_json()
    seat_token = created["seats"][0]["token"]
    assert_problem(http.get("/players/me", headers=auth(seat_token)), 403, "not_a_player")
    assert_problem(http.post("/players/me/tokens", json={}, headers=auth(seat_token)), 403)


# -- seats bound to players --------------------------------------------------------------


def create(http, creator, seats, **body):
    sent = {"seats": seats, "options": SHORT, **body}
    response = http.post("/games", json=sent, headers=creator.headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_an_invited_player_sees_it_and_joins_with_one_call(app, client):
    ann, bob = account(app, "ann"), account(app, "bob")
    http = bare(app)
    game = create(http, ann, [{"me": True}, {"player": "BOB"}])
    assert game["status"] == "waiting"
    assert game["seats"][1] == {
        "seat": 1,
        "invited": "bob",
        "player": bob.id,
        "label": "bob (invited)",
    }
    assert "token" not in game["seats"][1]
    shelf = app.extensions["cardtrail"].player_games
    assert shelf.ids(bob.id) == [game["id"]] and shelf.ids(ann.id) == [game["id"]]
    news = shelf.news(bob.id)
    assert [(n["kind"], n["game"], n["seat"]) for n in news] == [("invited", game["id"], 1)]
    # Nobody else may take the kept seat.
    assert_problem(
        http.post(f"/games/{game['id']}/join", json={"name": "eve"}), 409, "no_open_seat"
    )
    carol = account(app, "carol")
    taken = http.post(f"/games/{game['id']}/join", json={"seat": 1}, headers=carol.headers)
    assert_problem(taken, 409, "seat_taken")
    joined = http.post(f"/games/{game['id']}/join", json={}, headers=bob.headers)
    assert joined.status_code == 201 and joined.get_json()["seat"] == 1
    shown = http.get(f"/games/{game['id']}", headers=bob.headers).get_json()
    assert shown["status"] == "playing" and shown["you"]["seat"] == 1
    assert shown["seats"][1]["name"] == "bob" and shown["seats"][1]["player"] == bob.id
    log = EventStore(app.extensions["cardtrail"].redis).read(game["id"])
    seated = next(e for e in log if e["type"] == "players_seated")
    assert seated["seats"] == [{"player": ann.id, "name": "ann"}, {"player": bob.id, "name": "bob"}]


def test_inviting_nobody_or_giving_away_the_invitees_seed_is_refused(app):
    ann = account(app, "ann")
    http = bare(app)
    for seats, field, code in [
        ([{"me": True}, {"player": "nobody"}], "seats.1.player", "unknown_player"),
        ([{"me": True}, {"player": "ann"}], "seats.1", "too_many_seats"),
        ([{"me": True}, {"me": True}], "seats.1", "too_many_seats"),
    ]:
        sent = http.post("/games", json={"seats": seats}, headers=ann.headers)
        body = assert_problem(sent, 422, code)
        assert body["errors"][0]["field"] == field
    account(app, "bob")
    seeded = [{"me": True}, {"player": "bob", "client_seed": "mine"}]
    assert_problem(http.post("/games", json={"seats": seeded}, headers=ann.headers), 422)
    # `me` needs a player's credential.
    assert_problem(http.post("/games", json={"seats": [{"me": True}, {"bot": "random"}]}), 401)


def test_a_player_holds_one_seat_of_a_game_and_joins_under_their_own_name(app):
    ann, bob = account(app, "ann"), account(app, "bob")
    http = bare(app)
    game = create(http, ann, [{"me": True}, {"open": True}, {"open": True}])
    again = http.post(f"/games/{game['id']}/join", json={}, headers=ann.headers)
    assert_problem(again, 409, "already_seated")
    named = http.post(f"/games/{game['id']}/join", json={"name": "robert"}, headers=bob.headers)
    assert_problem(named, 422, "not_your_name")
    joined = http.post(f"/games/{game['id']}/join", json={"name": "BOB"}, headers=bob.headers)
    assert joined.status_code == 201
    assert (
        http.get(f"/games/{game['id']}").get_json()["seats"][joined.get_json()["seat"]]["name"]
        == "bob"
    )
    # Anonymous joins still name themselves, and a name is still required of them.
    assert_problem(http.post(f"/games/{game['id']}/join", json={}), 422, "name_required")
    assert http.post(f"/games/{game['id']}/join", json={"name": "cid"}).status_code == 201


def test_a_player_never_acts_in_a_game_where_they_hold_no_seat(app):
    ann, bob, carol = account(app, "ann"), account(app, "bob"), account(app, "carol")
    http = bare(app)
    game = create(http, ann, [{"me": True}, {"player": "bob"}])
    http.post(f"/games/{game['id']}/join", json={}, headers=bob.headers)
    game_id = game["id"]
    draw = {"type": "draw", "source": "stock"}
    refused = http.post(f"/games/{game_id}/moves", json=draw, headers=carol.headers)
    assert_problem(refused, 403, "not_seated")
    waiting = (ann, bob)[1 - http.get(f"/games/{game_id}").get_json()["turn"]]
    out_of_turn = http.post(f"/games/{game_id}/moves", json=draw, headers=waiting.headers)
    assert_problem(out_of_turn, 409, "not_your_turn")  # seated: refused by the rules
    # Carol watches as a spectator: no seat of hers, no cards of anyone's.
    watched = http.get(f"/games/{game_id}", headers=carol.headers).get_json()
    spectator = http.get(f"/games/{game_id}").get_json()
    assert "you" not in watched
    assert {k: v for k, v in watched.items() if k != "receipt"} == {
        k: v for k, v in spectator.items() if k != "receipt"
    }
    feed = http.get(f"/games/{game_id}/events", headers=carol.headers).get_json()
    assert feed["events"] == http.get(f"/games/{game_id}/events").get_json()["events"]
    assert_problem(http.post(f"/games/{game_id}/rematch", headers=carol.headers), 403, "not_seated")
    # In an anonymous game too.
    anonymous = http.post("/games", json={"seats": [{"name": "x"}, {"name": "y"}]}).get_json()
    refused = http.post(f"/games/{anonymous['id']}/moves", json=draw, headers=ann.headers)
    assert_problem(refused, 403, "not_seated")


def test_the_seat_token_and_the_players_credential_see_the_same(app):
    ann, bob = account(app, "ann"), account(app, "bob")
    http = bare(app)
    game = create(http, ann, [{"me": True}, {"player": "bob"}])
    bobs = http.post(f"/games/{game['id']}/join", json={}, headers=bob.headers).get_json()
    for player, token in ((ann, game["seats"][0]["token"]), (bob, bobs["token"])):
        by_player = http.get(f"/games/{game['id']}", headers=player.headers).get_json()
        by_token = http.get(f"/games/{game['id']}", headers=auth(token)).get_json()
        assert by_player == by_token


def test_anonymous_games_keep_their_seat_tokens(client):
    created = client.post(
        "/games", json={"seats": [{"name": "ann"}, {"name": "bob"}], "options": SHORT}
    ).get_json()
    assert all("player" not in seat for seat in created["seats"])
    turn = client.get(f"/games/{created['id']}").get_json()["turn"]
    token = created["seats"][turn]["token"]
    legal = client.get(f"/games/{created['id']}", headers=auth(token)).get_json()["you"]
    moved = client.post(
        f"/games/{created['id']}/moves", json=legal["legal_moves"][0], headers=auth(token)
    )
    assert moved.status_code == 200
    log = EventStore(client.application.extensions["cardtrail"].redis).read(created["id"])
    assert log[1]["seats"] == [{"name": "ann"}, {"name": "bob"}]


# -- two accounts and a bot, to the end ------------------------------------------------------


def play_until_finished(http, game_id, players, timeout=120.0):
    """Each player plays their own seat with their own personal token, whenever it is
    their turn (a simple rule: draw from the stock, discard the first card they may)."""
    deadline = time.monotonic() + timeout
    moves = 0
    while time.monotonic() < deadline:
        shown = http.get(f"/games/{game_id}").get_json()
        if shown["status"] == "finished":
            return moves
        mover = next((p for p in players if seat_of(shown, p) == shown["turn"]), None)
        if mover is None:  # the bot's turn: wait for its move
            http.get(f"/games/{game_id}/events?after={shown['version']}&wait=2")
            continue
        mine = http.get(f"/games/{game_id}", headers=mover.headers).get_json()
        legal = mine["you"]["legal_moves"]
        discards = [m for m in legal if m["type"] == "discard"]
        command = (discards or legal)[0] if mine["phase"] != "draw" else legal[0]
        answer = http.post(f"/games/{game_id}/moves", json=command, headers=mover.headers)
        assert answer.status_code in (200, 409), answer.get_json()
        moves += 1
    raise AssertionError("the game did not finish in time")


def seat_of(view, player):
    return next(s["seat"] for s in view["seats"] if s.get("player") == player.id)


def test_two_accounts_play_each_other_and_a_bot_with_their_own_tokens(app, workers):
    workers.start()
    ann, bob = account(app, "ann"), account(app, "bob")
    http = bare(app)
    options = {**SHORT, "hand_size": 7}
    game = create(http, ann, [{"me": True}, {"player": "bob"}, {"bot": "greedy"}], options=options)
    game_id = game["id"]
    assert http.post(f"/games/{game_id}/join", json={}, headers=bob.headers).status_code == 201
    moves = play_until_finished(http, game_id, [ann, bob])
    assert moves > 0
    finished = http.get(f"/games/{game_id}", headers=ann.headers).get_json()
    assert finished["status"] == "finished"
    verdict = audit_export(http.get(f"/games/{game_id}/export").get_data(as_text=True).splitlines())
    assert verdict.ok and verdict.finished, verdict.first_bad
    # Both pages list it, with its result and nothing of any hand.
    for player in (ann, bob):
        page = http.get(f"/players/{player.name}").get_json()
        assert [g["id"] for g in page["recent_games"]] == [game_id]
        listed = page["recent_games"][0]
        assert listed["seat"] == seat_of(finished, player)
        assert listed["result"]["scores"] == finished["scores"]
        assert listed["replay"] == f"/games/{game_id}/hands"
    wait_until(lambda: http.get("/players/ann").get_json()["ratings"], 30, "ann's rating")


# -- the hidden-information checks, on player pages ----------------------------------------


def test_no_player_page_shows_a_card(app):
    """Every page a player has (their own, their public one, their token list) is checked
    after every move of a game they play: no card at all appears, in play or after."""
    ann, bob = account(app, "ann"), account(app, "bob")
    http = bare(app)
    game = create(http, ann, [{"me": True}, {"player": "bob"}], options={**SHORT, "hand_size": 7})
    http.post(f"/games/{game['id']}/join", json={}, headers=bob.headers)
    players = [ann, bob]
    for _ in range(400):
        shown = http.get(f"/games/{game['id']}").get_json()
        for player in players:
            for path in ("/players/me", f"/players/{player.name}", "/players/me/tokens"):
                page = http.get(path, headers=player.headers).get_json()
                assert cards_in(page) == set(), (path, page)
        if shown["status"] == "finished":
            break
        mover = next(p for p in players if seat_of(shown, p) == shown["turn"])
        mine = http.get(f"/games/{game['id']}", headers=mover.headers).get_json()
        legal = mine["you"]["legal_moves"]
        discards = [m for m in legal if m["type"] == "discard"]
        command = (discards or legal)[0] if mine["phase"] != "draw" else legal[0]
        assert (
            http.post(f"/games/{game['id']}/moves", json=command, headers=mover.headers).status_code
            == 200
        )
    else:
        raise AssertionError("the game did not finish")
    assert http.get("/players/ann").get_json()["recent_games"][0]["id"] == game["id"]


def test_a_game_that_lets_one_player_hold_several_seats(app, monkeypatch):
    """A game's `seats_per_player` (one by default): with two, a player may sit twice,
    and their credential acts for whichever of their seats is to play."""
    monkeypatch.setattr(games.get("minitricks"), "seats_per_player", 2)
    ann = account(app, "ann")
    http = bare(app)
    sent = {"game": "minitricks", "seats": [{"me": True}, {"me": True}]}
    game = http.post("/games", json=sent, headers=ann.headers).get_json()
    assert [seat["player"] for seat in game["seats"]] == [ann.id, ann.id]
    for _ in range(3):
        shown = http.get(f"/games/{game['id']}").get_json()
        mine = http.get(f"/games/{game['id']}", headers=ann.headers).get_json()
        assert mine["you"]["seat"] == shown["turn"]
        command = mine["you"]["legal_moves"][0]
        moved = http.post(f"/games/{game['id']}/moves", json=command, headers=ann.headers)
        assert moved.status_code == 200, moved.get_json()
    three = {"game": "minitricks", "seats": [{"me": True}] * 3}
    assert_problem(http.post("/games", json=three, headers=ann.headers), 422, "too_many_seats")


def test_a_revoked_token_neither_creates_nor_joins(app):
    ann, bob = account(app, "ann"), account(app, "bob")
    http = bare(app)
    game = create(http, ann, [{"me": True}, {"player": "bob"}])
    token_id = http.get("/players/me/tokens", headers=bob.headers).get_json()["items"][0]["id"]
    assert http.delete(f"/players/me/tokens/{token_id}", headers=bob.headers).status_code == 204
    joined = http.post(f"/games/{game['id']}/join", json={}, headers=bob.headers)
    assert_problem(joined, 401, "unknown_token")
    made = http.post("/games", json={"seats": [{"me": True}, {"bot": "random"}]},
                     headers=bob.headers)  # fmt: skip
    assert_problem(made, 401, "unknown_token")
    # Nothing was half done: the seat is still kept for bob, and no game was made.
    assert http.get(f"/games/{game['id']}").get_json()["seats"][1]["invited"] == "bob"
    shelf = app.extensions["cardtrail"].player_games
    assert shelf.ids(bob.id) == [game["id"]]
