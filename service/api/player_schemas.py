"""Marshmallow schemas of the players' bodies: accounts, sessions, personal tokens, a
player's page, their inbox, and a rematch's answer."""

from marshmallow import fields, validate

from service.api.inputs import Name, Schema
from service.api.ratings import Rating
from service.api.schemas import NAME_DOC, Joined, ListQuery, SeatOut

PASSWORD = validate.Length(8, 1024)
_ID = {"description": 'The player\'s id: "p_" and 16 characters; it never changes.'}


class SignUp(Schema):
    name = Name(
        required=True,
        metadata={
            **NAME_DOC,
            "description": "A seat's name (docs/inputs.md), unique however it is cased.",
        },
    )
    password = fields.String(required=True, validate=PASSWORD, load_only=True)


class LogIn(Schema):
    # Read as given (no Name rules): a wrong name must be answered like a wrong password.
    name = fields.String(required=True, validate=validate.Length(1, 200))
    password = fields.String(required=True, validate=validate.Length(1, 1024), load_only=True)


class PlayerOut(Schema):
    id = fields.String(required=True, metadata=_ID)
    name = fields.String(required=True)
    created = fields.Float(required=True, metadata={"description": "When (Unix seconds)."})


class SessionOut(Schema):
    player = fields.Nested(PlayerOut, required=True)
    csrf = fields.String(
        required=True,
        metadata={"description": "Send it as X-CSRF-Token with every write the cookie makes."},
    )
    expires = fields.Float(required=True, metadata={"description": "When the session ends."})


class TokenRequest(Schema):
    label = fields.String(load_default="", validate=validate.Length(0, 80))


class TokenOut(Schema):
    id = fields.String(required=True)
    label = fields.String(required=True)
    created = fields.Float(required=True)


class NewToken(TokenOut):
    token = fields.String(
        required=True, metadata={"description": "The secret (ctp_…): shown this once only."}
    )


class TokenList(Schema):
    items = fields.List(fields.Nested(TokenOut), required=True)


class GameResult(Schema):
    winners = fields.List(fields.Integer(), required=True)
    scores = fields.List(fields.Integer(), required=True)


class FinishedGame(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    preset = fields.String(allow_none=True)
    created = fields.Float(required=True)
    seats = fields.List(fields.Nested(SeatOut), required=True)
    seat = fields.Integer(allow_none=True, metadata={"description": "The player's seat."})
    replay = fields.String(required=True, metadata={"description": "Its hands, to replay."})
    result = fields.Nested(GameResult)


class PlayerRating(Rating):
    pool = fields.String(required=True)
    title = fields.String(required=True)
    rank = fields.Integer(allow_none=True, required=True)


class PlayerPage(Schema):
    """What anyone may see of a player: no game in play, so no card anyone holds."""

    name = fields.String(required=True)
    created = fields.Float(required=True)
    recent_games = fields.List(fields.Nested(FinishedGame), required=True)
    ratings = fields.List(fields.Nested(PlayerRating), required=True)


class RematchOut(Schema):
    id = fields.String(required=True, metadata={"description": "The rematch's game id."})
    rematch_of = fields.String(required=True)
    created = fields.Boolean(
        required=True, metadata={"description": "Whether this request made it (else: it was)."}
    )
    status = fields.String(required=True)
    version = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatOut), required=True)
    seed_commitment = fields.String(required=True)
    joined = fields.Nested(
        Joined, metadata={"description": "The asker's seat, taken by this request."}
    )


class InboxQuery(ListQuery):
    page_size = fields.Integer(load_default=50, validate=validate.Range(1, 100))


class LastEvent(Schema):
    version = fields.Integer(required=True)
    type = fields.String(required=True)
    description = fields.String(
        required=True, metadata={"description": "In a sentence, as the player's seat sees it."}
    )


class InboxGame(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    preset = fields.String(allow_none=True, required=True)
    status = fields.String(required=True)
    created = fields.Float(required=True)
    version = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatOut), required=True)
    your_seats = fields.List(
        fields.Integer(), required=True, metadata={"description": "The seats you act for."}
    )
    invited = fields.Boolean(
        required=True, metadata={"description": "A seat is kept for you: join to take it."}
    )
    to_act = fields.List(fields.Integer(), required=True)
    your_turn = fields.Boolean(required=True)
    deadline = fields.Float(
        allow_none=True,
        required=True,
        metadata={"description": "When your clocked turn times out (Unix seconds)."},
    )
    last = fields.Nested(LastEvent, allow_none=True, required=True)
    play = fields.String(required=True, metadata={"description": "The table's web page."})
    replay = fields.String(metadata={"description": "A finished game's hands, to replay."})
    result = fields.Nested(GameResult)
    rematch_of = fields.String()
    rematch = fields.String()


class Inbox(Schema):
    items = fields.List(fields.Nested(InboxGame), required=True)
    page = fields.Integer(required=True)
    page_size = fields.Integer(required=True)
    total = fields.Integer(required=True)
