"""GET /ratings and /ratings/{pool}: the rating pools, and each one's leaderboard.

Public reads of the projection `service.ratings` keeps from the finished games' logs
(docs/ratings.md). A player's own ratings reach the player page through
`Ratings.of_player`.
"""

from typing import Any

from flask import current_app
from flask.views import MethodView
from marshmallow import RAISE, fields, validate

from service.api import inputs, openapi
from service.api.inputs import Schema
from service.api.openapi import PUBLIC, STORE
from service.bootstrap import Cardtrail
from service.ratings import pools
from service.skill import PROVISIONAL_GAMES

blp = openapi.Blueprint("ratings", __name__, description="Ratings and leaderboards")
blp.ARGUMENTS_PARSER = inputs.JsonParser()

EXAMPLE = next(iter(pools().values()))
POOL_PARAMETER = {
    "in": "path",
    "name": "pool",
    "required": True,
    "description": "A rating pool's id, as GET /ratings lists them.",
    "schema": {"type": "string", "enum": sorted(pools())},
}


class RatingPool(Schema):
    pool = fields.String(required=True, metadata={"example": EXAMPLE.id})
    game = fields.String(required=True, metadata={"example": EXAMPLE.game})
    title = fields.String(required=True, metadata={"example": EXAMPLE.title})
    rated = fields.Integer(required=True, metadata={"description": "Identities rated in it."})


class RatingPools(Schema):
    pools = fields.List(fields.Nested(RatingPool), required=True)


class BoardQuery(Schema):
    class Meta:
        unknown = RAISE

    page = fields.Integer(load_default=1, validate=validate.Range(1, 100_000))
    page_size = fields.Integer(load_default=20, validate=validate.Range(1, 100))


class Rating(Schema):
    rank = fields.Integer(required=True, metadata={"description": "1 is the best ordinal."})
    player = fields.String(
        required=True,
        metadata={"description": "A player's id, or a bot's: bot:<game>:<level>."},
    )
    name = fields.String(required=True, metadata={"description": 'A display name: "strong bot".'})
    bot = fields.Boolean(required=True)
    mu = fields.Float(required=True, metadata={"description": "The estimated skill."})
    sigma = fields.Float(required=True, metadata={"description": "Its uncertainty."})
    ordinal = fields.Float(required=True, metadata={"description": "mu − 3σ: the ranking."})
    games = fields.Integer(required=True, metadata={"description": "Rated games played."})
    provisional = fields.Boolean(
        required=True,
        metadata={"description": f"Fewer than {PROVISIONAL_GAMES} rated games yet."},
    )


class Leaderboard(Schema):
    pool = fields.String(required=True)
    game = fields.String(required=True)
    title = fields.String(required=True)
    page = fields.Integer(required=True)
    page_size = fields.Integer(required=True)
    total = fields.Integer(required=True)
    provisional_games = fields.Integer(
        required=True, metadata={"description": "Rated games a rating is provisional until."}
    )
    ratings = fields.List(fields.Nested(Rating), required=True)


def cardtrail() -> Cardtrail:
    found: Cardtrail = current_app.extensions["cardtrail"]
    return found


@blp.route("/ratings")
class Pools(MethodView):
    @blp.response(200, RatingPools)
    @blp.refuses(*STORE)
    @blp.doc(operationId="listRatingPools", security=PUBLIC)
    def get(self) -> dict[str, Any]:
        """Every rating pool (a game's mode family) and how many are rated in it."""
        return {"pools": cardtrail().ratings.pools()}


@blp.route("/ratings/<pool>", parameters=[POOL_PARAMETER])
class Board(MethodView):
    @blp.arguments(BoardQuery, location="query", unknown=None)
    @blp.response(200, Leaderboard)
    @blp.refuses(*STORE, 404, 422)
    @blp.doc(operationId="getLeaderboard", security=PUBLIC)
    def get(self, query: dict[str, Any], pool: str) -> dict[str, Any]:
        """The pool's leaderboard, highest ordinal (mu − 3σ) first, a page at a time."""
        return cardtrail().ratings.leaderboard(pool, query["page"], query["page_size"])
