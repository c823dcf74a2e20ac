"""The HTTP API: thin handlers that validate, call the commands or queries, shape output.

Each operation says what the OpenAPI document needs to be true: its operationId and
security, the problems it may answer (`blp.refuses`, `service.api.openapi`), the headers
it reads and sends; `service.api.conventions` keeps the HTTP conventions (ETag and 304,
private answers, 201 with Location).
"""

from typing import Any

from flask import Response, current_app, request
from flask.views import MethodView

from service.api import examples, inputs, moves, openapi, schemas
from service.api.conventions import created, private, tagged, tagged_json
from service.api.limits import limited
from service.api.openapi import BEARER, BODY, OPTIONAL_BEARER, PUBLIC, RATE, STORE, TAGGED
from service.bootstrap import Cardtrail
from service.commands import CreateGame, JoinGame, SeatRequest
from service.errors import Unauthenticated

blp = openapi.Blueprint("games", __name__, description="Games, seats, moves and their events")
blp.ARGUMENTS_PARSER = inputs.JsonParser()  # a number too long to read is a 400

STREAM_SECONDS = 300.0
GAME_VIEW = schemas.GameView()
NOT_MODIFIED = openapi.response_name(304)


def cardtrail() -> Cardtrail:
    found: Cardtrail = current_app.extensions["cardtrail"]
    return found


def bearer_token() -> str | None:
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip() or not token.isascii():
        raise Unauthenticated("malformed_authorization", 'Use "Authorization: Bearer <token>".')
    return token.strip()


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
    @blp.refuses(*STORE, *BODY, 403, 409, 429)
    @blp.reads("Idempotency-Key.create")
    @blp.doc(operationId="createGame", security=PUBLIC)
    def post(self, body: dict[str, Any]) -> Any:
        """Create a game: seats are players (a token each), bots or open seats."""
        seats = [SeatRequest(**seat) for seat in body.pop("seats")]
        request = CreateGame(seats=seats, **body)
        answer = cardtrail().handlers.create(request, idempotency_key())
        return created(answer, answer["id"])

    @blp.arguments(schemas.ListQuery, location="query", unknown=None)
    @blp.response(200, schemas.GameList)
    @blp.refuses(*STORE, 422)
    @blp.doc(operationId="listGames", security=PUBLIC)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """List games, newest first, optionally by status."""
        return cardtrail().queries.list_games(
            query.get("status"), query["page"], query["page_size"]
        )


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
        return tagged_json(GAME_VIEW.dump(cardtrail().queries.view(game_id, bearer_token())))


@blp.route("/games/<game_id>/join")
class Join(MethodView):
    @private(vary=False)
    @limited("join")
    @blp.arguments(schemas.JoinRequest, examples=examples.JOIN)
    @blp.response(201, schemas.Joined, headers={**openapi.SECRET, **RATE}, example=examples.JOINED)
    @blp.refuses(*STORE, *BODY, 404, 409, 429)
    @blp.reads("Idempotency-Key.join")
    @blp.doc(operationId="joinGame", security=PUBLIC)
    def post(self, body: dict[str, Any], game_id: str) -> Any:
        """Take an open seat; the last seat filled starts the game."""
        answer = cardtrail().handlers.join(JoinGame(game_id, **body), idempotency_key())
        return created(answer, game_id)


@blp.route("/games/<game_id>/moves")
class Moves(MethodView):
    @private()
    @limited("move")
    @blp.response(200, schemas.EventsOut, headers={**openapi.PRIVATE, **RATE})
    @blp.refuses(*STORE, *BODY, *BEARER, 404, 409, 412, 429)
    @blp.reads("If-Match", "Idempotency-Key.move")
    @blp.doc(operationId="makeMove", security=openapi.BEARER_ONLY, requestBody=openapi.move_body())
    def post(self, game_id: str) -> dict[str, Any]:
        """Make a move for the bearer's seat; answers with the new events as that seat sees them."""
        command = moves.from_request(request)
        return cardtrail().handlers.move(
            game_id, bearer_token(), command, if_match(), idempotency_key()
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
            game_id, bearer_token(), query["after"], query["wait"]
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
        return cardtrail().history.replay(game_id, number, bearer_token(), query.get("step"))


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
        lines = cardtrail().history.export(game_id, bearer_token())
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
        return cardtrail().history.audit(game_id, bearer_token())

    @private()
    @blp.arguments(schemas.AuditRequest)
    @blp.response(200, schemas.AuditOut, headers=openapi.PRIVATE)
    @blp.refuses(*STORE, *BODY, *BEARER, 404, 409)
    @blp.doc(operationId="postAudit", security=OPTIONAL_BEARER)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The same audit, also checking a player's receipts against the log."""
        return cardtrail().history.audit(game_id, bearer_token(), body["receipts"])


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
    @blp.response(200, openapi.EVENT_STREAM, content_type="text/event-stream",
                  headers={**openapi.PRIVATE, **RATE})  # fmt: skip
    @blp.refuses(*STORE, *BEARER, 400, 404, 422, 429)
    @blp.reads("Last-Event-ID")
    @blp.doc(operationId="streamEvents", security=OPTIONAL_BEARER)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """Follow a game with Server-Sent Events (resumes from Last-Event-ID or `after`)."""
        resumed = inputs.last_event_id(request.headers.get("Last-Event-ID"))
        after = query["after"] if resumed is None else resumed
        stream = cardtrail().queries.follow(game_id, bearer_token(), after, STREAM_SECONDS)
        return Response(stream, mimetype="text/event-stream", headers={"X-Accel-Buffering": "no"})
