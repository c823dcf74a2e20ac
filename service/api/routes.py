"""The HTTP API: thin handlers that validate, call the commands or queries, shape output.

Each operation says what the OpenAPI document needs to be true: its operationId and
security, the problems it may answer (`blp.refuses`, `service.api.openapi`), the headers
it reads and sends; `service.api.conventions` keeps the HTTP conventions (ETag and 304,
private answers, 201 with Location).
"""

from typing import Any

from flask import Response, current_app, request
from flask.views import MethodView

from service.api import examples, inputs, moves, openapi, player_schemas, schemas, stream_docs
from service.api.callers import credential, optional_player, still_valid
from service.api.conventions import created, private, tagged, tagged_json
from service.api.limits import limited
from service.api.openapi import (
    BEARER,
    BEARER_ONLY,
    BODY,
    OPTIONAL_BEARER,
    PUBLIC,
    RATE,
    STORE,
    TAGGED,
)
from service.bootstrap import Cardtrail
from service.commands import CreateGame, JoinGame, SeatRequest

blp = openapi.Blueprint("games", __name__, description="Games, seats, moves and their events")
blp.ARGUMENTS_PARSER = inputs.JsonParser()  # a number too long to read is a 400

STREAM_SECONDS = 300.0
GAME_VIEW = schemas.GameView()
GAME_LIST = schemas.GameList()
NOT_MODIFIED = openapi.response_name(304)


def cardtrail() -> Cardtrail:
    found: Cardtrail = current_app.extensions["cardtrail"]
    return found


def if_match() -> int | None:
    return inputs.version_tag("If-Match", request.headers.get("If-Match"))


def idempotency_key() -> str | None:
    return inputs.header_token("Idempotency-Key", request.headers.get("Idempotency-Key"))


@blp.route("/games")
class Games(MethodView):
    @private(vary=False)
    @limited("create")
    @blp.arguments(schemas.CreateGameRequest, examples=examples.CREATE)
    @blp.response(201, schemas.CreatedGame, headers={**openapi.SECRET, **RATE},
                  example=examples.CREATED)  # fmt: skip
    @blp.refuses(*STORE, *BODY, *BEARER, 409, 429)
    @blp.reads("Idempotency-Key.create", "X-CSRF-Token")
    @blp.doc(operationId="createGame", security=OPTIONAL_BEARER)
    def post(self, body: dict[str, Any]) -> Any:
        """Create a game: seats are people (a token each), bots, open seats, your own seat
        (`me`, bound to your account) or seats kept for invited players (`player`)."""
        seats = [SeatRequest(**seat) for seat in body.pop("seats")]
        accounts = any(seat.me or seat.player for seat in seats)
        creator = optional_player() if accounts else None
        request = CreateGame(seats=seats, creator=creator, **body)
        answer = cardtrail().handlers.create(request, idempotency_key())
        return created(answer, answer["id"])

    @blp.arguments(schemas.ListQuery, location="query", unknown=None)
    @blp.response(200, schemas.GameList, headers={"ETag": "ETag"})
    @blp.alt_response(304, response=NOT_MODIFIED)
    @blp.refuses(*STORE, 422)
    @blp.reads("If-None-Match")
    @blp.doc(operationId="listGames", security=PUBLIC)
    def get(self, query: dict[str, Any]) -> Response:
        """List games, newest first, optionally by status. The page is tagged, so a lobby
        polling it with If-None-Match is answered 304, no body, until a game comes, goes
        or changes on it."""
        found = cardtrail().queries.list_games(
            query.get("status"), query["page"], query["page_size"]
        )
        return tagged_json(GAME_LIST.dump(found))


@blp.route("/games/<game_id>")
class GameResource(MethodView):
    @private()
    @blp.response(200, schemas.GameView, headers=TAGGED, example=examples.VIEW)
    @blp.alt_response(304, response=NOT_MODIFIED)
    @blp.refuses(*STORE, *BEARER, 404)
    @blp.reads("If-None-Match")
    @blp.doc(operationId="getGame", security=OPTIONAL_BEARER)
    def get(self, game_id: str) -> Response:
        """The game as the bearer's seat sees it, or as a spectator without a token."""
        return tagged_json(GAME_VIEW.dump(cardtrail().queries.view(game_id, credential())))


@blp.route("/games/<game_id>/join")
class Join(MethodView):
    @private(vary=False)
    @limited("join")
    @blp.arguments(schemas.JoinRequest, examples=examples.JOIN)
    @blp.response(201, schemas.Joined, headers={**openapi.SECRET, **RATE}, example=examples.JOINED)
    @blp.refuses(*STORE, *BODY, *BEARER, 404, 409, 429)
    @blp.reads("Idempotency-Key.join", "X-CSRF-Token")
    @blp.doc(operationId="joinGame", security=OPTIONAL_BEARER)
    def post(self, body: dict[str, Any], game_id: str) -> Any:
        """Take an open seat, or with a player's credential the seat kept for the player
        (else an open one), bound to them; the last seat filled starts the game."""
        request = JoinGame(game_id, player=optional_player(), **body)
        answer = cardtrail().handlers.join(request, idempotency_key())
        return created(answer, game_id)


@blp.route("/games/<game_id>/rematch")
class Rematch(MethodView):
    @private(vary=False)
    @limited("create")
    @blp.response(201, player_schemas.RematchOut, headers={**openapi.SECRET, **RATE})
    @blp.alt_response(200, schema=player_schemas.RematchOut,
                      description="The rematch was offered before: here it is")  # fmt: skip
    @blp.refuses(*STORE, *BODY, *BEARER, 404, 409, 429)
    @blp.reads("Idempotency-Key.rematch", "X-CSRF-Token")
    @blp.doc(operationId="rematchGame", security=BEARER_ONLY)
    def post(self, game_id: str) -> Any:
        """Offer a finished game again, to the same seats (the asker takes theirs now; bots
        accept at once, people by joining): one rematch per game, however often asked."""
        answer = cardtrail().rematches.offer(game_id, credential(), idempotency_key())
        return created(answer, answer["id"]) if answer["created"] else (answer, 200)


@blp.route("/games/<game_id>/moves")
class Moves(MethodView):
    @private()
    @limited("move")
    @blp.response(200, schemas.EventsOut, headers={**openapi.PRIVATE, **RATE})
    @blp.refuses(*STORE, *BODY, *BEARER, 404, 409, 412, 429)
    @blp.reads("If-Match", "Idempotency-Key.move", "X-CSRF-Token")
    @blp.doc(operationId="makeMove", security=openapi.BEARER_ONLY, requestBody=openapi.move_body())
    def post(self, game_id: str) -> dict[str, Any]:
        """Make a move for the bearer's seat; answers with the new events as that seat sees them."""
        command = moves.from_request(request)
        return cardtrail().handlers.move(
            game_id, credential(), command, if_match(), idempotency_key()
        )


@blp.route("/games/<game_id>/events")
class Events(MethodView):
    @private()
    @limited("follow")
    @blp.arguments(schemas.EventsQuery, location="query", unknown=None)
    @blp.response(200, schemas.EventsOut, headers={**TAGGED, **RATE}, example=examples.EVENTS)
    @blp.alt_response(304, response=NOT_MODIFIED)
    @blp.refuses(*STORE, *BEARER, 404, 422, 429)
    @blp.reads("If-None-Match")
    @blp.doc(operationId="listEvents", security=OPTIONAL_BEARER)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """Events after version `after`; with `wait` seconds, blocks until one arrives."""
        # Encoded once for every follower woken by the same move (service/queries.py):
        # an answer already made is sent as it is.
        body = cardtrail().queries.events_since_json(
            game_id, credential(), query["after"], query["wait"]
        )
        return tagged(body)


@blp.route("/games/<game_id>/hands")
class Hands(MethodView):
    @blp.response(200, schemas.HandsOut)
    @blp.refuses(*STORE, 404)
    @blp.doc(operationId="listHands", security=PUBLIC)
    def get(self, game_id: str) -> dict[str, Any]:
        """Every hand: number, dealer, first and last version, steps, finished, result."""
        return cardtrail().history.hands(game_id)


@blp.route("/games/<game_id>/hands/<int:number>/replay")
class Replay(MethodView):
    @private()
    @blp.arguments(schemas.ReplayQuery, location="query", unknown=None)
    @blp.response(200, schemas.ReplayOut, headers=openapi.PRIVATE)
    @blp.refuses(*STORE, *BEARER, 404, 422)
    @blp.doc(operationId="getReplayStep", security=OPTIONAL_BEARER)
    def get(self, query: dict[str, Any], game_id: str, number: int) -> dict[str, Any]:
        """A hand's steps, or with `step=k` the state after step k (0 = the deal).

        A finished hand is shown face up; a hand in play only from the caller's seat.
        """
        return cardtrail().history.replay(game_id, number, credential(), query.get("step"))


@blp.route("/games/<game_id>/export")
class Export(MethodView):
    @private()
    @blp.response(
        200,
        openapi.EXPORT_LINES,
        content_type="application/x-ndjson",
        description="The finished game as JSON Lines (docs/export-format.md)",
        headers={**openapi.PRIVATE, "Content-Disposition": "Content-Disposition"},
    )
    @blp.refuses(*STORE, *BEARER, 404, 409)
    @blp.doc(operationId="exportGame", security=OPTIONAL_BEARER)
    def get(self, game_id: str) -> Response:
        """The whole finished game as JSON Lines, each event with its command and hash."""
        lines = cardtrail().history.export(game_id, credential())
        body = "".join(line + "\n" for line in lines)
        return Response(
            body,
            mimetype="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="cardtrail-{game_id}.jsonl"'},
        )


@blp.route("/games/<game_id>/audit")
class Audit(MethodView):
    @private()
    @blp.response(200, schemas.AuditOut, headers=openapi.PRIVATE)
    @blp.refuses(*STORE, *BEARER, 404, 409)
    @blp.doc(operationId="getAudit", security=OPTIONAL_BEARER)
    def get(self, game_id: str) -> dict[str, Any]:
        """Re-run the finished game: hash chain, seed commitment, every deal, every move."""
        return cardtrail().history.audit(game_id, credential())

    @private()
    @blp.arguments(schemas.AuditRequest)
    @blp.response(200, schemas.AuditOut, headers=openapi.PRIVATE)
    @blp.refuses(*STORE, *BODY, *BEARER, 404, 409)
    @blp.reads("X-CSRF-Token")
    @blp.doc(operationId="postAudit", security=OPTIONAL_BEARER)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The same audit, also checking a player's receipts against the log."""
        return cardtrail().history.audit(game_id, credential(), body["receipts"])


@blp.route("/keys")
class Keys(MethodView):
    @blp.response(200, schemas.KeysOut)
    @blp.refuses(*STORE)
    @blp.doc(operationId="getKeys", security=PUBLIC)
    def get(self) -> dict[str, Any]:
        """Every public key that ever signed this server's receipts, by key id."""
        return {"keys": cardtrail().keyring.all()}


@blp.route("/games/<game_id>/stream")
class Stream(MethodView):
    @private()
    @limited("follow")
    @blp.arguments(schemas.EventsQuery, location="query", unknown=None)
    @blp.response(200, stream_docs.EVENT_STREAM, content_type="text/event-stream",
                  headers={**openapi.PRIVATE, **RATE})  # fmt: skip
    @blp.refuses(*STORE, *BEARER, 400, 404, 422, 429)
    @blp.reads("Last-Event-ID")
    @blp.doc(operationId="streamEvents", security=OPTIONAL_BEARER)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """Follow a game with Server-Sent Events (resumes from Last-Event-ID or `after`)."""
        resumed = inputs.last_event_id(request.headers.get("Last-Event-ID"))
        after = query["after"] if resumed is None else resumed
        queries = cardtrail().queries
        stream = queries.follow(game_id, credential(), after, STREAM_SECONDS, still_valid())
        return Response(stream, mimetype="text/event-stream", headers={"X-Accel-Buffering": "no"})
