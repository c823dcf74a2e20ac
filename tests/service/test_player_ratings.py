"""Players' ratings: accounts play with their own personal tokens (and against bots), real
workers rate every game, and the numbers equal the ones `cardtrail rebuild ratings`
computes from the event streams alone. Spades partners both move; a player who resigns
loses, whatever the score; a game against anonymous seats only is not rated; a player's
page shows their rating in each pool.
"""

import random

import pytest

from tests.service.helpers import auth
from tests.service.test_ratings import (
    SPADES_PAIRS,
    drop,
    ledger,
    projection,
    rebuild_with_the_command,
    wait_until,
)
from tests.service.test_workers import workers  # noqa: F401  (the fixture)

PASSWORD = "correct horse battery staple"


def account(app, name):
    """A new player: (their id, a personal token), made over HTTP as a person would."""
    client = app.test_client()
    signed = client.post("/players", json={"name": name, "password": PASSWORD})
    assert signed.status_code == 201, signed.get_json()
    session = client.post("/session", json={"name": name, "password": PASSWORD}).get_json()
    csrf = {"X-CSRF-Token": session["csrf"]}
    made = client.post("/players/me/tokens", json={"label": "ratings"}, headers=csrf)
    assert made.status_code == 201, made.get_json()
    return signed.get_json()["id"], made.get_json()["token"]


def new_game(client, token, seats, game, preset, **options):
    body = {"game": game, "preset": preset, "seats": seats, "options": options}
    answer = client.post("/games", json=body, headers=auth(token))
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()["id"]


def join(client, game_id, token):
    answer = client.post(f"/games/{game_id}/join", json={}, headers=auth(token))
    assert answer.status_code == 201, answer.get_json()


def play_out(client, game_id, tokens, rng, timeout=120.0):
    """The accounts play random legal moves with their own tokens until the game is over
    (the workers play the bots)."""

    def finished() -> bool:
        view = client.get(f"/games/{game_id}").get_json()
        if view["status"] == "finished":
            return True
        for token in tokens:
            mine = client.get(f"/games/{game_id}", headers=auth(token)).get_json()
            legal = mine.get("you", {}).get("legal_moves") or []
            if legal and mine["turn"] == mine["you"]["seat"]:
                client.post(f"/games/{game_id}/moves", json=rng.choice(legal), headers=auth(token))
        return False

    wait_until(finished, timeout, what=f"game {game_id}")


@pytest.fixture
def players(app):
    return {name: account(app, name) for name in ("ann", "bob", "cat")}


def test_players_ratings_equal_the_rebuild(app, client, redis_client, redis_url, players, workers):  # noqa: F811
    workers()
    rng = random.Random(17)
    (ann, ann_token), (bob, bob_token), (cat, cat_token) = (
        players[n] for n in ("ann", "bob", "cat")
    )
    # Spades pairs: ann and bob partners against two bots
    pairs = new_game(
        client,
        ann_token,
        [{"me": True}, {"bot": "strong"}, {"player": "bob"}, {"bot": "greedy"}],
        "spades",
        "pairs",
        max_hands=1,
    )
    join(client, pairs, bob_token)
    # Rummy duel: bob resigns against cat although nobody has scored yet
    duel = new_game(client, cat_token, [{"me": True}, {"player": "bob"}], "rummy", "block")
    join(client, duel, bob_token)
    resign = client.post(f"/games/{duel}/moves", json={"type": "forfeit"}, headers=auth(bob_token))
    assert resign.status_code == 200, resign.get_json()
    # ann against anonymous seats only: nobody to be rated against
    alone = new_game(client, ann_token, [{"me": True}, {"name": "dan"}], "rummy", "block")
    client.post(f"/games/{alone}/moves", json={"type": "forfeit"}, headers=auth(ann_token))
    play_out(client, pairs, [ann_token, bob_token], rng)
    wait_until(lambda: pairs in ledger(redis_client, SPADES_PAIRS))
    wait_until(lambda: duel in ledger(redis_client, "rummy-2"))
    assert alone not in ledger(redis_client, "rummy-2")

    board = {
        row["player"]: row for row in client.get(f"/ratings/{SPADES_PAIRS}").get_json()["ratings"]
    }
    assert set(board) == {ann, bob, "bot:spades:strong", "bot:spades:greedy"}
    assert board[ann]["games"] == board[bob]["games"] == 1
    assert board[ann]["mu"] == board[bob]["mu"] != 25  # partners move together
    assert board[ann]["name"] == "ann" and board[ann]["bot"] is False
    duel_board = {
        row["player"]: row for row in client.get("/ratings/rummy-2").get_json()["ratings"]
    }
    assert duel_board[bob]["mu"] < 25 < duel_board[cat]["mu"]  # the forfeit: a loss
    assert set(duel_board) == {bob, cat}

    page = client.get("/players/bob").get_json()
    assert {row["pool"] for row in page["ratings"]} == {SPADES_PAIRS, "rummy-2"}
    assert all(row["provisional"] for row in page["ratings"])

    incremental = projection(redis_client)
    drop(redis_client)
    rebuild_with_the_command(redis_url)
    assert projection(redis_client) == incremental
