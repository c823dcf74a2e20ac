"""The HTTP API: thin handlers that validate, call the commands or queries, shape output."""

from typing import Any

from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service.api import schemas
from service.api.limits import limited
from service.bootstrap import Cardtrail
from service.commands import CreateGame, JoinGame, SeatRequest
from service.errors import BadRequest, Unauthenticated

blp = Blueprint("games", __name__, description="Games, seats, moves and their events")

BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}, {}]
STREAM_SECONDS = 300.0


def cardtrail() -> Cardtrail:
    found: Cardtrail = current_app.extensions["cardtrail"]
    return found


def bearer_token() -> str | None:
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated("malformed_authorization", 'Use "Authorization: Bearer <token>".')
    return token.strip()


def if_match() -> int | None:
    header = request.headers.get("If-Match")
    if header is None:
        return None
    text = header.strip().removeprefix("W/").strip('"')
    if not text.isdigit():
        raise BadRequest("malformed_if_match", 'If-Match must be a version, e.g. "12".')
    return int(text)


def idempotency_key() -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 1 <= len(key) <= 200:
        raise BadRequest("malformed_idempotency_key", "Idempotency-Key: 1 to 200 chars.")
    return key


@blp.route("/games")
class Games(MethodView):
    @limited("create")
    @blp.arguments(schemas.CreateGameRequest)
    @blp.response(201, schemas.CreatedGame)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create a game: seats are players (a token each), bots or open seats."""
        seats = [SeatRequest(**seat) for seat in body.pop("seats")]
        return cardtrail().handlers.create(CreateGame(seats=seats, **body))

    @blp.arguments(schemas.ListQuery, location="query", unknown=None)
    @blp.response(200, schemas.GameList)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """List games, newest first, optionally by status."""
        return cardtrail().queries.list_games(
            query.get("status"), query["page"], query["page_size"]
        )


@blp.route("/games/<game_id>")
class GameResource(MethodView):
    @blp.response(200, schemas.GameView)
    @blp.doc(security=BEARER)
    def get(self, game_id: str) -> Any:
        """The game as the bearer's seat sees it, or as a spectator without a token."""
        view = cardtrail().queries.view(game_id, bearer_token())
        return view, 200, {"ETag": f'"{view["version"]}"'}


@blp.route("/games/<game_id>/join")
class Join(MethodView):
    @limited("join")
    @blp.arguments(schemas.JoinRequest)
    @blp.response(201, schemas.Joined)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Take an open seat; the last seat filled starts the game."""
        return cardtrail().handlers.join(JoinGame(game_id, **body))


@blp.route("/games/<game_id>/moves")
class Moves(MethodView):
    @limited("move")
    @blp.arguments(schemas.MoveRequest())  # an instance: not built again for every move
    @blp.response(200, schemas.EventsOut)
    @blp.doc(
        security=[{"bearerAuth": []}],
        parameters=[
            {"in": "header", "name": "If-Match", "schema": {"type": "string"}},
            {"in": "header", "name": "Idempotency-Key", "schema": {"type": "string"}},
        ],
    )
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Make a move for the bearer's seat; answers with the new events as that seat sees them."""
        return cardtrail().handlers.move(
            game_id, bearer_token(), body, if_match(), idempotency_key()
        )


@blp.route("/games/<game_id>/events")
class Events(MethodView):
    @limited("follow")
    @blp.arguments(schemas.EventsQuery, location="query", unknown=None)
    @blp.response(200, schemas.EventsOut)
    @blp.doc(security=BEARER)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """Events after version `after`; with `wait` seconds, blocks until one arrives."""
        # Encoded once for every follower woken by the same move (service/queries.py):
        # an answer already made is sent as it is.
        body = cardtrail().queries.events_since_json(
            game_id, bearer_token(), query["after"], query["wait"]
        )
        return Response(body, mimetype="application/json")


@blp.route("/games/<game_id>/hands")
class Hands(MethodView):
    @blp.response(200, schemas.HandsOut)
    def get(self, game_id: str) -> dict[str, Any]:
        """Every hand: number, dealer, first and last version, steps, finished, result."""
        return cardtrail().history.hands(game_id)


@blp.route("/games/<game_id>/hands/<int:number>/replay")
class Replay(MethodView):
    @blp.arguments(schemas.ReplayQuery, location="query", unknown=None)
    @blp.response(200, schemas.ReplayOut)
    @blp.doc(security=BEARER)
    def get(self, query: dict[str, Any], game_id: str, number: int) -> dict[str, Any]:
        """A hand's steps, or with `step=k` the state after step k (0 = the deal).

        A finished hand is shown face up; a hand in play only from the caller's seat.
        """
        return cardtrail().history.replay(game_id, number, bearer_token(), query.get("step"))


@blp.route("/games/<game_id>/export")
class Export(MethodView):
    @blp.doc(
        security=BEARER,
        responses={
            "200": {
                "description": "JSON Lines (docs/export-format.md)",
                "content": {"application/jsonl": {"schema": {"type": "string"}}},
            }
        },
    )
    def get(self, game_id: str) -> Response:
        """The whole finished game as JSON Lines, each event with its command and hash."""
        lines = cardtrail().history.export(game_id, bearer_token())
        body = "".join(line + "\n" for line in lines)
        return Response(
            body,
            mimetype="application/jsonl",
            headers={"Content-Disposition": f'attachment; filename="cardtrail-{game_id}.jsonl"'},
        )


@blp.route("/games/<game_id>/audit")
class Audit(MethodView):
    @blp.response(200, schemas.AuditOut)
    @blp.doc(security=BEARER)
    def get(self, game_id: str) -> dict[str, Any]:
        """Re-run the finished game: hash chain, seed commitment, every deal, every move."""
        return cardtrail().history.audit(game_id, bearer_token())

    @blp.arguments(schemas.AuditRequest)
    @blp.response(200, schemas.AuditOut)
    @blp.doc(security=BEARER)
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The same audit, also checking a player's receipts against the log."""
        return cardtrail().history.audit(game_id, bearer_token(), body["receipts"])


@blp.route("/keys")
class Keys(MethodView):
    @blp.response(200, schemas.KeysOut)
    def get(self) -> dict[str, Any]:
        """Every public key that ever signed this server's receipts, by key id."""
        return {"keys": cardtrail().keyring.all()}


@blp.route("/games/<game_id>/stream")
class Stream(MethodView):
    @limited("follow")
    @blp.arguments(schemas.EventsQuery, location="query", unknown=None)
    @blp.doc(
        security=BEARER,
        responses={
            "200": {
                "description": "Server-Sent Events, one per game event",
                "content": {"text/event-stream": {"schema": {"type": "string"}}},
            }
        },
    )
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """Follow a game with Server-Sent Events (resumes from Last-Event-ID or `after`)."""
        after = query["after"]
        last_id = request.headers.get("Last-Event-ID", "")
        if last_id.isdigit():
            after = int(last_id)
        stream = cardtrail().queries.follow(game_id, bearer_token(), after, STREAM_SECONDS)
        return Response(
            stream,
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
