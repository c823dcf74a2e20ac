"""The players' resources: signing up, logging in and out, one's own account and personal
tokens, and anyone's public page.

    POST   /players                     sign up (name + password)
    GET    /players/me                  the account the credential is for
    GET    /players/me/games            the inbox: my games, my turns first
    GET    /players/me/stream           my news for all my games (Server-Sent Events)
    GET    /players/{name}              a player's public page
    POST   /session                     log in: the session cookie and its CSRF token
    DELETE /session                     log out
    POST   /players/me/tokens           a personal token (its secret shown once)
    GET    /players/me/tokens           the tokens, without their secrets
    DELETE /players/me/tokens/{id}      revoke one: it stops at once
"""

from typing import Any

from flask import Response, current_app, request, url_for
from flask.views import MethodView

from service.api import callers, inputs, openapi, stream_docs
from service.api import player_schemas as schemas
from service.api.conventions import private
from service.api.limits import limited
from service.api.openapi import BODY, PLAYER_ONLY, PUBLIC, RATE, STORE
from service.bootstrap import Cardtrail
from service.errors import NotFound

blp = openapi.Blueprint("players", __name__, description="Players, sessions and their tokens")
blp.ARGUMENTS_PARSER = inputs.JsonParser()

STREAM_SECONDS = 300.0  # a player stream ends after this; the client reconnects
NO_CONTENT = {"description": "Done; nothing to say."}
COOKIES = {"Set-Cookie": "Set-Cookie", "Cache-Control": "Cache-Control"}
NAME_PARAMETER = {"in": "path", "name": "name", "required": True, "schema": {"type": "string"},
                  "description": "The player's name, in any case."}  # fmt: skip
TOKEN_PARAMETER = {"in": "path", "name": "token_id", "required": True,
                   "schema": {"type": "string"}, "description": "The token's id."}  # fmt: skip


def cardtrail() -> Cardtrail:
    found: Cardtrail = current_app.extensions["cardtrail"]
    return found


@blp.route("/players")
class Players(MethodView):
    @private(vary=False)
    @limited("register")
    @blp.arguments(schemas.SignUp)
    @blp.response(201, schemas.PlayerOut, headers={**openapi.SECRET, **RATE})
    @blp.refuses(*STORE, *BODY, 409, 429)
    @blp.doc(operationId="signUp", security=PUBLIC)
    def post(self, body: dict[str, Any]) -> Any:
        """Sign up: a player with this name (unique in any case) and password."""
        player = cardtrail().players.register(body["name"], body["password"])
        location = url_for("players.PlayerPage", name=player.name)
        return player.public(), 201, {"Location": location}


@blp.route("/players/me")
class Me(MethodView):
    @private()
    @blp.response(200, schemas.PlayerOut, headers=openapi.PRIVATE)
    @blp.refuses(*STORE, 401, 403)
    @blp.doc(operationId="getMe", security=PLAYER_ONLY)
    def get(self) -> dict[str, Any]:
        """The player the credential (personal token or session cookie) is for."""
        return callers.player().public()


@blp.route("/players/me/games")
class MyGames(MethodView):
    @private()
    @limited("follow")
    @blp.arguments(schemas.InboxQuery, location="query", unknown=None)
    @blp.response(200, schemas.Inbox, headers={**openapi.PRIVATE, **RATE})
    @blp.refuses(*STORE, 400, 401, 403, 422, 429)
    @blp.doc(operationId="listMyGames", security=PLAYER_ONLY)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Your games: first those where it is your turn (the soonest deadline first),
        then those you are invited to, the other live ones, and the finished ones with
        their result and replay; the newest first within each."""
        page = cardtrail().inbox.games(
            callers.player().id, query.get("status"), query["page"], query["page_size"]
        )
        return page


@blp.route("/players/me/stream")
class MyStream(MethodView):
    @private()
    @limited("follow")
    @blp.response(200, stream_docs.NEWS_STREAM, content_type="text/event-stream",
                  headers={**openapi.PRIVATE, **RATE})  # fmt: skip
    @blp.refuses(*STORE, 400, 401, 403, 429)
    @blp.reads("Last-Event-ID")
    @blp.doc(operationId="streamMyNews", security=PLAYER_ONLY)
    def get(self) -> Response:
        """One stream for all your games: your turn, a hand's and the game's end,
        invitations and rematch offers, from now on (or after Last-Event-ID; `0-0` for
        all that is kept). Open it, then read the inbox: nothing falls between."""
        player = callers.player()
        after = inputs.news_id(request.headers.get("Last-Event-ID"))
        stream = cardtrail().inbox.follow(player.id, after, STREAM_SECONDS, callers.still_valid())
        return Response(stream, mimetype="text/event-stream", headers={"X-Accel-Buffering": "no"})


@blp.route("/players/<name>", parameters=[NAME_PARAMETER])
class PlayerPage(MethodView):
    @blp.response(200, schemas.PlayerPage)
    @blp.refuses(*STORE, 404)
    @blp.doc(operationId="getPlayer", security=PUBLIC)
    def get(self, name: str) -> dict[str, Any]:
        """A player's public page: name, since when, ratings, recent finished games."""
        app = cardtrail()
        player = app.players.by_name(name)
        if player is None:
            raise NotFound("player_not_found", "There is no player of that name.")
        page = app.player_games.page(player)
        return {**page, "ratings": app.ratings.of_player(player.id)}


@blp.route("/session")
class SessionResource(MethodView):
    @private(vary=False)
    @limited("login")
    @blp.arguments(schemas.LogIn)
    @blp.response(200, schemas.SessionOut, headers={**COOKIES, **RATE})
    @blp.refuses(*STORE, *BODY, 401, 429)
    @blp.doc(operationId="logIn", security=PUBLIC)
    def post(self, body: dict[str, Any]) -> Response:
        """Log in: an HttpOnly session cookie, and the CSRF token its writes must send.

        A wrong password and an unknown name get the same answer, in the same time."""
        app = cardtrail()
        player = app.players.authenticate(body["name"], body["password"])
        session = app.credentials.open_session(player)
        answer = {"player": player.public(), "csrf": session.csrf, "expires": session.expires}
        response = Response(current_app.json.dumps(answer), mimetype="application/json")
        return callers.set_session_cookies(response, session)

    @private(vary=False)
    @blp.response(204, None, description=NO_CONTENT["description"], headers=COOKIES)
    @blp.refuses(*STORE, 403)
    @blp.reads("X-CSRF-Token")
    @blp.doc(operationId="logOut", security=[{"sessionCookie": []}, {}])
    def delete(self) -> Response:
        """Log out: the session ends and its cookies are cleared (no session: nothing to do)."""
        session_id = callers.session_id()
        if session_id is not None and callers.session_player() is not None:
            cardtrail().credentials.close_session(session_id)
        return callers.clear_session_cookies(Response(status=204))


@blp.route("/players/me/tokens")
class Tokens(MethodView):
    @private(vary=False)
    @blp.arguments(schemas.TokenRequest)
    @blp.response(201, schemas.NewToken, headers=openapi.PRIVATE)
    @blp.refuses(*STORE, *BODY, 401, 403, 409)
    @blp.reads("X-CSRF-Token")
    @blp.doc(operationId="createToken", security=PLAYER_ONLY)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """A personal token for a program of the player's: the secret is shown this once."""
        return cardtrail().credentials.new_token(callers.player(), body["label"])

    @private()
    @blp.response(200, schemas.TokenList, headers=openapi.PRIVATE)
    @blp.refuses(*STORE, 401, 403)
    @blp.doc(operationId="listTokens", security=PLAYER_ONLY)
    def get(self) -> dict[str, Any]:
        """The player's personal tokens, without their secrets."""
        return {"items": cardtrail().credentials.tokens(callers.player())}


@blp.route("/players/me/tokens/<token_id>", parameters=[TOKEN_PARAMETER])
class TokenResource(MethodView):
    @private()
    @blp.response(204, None, description=NO_CONTENT["description"], headers=openapi.PRIVATE)
    @blp.refuses(*STORE, 401, 403, 404)
    @blp.reads("X-CSRF-Token")
    @blp.doc(operationId="revokeToken", security=PLAYER_ONLY)
    def delete(self, token_id: str) -> Response:
        """Revoke a personal token: it stops at once."""
        cardtrail().credentials.revoke(callers.player(), token_id)
        return Response(status=204)
