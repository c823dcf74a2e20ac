"""Bad input: every refusal is a 4xx problem+json, never a 500, and nothing is appended."""

import json
import random

import pytest

from engine.cards import standard_pack
from service.api import MAX_BODY_BYTES
from service.keys import SIGNING_KEYS
from service.store import EventStore
from tests.service.helpers import (
    assert_problem,
    auth,
    create_game,
    move,
    play_to_the_end,
    tokens,
    view,
)

PACK = list(standard_pack())
# Block Rummy with 20-card hands leaves an 11-card stock: a whole game in a few dozen moves.
QUICK_GAME = {"preset": "block", "options": {"game_end": "deals", "deals": 1, "hand_size": 20}}


@pytest.fixture
def game(client, redis_client):
    """A fresh two-player game: (id, tokens, seat to act, seat not to act, stream before)."""
    created = create_game(client, seed="bad input")
    game_id, toks = created["id"], tokens(created)
    turn = view(client, game_id)["turn"]
    store = EventStore(redis_client)
    return game_id, toks, turn, 1 - turn, store


@pytest.fixture
def unchanged(game, redis_client):
    """Asserts, after the test, that the game's stream is exactly as it was."""
    game_id, store = game[0], game[4]
    before = store.read_raw(game_id)
    yield
    assert store.read_raw(game_id) == before


def assert_validation(response, *fields):
    body = assert_problem(response, 422, "validation_error")
    assert body["errors"], body
    for error in body["errors"]:
        assert set(error) == {"field", "reason"} and error["reason"], error
    named = {error["field"] for error in body["errors"]}
    for field in fields:
        assert field in named, (field, body["errors"])
    return body


# -- the move endpoint ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "fields"),
    [
        ({"type": "draw", "source": "stock", "extra": 1}, ["extra"]),
        ({"type": "draw", "source": "the river"}, ["source"]),
        ({"type": "discard", "card": "ZZ"}, ["card"]),
        ({"type": "discard", "card": "1H"}, ["card"]),
        ({"type": "discard", "card": 10}, ["card"]),
        ({"type": "discard", "card": ""}, ["card"]),
        ({"type": "discard", "card": None}, ["card"]),
        ({"type": "meld", "cards": ["AH", "2H", "11H"]}, ["cards.2"]),
        ({"type": "meld", "cards": "AH 2H 3H"}, ["cards"]),
        ({"type": "meld", "cards": {"a": "AH"}}, ["cards"]),
        ({"type": "meld", "cards": []}, ["cards"]),
        ({"type": "lay_off", "card": "3S", "meld": "x"}, ["meld"]),
        ({"type": "lay_off", "card": "3S", "meld": 1.5}, ["meld"]),
        ({"type": "lay_off", "card": "3S", "meld": "1"}, ["meld"]),
        ({"type": "lay_off", "card": ["3S"], "meld": 1}, ["card"]),
        ({"source": "stock"}, ["type"]),
        ({"type": 5}, ["type"]),
        ({"type": ""}, ["type"]),
        ({"type": "go_down", "melds": "x"}, ["melds"]),
    ],
)
def test_malformed_moves_are_422_with_each_bad_field(client, game, unchanged, command, fields):
    game_id, toks, turn, _, _ = game
    assert_validation(move(client, game_id, toks[turn], command), *fields)


@pytest.mark.parametrize(
    "raw",
    ['{"type": "draw", "source": "stock"', "{type: draw}", "not json", '{"a": 1}}', "\xff"],
)
def test_malformed_json_is_400(client, game, unchanged, raw):
    game_id, toks, turn, _, _ = game
    response = client.post(
        f"/games/{game_id}/moves",
        data=raw.encode("latin-1"),
        content_type="application/json",
        headers=auth(toks[turn]),
    )
    assert_problem(response, 400)


@pytest.mark.parametrize("raw", ["[]", '[{"type": "draw", "source": "stock"}]', '"draw"', "42"])
def test_json_that_is_not_an_object_is_refused(client, game, unchanged, raw):
    game_id, toks, turn, _, _ = game
    response = client.post(
        f"/games/{game_id}/moves",
        data=raw,
        content_type="application/json",
        headers=auth(toks[turn]),
    )
    assert_validation(response)


@pytest.mark.parametrize(
    ("command", "code"),
    [
        ({"type": "fly"}, "unknown_command"),
        ({"type": "discard", "card": "KH"}, "must_draw_first"),
        ({"type": "meld", "cards": ["AH", "2H", "3H"]}, "must_draw_first"),
        ({"type": "lay_off", "card": "3S", "meld": 9}, "must_draw_first"),
        ({"type": "swap_joker", "card": "3S", "meld": 1}, "must_draw_first"),
        ({"type": "go_down", "melds": [["AH", "2H", "3H"]]}, "must_draw_first"),
    ],
)
def test_illegal_moves_are_422_with_the_engines_code(client, game, unchanged, command, code):
    game_id, toks, turn, _, _ = game
    body = assert_problem(move(client, game_id, toks[turn], command), 422, code)
    assert body["code"] != "validation_error"


def test_illegal_move_in_the_play_phase_names_the_card(client, game):
    game_id, toks, turn, _, store = game
    assert move(client, game_id, toks[turn], {"type": "draw", "source": "stock"}).status_code == 200
    hand = view(client, game_id, toks[turn])["you"]["hand"]
    missing = next(card for card in PACK if card not in hand)
    before = store.read_raw(game_id)
    body = assert_problem(
        move(client, game_id, toks[turn], {"type": "discard", "card": missing}),
        422,
        "card_not_in_hand",
    )
    assert missing[:-1] in body["detail"]
    assert_problem(
        move(client, game_id, toks[turn], {"type": "draw", "source": "stock"}), 422, "already_drew"
    )
    lay_off = {"type": "lay_off", "card": hand[0], "meld": 9}
    assert_problem(move(client, game_id, toks[turn], lay_off), 422, "unknown_meld")
    not_a_meld = {"type": "meld", "cards": [missing]}
    assert_problem(move(client, game_id, toks[turn], not_a_meld), 422, "card_not_in_hand")
    assert store.read_raw(game_id) == before


def test_a_move_out_of_turn_is_409(client, game, unchanged):
    game_id, toks, turn, waiting, _ = game
    body = assert_problem(
        move(client, game_id, toks[waiting], {"type": "draw", "source": "stock"}),
        409,
        "not_your_turn",
    )
    assert body["detail"] == f"It is seat {turn + 1}'s turn, not yours."  # counted from 1


def test_tokens(client, game, unchanged):
    game_id, toks, turn, _, _ = game
    draw = {"type": "draw", "source": "stock"}
    assert_problem(move(client, game_id, None, draw), 401, "missing_token")
    assert_problem(move(client, game_id, "not-a-token", draw), 401, "unknown_token")
    assert_problem(move(client, game_id, toks[turn] + "x", draw), 401, "unknown_token")
    for header in ("Basic abc", "Bearer", "Bearer ", toks[turn]):
        response = client.post(
            f"/games/{game_id}/moves", json=draw, headers={"Authorization": header}
        )
        assert_problem(response, 401)
    other = create_game(client, seed="another game")
    other_turn = view(client, other["id"])["turn"]
    other_token = tokens(other)[other_turn]
    assert_problem(move(client, game_id, other_token, draw), 403, "token_for_another_game")
    # reading with a bad token is refused as well, rather than silently a spectator's view
    assert_problem(client.get(f"/games/{game_id}", headers=auth("nope")), 401, "unknown_token")
    assert_problem(client.get(f"/games/{game_id}", headers=auth(other_token)), 403)
    assert_problem(client.get(f"/games/{game_id}/events?after=0", headers=auth(other_token)), 403)


def test_an_oversized_body_is_413(client, game, unchanged):
    game_id, toks, turn, _, _ = game
    body = json.dumps({"type": "draw", "source": "stock", "pad": "x" * MAX_BODY_BYTES})
    response = client.post(
        f"/games/{game_id}/moves",
        data=body,
        content_type="application/json",
        headers=auth(toks[turn]),
    )
    assert_problem(response, 413)
    response = client.post("/games", data=body, content_type="application/json")
    assert_problem(response, 413)


def test_if_match(client, game, unchanged):
    game_id, toks, turn, _, store = game
    version = store.version(game_id)
    draw = {"type": "draw", "source": "stock"}
    for bad in ("abc", '"v2"', "-1", '"1.5"', ""):
        assert_problem(move(client, game_id, toks[turn], draw, If_Match=bad), 400)
    for stale in (version - 1, version + 1, 0):
        body = assert_problem(
            move(client, game_id, toks[turn], draw, If_Match=f'"{stale}"'), 412, "version_mismatch"
        )
        assert str(version) in body["detail"]


def test_if_match_current_version_is_accepted(client, game):
    game_id, toks, turn, _, store = game
    version = store.version(game_id)
    response = move(
        client, game_id, toks[turn], {"type": "draw", "source": "stock"}, If_Match=f'"{version}"'
    )
    assert response.status_code == 200
    assert store.version(game_id) == version + 1


def test_bad_idempotency_key_is_400(client, game, unchanged):
    game_id, toks, turn, _, _ = game
    response = move(
        client, game_id, toks[turn], {"type": "draw", "source": "stock"}, Idempotency_Key="k" * 201
    )
    assert_problem(response, 400)


def test_unknown_game_is_404(client, game, unchanged):
    _, toks, turn, _, _ = game
    for response in (
        client.get("/games/no-such-game"),
        client.get("/games/no-such-game/events?after=0"),
        move(client, "no-such-game", toks[turn], {"type": "draw", "source": "stock"}),
        move(client, "no-such-game", None, {"type": "draw", "source": "stock"}),
        client.post("/games/no-such-game/join", json={"name": "zed"}),
    ):
        assert_problem(response, 404, "game_not_found")
    assert_problem(client.get("/no/such/route"), 404)
    assert_problem(client.delete(f"/games/{game[0]}"), 405)


def test_a_move_after_the_game_ended_is_409(client, redis_client):
    created = create_game(client, seed="over", **QUICK_GAME)
    game_id, toks = created["id"], tokens(created)
    play_to_the_end(client, game_id, toks, random.Random(1))
    final = view(client, game_id, toks[0])
    assert final["status"] == "finished" and final["result"]["type"] == "game_ended"
    assert final["you"]["legal_moves"] == []
    store = EventStore(redis_client)
    before = store.read_raw(game_id)
    for seat in (0, 1):
        for command in ({"type": "draw", "source": "stock"}, {"type": "discard", "card": "KH"}):
            assert_problem(move(client, game_id, toks[seat], command), 409, "game_over")
    assert store.read_raw(game_id) == before


# -- creating games -----------------------------------------------------------------


def assert_nothing_created(client, redis_client, response, status, code=None):
    body = assert_problem(response, status, code)
    # Nothing but the signing keys' registry (written when the app starts).
    assert set(redis_client.keys()) <= {SIGNING_KEYS.encode()}, redis_client.keys()
    return body


def test_explicit_deck_is_refused_unless_the_server_allows_it(strict_app, redis_client):
    client = strict_app.test_client()
    deck = PACK
    response = client.post(
        "/games", json={"seats": [{"name": "ann"}, {"name": "bob"}], "deck": deck}
    )
    body = assert_nothing_created(client, redis_client, response, 403, "preset_deck_disabled")
    assert body["errors"][0]["field"] == "deck"


def test_an_explicit_deck_deals_those_cards_when_allowed(client):
    deck = PACK
    created = create_game(client, deck=deck)
    toks = tokens(created)
    # dealer 0 deals one at a time from seat 1: seat 1 gets deck[0], deck[2], …
    assert view(client, created["id"], toks[1])["you"]["hand"] == deck[0:20:2]
    assert view(client, created["id"], toks[0])["you"]["hand"] == deck[1:20:2]
    assert view(client, created["id"])["discard_pile"] == [deck[20]]


@pytest.mark.parametrize(
    ("deck", "field"),
    [
        (["AS"] * 52, None),  # not the pack
        (["AS", "2S", "3S"], None),
        (["AS", "XX"], "deck.1"),
        ("AS 2S", "deck"),
    ],
)
def test_a_bad_explicit_deck_is_422(client, redis_client, deck, field):
    response = client.post(
        "/games", json={"seats": [{"name": "ann"}, {"name": "bob"}], "deck": deck}
    )
    body = assert_nothing_created(client, redis_client, response, 422)
    named = {e["field"] for e in body["errors"]}
    assert (field or "deck") in named


def test_a_bad_explicit_deck_is_refused_even_when_seats_are_open(client, redis_client):
    """The deck is dealt only when the last seat fills; it must be judged at creation,
    or the joiner who fills the table gets a 422 after taking the seat, and the game is
    stuck waiting with no open seat."""
    response = client.post(
        "/games", json={"seats": [{"name": "ann"}, {"open": True}], "deck": ["AS"] * 52}
    )
    assert_nothing_created(client, redis_client, response, 422, "invalid_deck")


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"bogus": 1}, "options.bogus"),
        ({"hand_size": "x"}, "options.hand_size"),
        ({"hand_size": 26}, "options.hand_size"),
        ({"scoring": "most"}, "options.scoring"),
        ({"round_the_corner": "yes"}, "options.round_the_corner"),
        ({"first_dealer": 2}, "options.first_dealer"),
        ({"first_dealer": True}, "options.first_dealer"),
        ({"target_score_by_players": {"9": 10}}, "options.target_score_by_players"),
        ({"round_the_corner": True}, "options.round_the_corner"),
    ],
)
def test_bad_options_are_422_naming_the_option(client, redis_client, options, field):
    response = client.post(
        "/games", json={"seats": [{"name": "ann"}, {"name": "bob"}], "options": options}
    )
    body = assert_nothing_created(client, redis_client, response, 422)
    assert field in {e["field"] for e in body["errors"]}, body


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"seats": []}, "seats"),
        ({"seats": [{"name": "ann"}]}, "seats"),
        ({"seats": [{"name": f"p{i}"} for i in range(7)]}, "seats"),
        ({"seats": [{"name": f"p{i}"} for i in range(9)]}, "seats"),
        ({"seats": "ann, bob"}, "seats"),
        ({"seats": [{"name": "ann"}, "bob"]}, "seats.1"),
        ({"seats": [{"name": "ann"}, {}]}, "seats.1"),
        ({"seats": [{"name": "ann"}, {"name": "bob", "bot": "greedy"}]}, "seats.1"),
        ({"seats": [{"name": "ann"}, {"name": ""}]}, "seats.1.name"),
        ({"seats": [{"name": "ann"}, {"name": "b" * 41}]}, "seats.1.name"),
        ({"seats": [{"name": "ann"}, {"bot": "godlike"}]}, "seats.1.bot"),
        ({"seats": [{"name": "ann"}, {"name": "bob", "hat": 1}]}, "seats.1.hat"),
        ({}, "seats"),
        ({"seats": [{"name": "ann"}, {"name": "bob"}], "game": "chess"}, "game"),
        ({"seats": [{"name": "ann"}, {"name": "bob"}], "preset": "nope"}, "preset"),
        ({"seats": [{"name": "ann"}, {"name": "bob"}], "options": []}, "options"),
        ({"seats": [{"name": "ann"}, {"name": "bob"}], "seed": 5}, "seed"),
        ({"seats": [{"name": "ann"}, {"name": "bob"}], "colour": "red"}, "colour"),
    ],
)
def test_bad_games_are_422_naming_the_field(client, redis_client, body, field):
    response = client.post("/games", json=body)
    problem = assert_nothing_created(client, redis_client, response, 422)
    assert field in [e["field"] for e in problem["errors"]], problem


def test_bad_json_when_creating_is_400(client, redis_client):
    response = client.post("/games", data="{", content_type="application/json")
    assert_nothing_created(client, redis_client, response, 400)


@pytest.mark.parametrize(
    "query",
    ["status=lost", "page=0", "page=x", "page_size=0", "page_size=1000", "colour=red"],
)
def test_bad_list_queries_are_422(client, query):
    assert_validation(client.get(f"/games?{query}"))


@pytest.mark.parametrize("query", ["after=-1", "after=x", "wait=31", "wait=-1", "wait=soon"])
def test_bad_event_queries_are_422(client, game, query):
    assert_validation(client.get(f"/games/{game[0]}/events?{query}"))


def test_bad_joins(client, redis_client):
    created = create_game(client, seats=[{"name": "ann"}, {"open": True}, {"open": True}], names=())
    game_id = created["id"]
    before = EventStore(redis_client).read_raw(game_id)
    # No name and no player's credential: the game's refusal (a player may leave it out).
    nameless = assert_problem(client.post(f"/games/{game_id}/join", json={}), 422, "name_required")
    assert nameless["errors"] == [{"field": "name", "reason": nameless["detail"]}]
    assert_validation(client.post(f"/games/{game_id}/join", json={"name": ""}), "name")
    assert_validation(
        client.post(f"/games/{game_id}/join", json={"name": "z", "seat": "x"}), "seat"
    )
    assert_validation(client.post(f"/games/{game_id}/join", json={"name": "z", "seat": 8}), "seat")
    assert_problem(
        client.post(f"/games/{game_id}/join", json={"name": "z", "seat": 5}), 422, "unknown_seat"
    )
    assert_problem(
        client.post(f"/games/{game_id}/join", json={"name": "z", "seat": 0}), 409, "seat_taken"
    )
    assert_problem(
        client.post(f"/games/{game_id}/join", data="{", content_type="application/json"), 400
    )
    assert EventStore(redis_client).read_raw(game_id) == before
    seats = view(client, game_id)["seats"]
    assert [s.get("open", False) for s in seats] == [False, True, True]


def test_a_name_may_not_pass_for_a_seat_the_server_labels(client):
    for name in ("West (strong bot)", "Seat 3 (open)", "bob (invited)", "hal (GREEDY BOT)"):
        answer = client.post("/games", json={"seats": [{"name": name}, {"bot": "random"}]})
        assert answer.status_code == 422, (name, answer.get_json())
        assert answer.get_json()["errors"][0]["field"] == "seats.0.name"
    fine = client.post("/games", json={"seats": [{"name": "ann (the elder)"}, {"bot": "random"}]})
    assert fine.status_code == 201
