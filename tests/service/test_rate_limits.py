"""Rate limits on (small ones), counted in the suite's real Redis: under a limit nothing
changes; over it, 429 problem+json with Retry-After and the RateLimit headers, and the
request changes nothing. Every other test runs with limits off."""

import logging

import pytest

from service.api import create_app, limits
from tests.service.helpers import assert_problem, auth, create_game, move, view

SMALL = {"create": "3/hour", "join": "3/hour", "move": "3/hour", "follow": "3/hour"}
HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")


@pytest.fixture
def limited(redis_url, redis_client):
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "ALLOW_PRESET_DECK": True,
            "RATE_LIMITS_ENABLED": True,
            "RATE_LIMITS": SMALL,
        }
    )
    yield app.test_client()
    app.extensions["cardtrail"].redis.close()


def remaining(response) -> int:
    return int(response.headers["RateLimit-Remaining"])


def assert_limited(response, limit: int = 3) -> dict:
    body = assert_problem(response, 429, "rate_limited")
    assert body["title"] == "Too Many Requests"
    assert body["type"] == "https://cardtrail.dev/problems/rate_limited"
    assert 1 <= int(response.headers["Retry-After"]) <= 3600
    assert response.headers["RateLimit-Limit"] == str(limit)
    assert response.headers["RateLimit-Remaining"] == "0"
    assert 1 <= int(response.headers["RateLimit-Reset"]) <= 3600
    return body


def total(client) -> int:
    return client.get("/games").get_json()["total"]


def test_under_the_limit_nothing_changes_but_the_headers(limited):
    for left in (2, 1, 0):
        created = create_game(limited, seed=f"under {left}")
        assert created["status"] == "playing"
        response = limited.get(f"/games/{created['id']}")  # not a limited route
        assert not any(name in response.headers for name in HEADERS)
    response = limited.post("/games", json={"seats": [{"name": "ann"}, {"name": "bob"}]})
    assert_limited(response)


def test_creating_faster_is_refused_with_429_and_writes_nothing(limited):
    seats = {"seats": [{"name": "ann"}, {"name": "bob"}]}
    answers = [limited.post("/games", json=seats) for _ in range(3)]
    assert [r.status_code for r in answers] == [201, 201, 201]
    assert [remaining(r) for r in answers] == [2, 1, 0]
    assert all(r.headers["RateLimit-Limit"] == "3" for r in answers)
    assert all("Retry-After" not in r.headers for r in answers)
    assert_limited(limited.post("/games", json=seats))
    assert_limited(limited.post("/games", json={"not": "even valid"}))  # refused before reading
    assert total(limited) == 3
    # per client address: another address creates as before
    other = limited.post("/games", json=seats, environ_base={"REMOTE_ADDR": "192.0.2.7"})
    assert other.status_code == 201 and remaining(other) == 2


def test_moves_are_limited_per_seat_token_and_a_limited_move_writes_nothing(limited):
    created = create_game(limited, seed="per token", options={"first_dealer": 1})
    game_id = created["id"]
    ann, bob = (seat["token"] for seat in created["seats"])
    draw = {"type": "draw", "source": "stock"}
    for _ in range(3):  # not bob's turn: refused, and counted all the same
        assert_problem(move(limited, game_id, bob, draw), 409, "not_your_turn")
    assert_limited(move(limited, game_id, bob, draw))
    mine = view(limited, game_id, ann)
    assert mine["turn"] == 0
    answer = move(limited, game_id, ann, mine["you"]["legal_moves"][0])
    assert answer.status_code == 200, answer.get_json()  # bob's count is not ann's
    assert remaining(answer) == 2
    for _ in range(2):
        move(limited, game_id, ann, {"type": "no such move"})
    before = view(limited, game_id, ann)
    legal = before["you"]["legal_moves"][0]
    assert_limited(move(limited, game_id, ann, legal))
    after = view(limited, game_id, ann)
    assert after["version"] == before["version"]
    assert after["you"] == before["you"]


def test_joins_are_limited_per_address(limited):
    game_ids = [
        create_game(limited, seed=f"join {n}", seats=[{"name": "ann"}, {"open": True}])["id"]
        for n in range(3)
    ]
    for game_id in game_ids:
        response = limited.post(f"/games/{game_id}/join", json={"name": "bob"})
        assert response.status_code == 201, response.get_json()
    spare = game_ids[0]
    assert_limited(limited.post(f"/games/{spare}/join", json={"name": "cid"}))


def test_long_polls_and_streams_share_one_count_per_address_and_game(limited):
    first, second = (create_game(limited, seed=f"follow {n}")["id"] for n in range(2))
    for left in (2, 1, 0):
        response = limited.get(f"/games/{first}/events?after=0")
        assert response.status_code == 200 and remaining(response) == left
    assert_limited(limited.get(f"/games/{first}/events?after=0"))
    assert_limited(limited.get(f"/games/{first}/stream"))  # the same count
    response = limited.get(f"/games/{second}/events?after=0", headers=auth(None))
    assert response.status_code == 200 and remaining(response) == 2  # another game's


def test_the_limits_come_from_the_environment():
    assert limits.config_from_env(None) == {
        "RATE_LIMITS": dict(limits.DEFAULTS),
        "RATE_LIMITS_ENABLED": True,
    }
    assert limits.config_from_env("off")["RATE_LIMITS_ENABLED"] is False
    given = limits.config_from_env('{"create": "5/minute"}')
    assert given["RATE_LIMITS"] == {**limits.DEFAULTS, "create": "5/minute"}
    with pytest.raises(RuntimeError):
        limits.config_from_env("30/minute")
    with pytest.raises(RuntimeError, match="create"):
        limits.checked({"create": "thirty a minute"})
    with pytest.raises(RuntimeError, match="creates"):
        limits.checked({"creates": "30/minute"})
    assert limits.checked({"follow": ""})["follow"] == ""  # "" switches one limit off


def test_the_counts_are_kept_in_the_apps_own_redis(caplog):
    log = logging.getLogger("test")
    sock = "unix:///tmp/data/redis.sock"
    assert limits.storage_uri(sock, False, log) == "redis+unix:///tmp/data/redis.sock"
    assert limits.storage_uri("redis://h:6379/0", False, log) == "redis://h:6379/0"
    assert limits.storage_uri("redis://h:7000", True, log) == "redis+cluster://h:7000"
    with caplog.at_level(logging.WARNING):
        assert limits.storage_uri(sock, True, log) == "memory://"
    assert "in memory" in caplog.text


def test_limits_off_leaves_no_limiter(app):
    assert limits.EXTENSION not in app.extensions
    response = app.test_client().post("/games", json={"seats": [{"name": "a"}, {"name": "b"}]})
    assert response.status_code == 201
    assert "RateLimit-Limit" not in response.headers


def test_a_client_inventing_a_token_per_move_is_held_to_the_address_limit(redis_url):
    """The move limit counts per token; a client that makes up a new token for every
    request is counted per address as well (moves_per_address)."""
    rules = {**SMALL, "create": "100/hour", "moves_per_address": "5/hour"}
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "ALLOW_PRESET_DECK": True,
            "RATE_LIMITS_ENABLED": True,
            "RATE_LIMITS": rules,
        }
    )
    client = app.test_client()
    game_id = create_game(client, seed="invented tokens")["id"]
    draw = {"type": "draw", "source": "stock"}
    statuses = [move(client, game_id, f"invented-{n}", draw).status_code for n in range(8)]
    assert statuses[:5] == [401] * 5
    assert statuses[5:] == [429] * 3
    app.extensions["cardtrail"].redis.close()
