"""The OpenAPI document tells the truth, and the HTTP conventions hold, over a real app.

The document: every operation named (operationId) and secured, every error it can answer
documented as problem+json, moves as a discriminated union built from the registry,
headers and examples that fit their schemas. The conventions: 405 with Allow, 201 with
Location, ETag and If-None-Match (304) per seat, private answers, a foreign field in a
move refused, Idempotency-Key on create, join and moves (each seat's own).
"""

import threading
from http import HTTPStatus

import jsonschema_rs
import pytest

from engine import games
from service import keys
from service.api import moves as move_schemas
from service.commands import MakeMove, required_fields
from service.errors import Refused
from service.idempotency import lookup_digest
from service.store import EventStore
from tests.service.helpers import assert_problem, auth, create_game, move, tokens, view

DRAW = {"type": "draw", "source": "stock"}
PROBLEM_JSON = "application/problem+json"
OPERATIONS = {
    "createGame", "listGames", "getGame", "joinGame", "makeMove", "listEvents",
    "streamEvents", "listHands", "getReplayStep", "exportGame", "getAudit", "postAudit",
    "getKeys", "live", "listRatingPools", "getLeaderboard", "rematchGame",
    "signUp", "getMe", "getPlayer", "logIn", "logOut", "createToken", "listTokens",
    "revokeToken", "listMyGames", "streamMyNews",
}  # fmt: skip
LIMITED = {
    "createGame", "joinGame", "makeMove", "listEvents", "streamEvents", "rematchGame",
    "signUp", "logIn", "streamMyNews", "listMyGames",
}  # fmt: skip


@pytest.fixture
def doc(client):
    response = client.get("/openapi.json")
    assert response.status_code == 200
    return response.get_json()


def operations(doc):
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            if method != "parameters":
                yield path, method, operation


def resolve(doc, ref_or_object):
    if "$ref" not in ref_or_object:
        return ref_or_object
    kind, name = ref_or_object["$ref"].split("/")[-2:]
    return doc["components"][kind][name]


def _nullable_as_json_schema(schema):
    """OpenAPI 3.0's `nullable` as JSON Schema's null type, for a JSON Schema validator."""
    if isinstance(schema, list):
        return [_nullable_as_json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    made = {key: _nullable_as_json_schema(value) for key, value in schema.items()}
    if made.pop("nullable", False) and "type" in made:
        made["type"] = [made["type"], "null"]
    return made


def fits(doc, schema, value):
    """Whether `value` fits `schema` (which may refer to the document's components)."""
    root = _nullable_as_json_schema({**schema, "components": doc["components"]})
    errors = [str(error) for error in jsonschema_rs.Draft4Validator(root).iter_errors(value)]
    return errors


def started(client, seed="contract"):
    created = create_game(client, seed=seed)
    game_id, toks = created["id"], tokens(created)
    return game_id, toks, view(client, game_id)["turn"]


# -- the document ------------------------------------------------------------------------


def test_every_operation_is_named_once_and_secured(doc):
    names = [operation.get("operationId") for _, _, operation in operations(doc)]
    assert sorted(names) == sorted(OPERATIONS)
    assert doc["servers"] and doc["servers"][0]["url"]
    for path, method, operation in operations(doc):
        assert "security" in operation, (path, method)
    secured = {op["operationId"]: op["security"] for _, _, op in operations(doc)}
    credential = [{"bearerAuth": []}, {"sessionCookie": []}]  # a token, or a player's session
    assert secured["makeMove"] == secured["getMe"] == secured["rematchGame"] == credential
    assert secured["getGame"] == [*credential, {}]  # a credential is optional
    assert secured["createGame"] == secured["joinGame"] == [*credential, {}]  # for `me` seats
    assert secured["listGames"] == secured["getKeys"] == secured["getPlayer"] == []


def test_every_error_is_documented_as_problem_json(doc):
    assert "Error" not in doc["components"]["schemas"]  # flask-smorest's own is gone
    for path, method, operation in operations(doc):
        responses = operation["responses"]
        assert "default" not in responses, (path, method)
        assert "500" in responses, (path, method)
        for status, response in responses.items():
            if int(status) < 400:
                continue
            content = resolve(doc, response)["content"]
            assert list(content) == [PROBLEM_JSON], (path, method, status)
            assert content[PROBLEM_JSON]["schema"] == {"$ref": "#/components/schemas/Problem"}
        if operation["operationId"] != "live":  # every other one reads the store
            assert "503" in responses, (path, method)
        assert ("429" in responses) is (operation["operationId"] in LIMITED), (path, method)
    problem = doc["components"]["schemas"]["Problem"]
    assert set(problem["required"]) == {"type", "title", "status", "detail", "code"}
    assert problem["properties"]["status"]["type"] == "integer"
    assert problem["properties"]["errors"]["type"] == "array"
    for status in (429, 503):
        response = doc["components"]["responses"][HTTPStatus(status).name]
        assert response["headers"]["Retry-After"] == {"$ref": "#/components/headers/Retry-After"}


def test_each_operation_lists_only_what_it_can_answer(doc):
    statuses = {
        op["operationId"]: set(op["responses"]) for _, _, op in operations(doc)
    }  # fmt: skip
    assert "412" in statuses["makeMove"] and "412" not in statuses["getGame"]
    assert "401" not in statuses["listHands"]  # no token is read there
    assert "415" not in statuses["getGame"]  # no body
    assert {"304", "200"} <= statuses["getGame"] and {"304", "200"} <= statuses["listEvents"]
    assert statuses["live"] == {"200", "500"}


def test_moves_are_one_of_each_games_moves_told_apart_by_type(doc):
    schemas = doc["components"]["schemas"]
    union = schemas["MoveRequest"]
    assert union["discriminator"]["propertyName"] == "type"
    mapping = union["discriminator"]["mapping"]
    assert sorted({ref["$ref"] for ref in union["oneOf"]}) == sorted(set(mapping.values()))
    for name in games.names():
        game = games.get(name)
        for kind, declared in game.commands.items():
            member = schemas[mapping[kind].rsplit("/", 1)[1]]
            assert member["additionalProperties"] is False
            assert member["properties"]["type"]["enum"] == [kind]
            assert set(member["properties"]) == {"type", *declared}
            assert set(member["required"]) == {"type", *required_fields(declared)}
    body = doc["paths"]["/games/{game_id}/moves"]["post"]["requestBody"]["content"]
    for example in body["application/json"]["examples"].values():
        assert fits(doc, {"$ref": "#/components/schemas/MoveRequest"}, example["value"]) == []


def test_a_type_two_games_declare_differently_gets_a_schema_per_game():
    class Game:
        def __init__(self, name, commands):
            self.name, self.commands, self.display_name = name, commands, name.capitalize()

    first = Game("first", {"take": {"card": "card"}, "pass": {}})
    second = Game("second_one", {"take": {"count": "int"}, "pass": {}})
    shapes = move_schemas.shapes_of([first, second])
    assert [shape.name for shape in shapes["take"]] == ["FirstTakeMove", "SecondOneTakeMove"]
    assert [shape.name for shape in shapes["pass"]] == ["PassMove"]  # alike: one schema
    documented = move_schemas.union(shapes)
    mapping = documented["MoveRequest"]["discriminator"]["mapping"]
    assert mapping == {
        "take": "#/components/schemas/TakeMove",
        "pass": "#/components/schemas/PassMove",
    }  # one schema per type: unambiguous
    refs = [ref["$ref"] for ref in documented["TakeMove"]["anyOf"]]
    assert refs == ["#/components/schemas/FirstTakeMove", "#/components/schemas/SecondOneTakeMove"]


def test_headers_and_examples_are_documented(doc):
    paths = doc["paths"]
    create = paths["/games"]["post"]
    assert set(create["responses"]["201"]["headers"]) >= {"Location", "Cache-Control"}
    view_200 = paths["/games/{game_id}"]["get"]["responses"]["200"]
    assert set(view_200["headers"]) >= {"ETag", "Cache-Control", "Vary"}
    export = paths["/games/{game_id}/export"]["get"]["responses"]["200"]["content"]
    assert list(export) == ["application/x-ndjson"]
    stream = paths["/games/{game_id}/stream"]["get"]
    assert list(stream["responses"]["200"]["content"]) == ["text/event-stream"]

    def header_names(operation):
        return {resolve(doc, p)["name"] for p in operation.get("parameters", [])}

    assert "Last-Event-ID" in header_names(stream)
    assert {"If-Match", "Idempotency-Key"} <= header_names(paths["/games/{game_id}/moves"]["post"])
    assert "Idempotency-Key" in header_names(create)
    assert "If-None-Match" in header_names(paths["/games/{game_id}/events"]["get"])
    # every example fits its schema
    checked = 0
    for _, _, operation in operations(doc):
        bodies = [operation.get("requestBody", {})] + list(operation["responses"].values())
        for body in bodies:
            for media in resolve(doc, body).get("content", {}).values():
                examples = [e["value"] for e in media.get("examples", {}).values()]
                examples += [media["example"]] if "example" in media else []
                for example in examples:
                    assert fits(doc, media["schema"], example) == [], example
                    checked += 1
    assert checked >= 20


# -- HTTP conventions ----------------------------------------------------------------------


@pytest.mark.off_protocol("methods a path has no operation for are not in the document")
def test_405_says_what_is_allowed(client):
    game_id, _, _ = started(client)
    response = client.delete(f"/games/{game_id}")
    assert_problem(response, 405, "method_not_allowed")
    assert {"GET", "HEAD"} <= {m.strip() for m in response.headers["Allow"].split(",")}
    response = client.put("/games")
    assert_problem(response, 405)
    assert "POST" in response.headers["Allow"]


def test_201_carries_the_games_location(client):
    response = client.post("/games", json={"seats": [{"name": "ann"}, {"open": True}]})
    assert response.status_code == 201
    game_id = response.get_json()["id"]
    assert response.headers["Location"] == f"/games/{game_id}"
    assert response.headers["Cache-Control"] == "private, no-store"  # it holds tokens
    assert client.get(response.headers["Location"]).get_json()["id"] == game_id
    joined = client.post(f"/games/{game_id}/join", json={"name": "bob"})
    assert joined.status_code == 201
    assert joined.headers["Location"] == f"/games/{game_id}"
    assert joined.headers["Cache-Control"] == "private, no-store"


def test_views_are_tagged_per_seat_and_answered_304_while_current(client):
    game_id, toks, turn = started(client)
    tags = {}
    for who, token in (("spectator", None), ("mover", toks[turn]), ("other", toks[1 - turn])):
        response = client.get(f"/games/{game_id}", headers=auth(token))
        tags[who] = response.headers["ETag"]
        again = client.get(f"/games/{game_id}", headers={**auth(token), "If-None-Match": tags[who]})
        assert again.status_code == 304 and again.get_data() == b""
        assert again.headers["ETag"] == tags[who]
        assert again.headers["Cache-Control"] == "private, no-store"
        assert "Authorization" in again.headers["Vary"]
    assert len(set(tags.values())) == 3  # three representations, three tags
    # another seat's tag does not match this seat's view
    crossed = client.get(
        f"/games/{game_id}", headers={**auth(toks[turn]), "If-None-Match": tags["other"]}
    )
    assert crossed.status_code == 200
    assert move(client, game_id, toks[turn], DRAW).status_code == 200
    moved_on = client.get(
        f"/games/{game_id}", headers={**auth(toks[turn]), "If-None-Match": tags["mover"]}
    )
    assert moved_on.status_code == 200 and moved_on.headers["ETag"] != tags["mover"]


def test_a_view_changes_its_tag_when_someone_sits_down(client):
    """Joining an open seat changes the view (a name) without a new version."""
    created = client.post(
        "/games", json={"seats": [{"name": "ann"}, {"open": True}, {"open": True}]}
    )
    game_id = created.get_json()["id"]
    before = client.get(f"/games/{game_id}")
    assert client.post(f"/games/{game_id}/join", json={"name": "bob"}).status_code == 201
    after = client.get(f"/games/{game_id}", headers={"If-None-Match": before.headers["ETag"]})
    assert after.status_code == 200
    assert after.get_json()["version"] == before.get_json()["version"]
    assert after.headers["ETag"] != before.headers["ETag"]


def test_event_lists_are_tagged_and_answered_304(client):
    game_id, toks, turn = started(client)
    url = f"/games/{game_id}/events?after=0"
    first = client.get(url, headers=auth(toks[turn]))
    tag = first.headers["ETag"]
    assert first.headers["Cache-Control"] == "private, no-store"
    assert "Authorization" in first.headers["Vary"]
    again = client.get(url, headers={**auth(toks[turn]), "If-None-Match": tag})
    assert again.status_code == 304 and again.get_data() == b""
    spectators = client.get(url, headers={"If-None-Match": tag})
    assert spectators.status_code == 200 and spectators.headers["ETag"] != tag
    assert move(client, game_id, toks[turn], DRAW).status_code == 200
    assert client.get(url, headers={**auth(toks[turn]), "If-None-Match": tag}).status_code == 200


def test_answers_a_token_changes_are_private_errors_too(client):
    game_id, toks, turn = started(client)
    for response in (
        move(client, game_id, toks[turn], DRAW),
        client.get(f"/games/{game_id}/hands/1/replay", headers=auth(toks[turn])),
        client.get(f"/games/{game_id}/audit"),  # 409: not finished
        client.get(f"/games/{game_id}", headers=auth("not a token")),  # 401
    ):
        assert response.headers["Cache-Control"] == "private, no-store", response.status_code
        assert "Authorization" in response.headers["Vary"], response.status_code
    unauthorized = client.get(f"/games/{game_id}", headers=auth("not-a-token"))
    assert_problem(unauthorized, 401, "unknown_token")
    assert unauthorized.headers["WWW-Authenticate"].startswith("Bearer")
    listed = client.get("/games")  # the same for everyone: nothing private about it
    assert "Authorization" not in listed.headers.get("Vary", "")


# -- moves: nothing foreign in the log -------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "field"),
    [
        ({**DRAW, "card": "KH"}, "card"),  # another move's field
        ({**DRAW, "tricks": 3}, "tricks"),  # another game's field
        ({**DRAW, "seat": 1}, "seat"),  # the server says whose move it is
        ({"type": "fly", "deck": ["KH"]}, "deck"),  # no game's move: only its type may come
    ],
)
def test_a_field_that_is_not_the_moves_is_refused_naming_it(client, redis_client, command, field):
    game_id, toks, turn = started(client)
    before = EventStore(redis_client).read_raw(game_id)
    body = assert_problem(move(client, game_id, toks[turn], command), 422, "validation_error")
    assert field in {error["field"] for error in body["errors"]}, body
    assert EventStore(redis_client).read_raw(game_id) == before


def test_another_games_move_is_refused_by_the_game(client, redis_client):
    game_id, toks, turn = started(client)
    before = EventStore(redis_client).read_raw(game_id)
    body = assert_problem(move(client, game_id, toks[turn], {"type": "bid", "tricks": 3}), 422)
    assert body["code"] == "unknown_command"
    assert EventStore(redis_client).read_raw(game_id) == before


@pytest.mark.parametrize(
    ("command", "field"),
    [({**DRAW, "tricks": 3}, "tricks"), ({"type": "draw"}, "source")],
)
def test_every_path_holds_a_move_to_its_games_own_shape(app, client, command, field):
    """Bots and clocks come through `act` too: the game's own move is the rule there."""
    game_id, _, turn = started(client)
    handlers = app.extensions["cardtrail"].handlers
    with pytest.raises(Refused) as refused:
        handlers.act(MakeMove(game_id, turn, command))
    assert refused.value.field == field


# -- Idempotency-Key on create, join and moves ------------------------------------------------

GAME = {"seats": [{"name": "ann"}, {"open": True}]}


def create(client, body, key):
    return client.post("/games", json=body, headers={"Idempotency-Key": key})


def test_create_with_a_key_is_made_once(client, redis_client):
    first = create(client, GAME, "c6b3d2b8-create-once")
    assert first.status_code == 201
    again = create(client, GAME, "c6b3d2b8-create-once")
    assert again.status_code == 201 and again.get_json() == first.get_json()
    assert again.headers["Location"] == first.headers["Location"]
    assert client.get("/games").get_json()["total"] == 1
    other = create(client, {"seats": [{"name": "zed"}, {"open": True}]}, "c6b3d2b8-create-once")
    body = assert_problem(other, 422, "idempotency_key_reused")
    assert body["errors"][0]["field"] == "Idempotency-Key"
    # without a key, a create is a create
    assert client.post("/games", json=GAME).get_json()["id"] != first.get_json()["id"]
    # the kept answer holds a seat's token: it is kept sealed, never in plain
    kept = redis_client.get(keys.create_idempotency(lookup_digest("c6b3d2b8-create-once")))
    assert kept is not None
    assert first.get_json()["seats"][0]["token"].encode() not in kept


def test_a_refused_create_leaves_its_key_free(client):
    """Refused by the handler, after the key was claimed: nothing was given out."""
    refused = create(client, {**GAME, "options": {"no_such_option": 1}}, "free-after-refusal")
    assert_problem(refused, 422, "invalid_options")
    assert create(client, GAME, "free-after-refusal").status_code == 201


def test_creates_with_one_key_at_once_make_one_game(app, client):
    barrier = threading.Barrier(8)
    answers = []

    def post():
        own = app.test_client()
        barrier.wait(timeout=30)
        answers.append(create(own, GAME, "together-create"))

    threads = [threading.Thread(target=post) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert client.get("/games").get_json()["total"] == 1
    made = [a.get_json() for a in answers if a.status_code == 201]
    assert made and all(body == made[0] for body in made)
    for answer in answers:
        if answer.status_code != 201:
            assert_problem(answer, 409, "idempotency_key_in_use")


def test_join_with_a_key_takes_one_seat(client):
    created = client.post(
        "/games", json={"seats": [{"name": "ann"}, {"open": True}, {"open": True}]}
    )
    game_id = created.get_json()["id"]
    url, key = f"/games/{game_id}/join", {"Idempotency-Key": "join-once"}
    first = client.post(url, json={"name": "bob"}, headers=key)
    again = client.post(url, json={"name": "bob"}, headers=key)
    assert first.status_code == again.status_code == 201
    assert again.get_json() == first.get_json()
    seats = view(client, game_id)["seats"]
    assert [seat.get("open", False) for seat in seats] == [False, False, True]
    assert_problem(
        client.post(url, json={"name": "cy"}, headers=key), 422, "idempotency_key_reused"
    )
    # the key is the game's: the same key at another table is another join
    other = client.post("/games", json=GAME).get_json()["id"]
    assert client.post(f"/games/{other}/join", json={"name": "bob"}, headers=key).status_code == 201


def test_each_seat_has_idempotency_keys_of_its_own(client, redis_client):
    game_id, toks, turn = started(client)
    store = EventStore(redis_client)
    assert move(client, game_id, toks[turn], DRAW, Idempotency_Key="k1").status_code == 200
    card = view(client, game_id, toks[turn])["you"]["hand"][0]
    discard = {"type": "discard", "card": card}
    assert move(client, game_id, toks[turn], discard, Idempotency_Key="k2").status_code == 200
    version = store.version(game_id)
    # the other seat's first move with "k1": its own move, not a replay of the first seat's
    response = move(client, game_id, toks[1 - turn], DRAW, Idempotency_Key="k1")
    assert response.status_code == 200, response.get_json()
    assert store.version(game_id) == version + 1
    assert response.get_json()["events"][0]["seat"] == 1 - turn
    # and its repeat is its own answer again
    repeat = move(client, game_id, toks[1 - turn], DRAW, Idempotency_Key="k1")
    assert repeat.get_data() == response.get_data()
    assert store.version(game_id) == version + 1


def test_cards_are_what_the_document_says(client, doc):
    """The notation's pattern is the server's: either case and white space around, but
    nothing Python alone would read as a card (the long s upper-cases to S)."""
    pattern = doc["components"]["schemas"]["DiscardMove"]["properties"]["card"]["pattern"]
    assert pattern.startswith("^") and pattern.endswith("$")
    game_id, toks, turn = started(client)
    lenient = move(client, game_id, toks[turn], {"type": "discard", "card": " qs "})
    assert_problem(lenient, 422, "must_draw_first")  # read as a card; the game refuses it
    body = assert_problem(
        move(client, game_id, toks[turn], {"type": "discard", "card": "10\u017f"}),
        422,
        "validation_error",
    )
    assert body["errors"][0]["field"] == "card"


def test_a_seat_is_one_of_a_name_a_bot_or_open(client, doc):
    seat = doc["components"]["schemas"]["SeatRequest"]
    branches = [branch["required"] for branch in seat["oneOf"]]
    assert branches == [["name"], ["bot"], ["open"], ["me"], ["player"]]  # me, player: accounts
    assert seat["properties"]["name"]["format"] == "seat-name"
    refusals = ({}, {"name": "ann", "bot": "greedy"}, {"open": False}, {"open": "yes"},
                {"me": False}, {"me": True, "name": "ann"})  # fmt: skip
    for refused in refusals:
        response = client.post("/games", json={"seats": [{"name": "bob"}, refused]})
        assert_problem(response, 422, "validation_error")
    stream = doc["paths"]["/games/{game_id}/stream"]["get"]["responses"]["200"]["content"]
    event = stream["text/event-stream"]["schema"]  # one event: what an SSE reader checks
    assert set(event["required"]) == {"event", "data"}


def test_a_views_etag_sent_back_as_if_match_guards_the_move(client):
    """The tag begins with the version shown, so echoing it, as HTTP clients do, works;
    a tag from before the game moved on is stale (412)."""
    game_id, toks, turn = started(client)
    current = client.get(f"/games/{game_id}", headers=auth(toks[turn]))
    tag = current.headers["ETag"]
    assert tag.startswith(f'"{current.get_json()["version"]}-')
    assert move(client, game_id, toks[turn], DRAW, **{"If-Match": tag}).status_code == 200
    stale = move(
        client, game_id, toks[turn], {"type": "discard", "card": "KH"}, **{"If-Match": tag}
    )
    assert_problem(stale, 412, "version_mismatch")
