"""Marshmallow schemas for every request and response body (the record's own, receipts,
replays and audits, are in `record_schemas`, and named here too).

They describe the HTTP contract generically: a game's own fields are read from the
registry (`kind_field` turns a declared kind into a field; moves, one schema per move,
are in `moves`); what a move means is the engine's business.
"""

import re
from collections.abc import Callable
from typing import Any

from marshmallow import RAISE, ValidationError, fields, validate, validates_schema

from engine import InvalidCard, games
from engine.cards import parse_card
from service.api.inputs import Name, Schema  # Schema: refuses lone surrogates anywhere
from service.api.record_schemas import (  # noqa: F401 - the API's schemas are all here
    AuditOut,
    AuditRequest,
    ExportHeader,
    ExportRecord,
    HandOut,
    HandsOut,
    KeysOut,
    Receipt,
    ReplayOut,
    ReplayQuery,
    SigningKey,
)
from service.tables import STATUSES

# Every registered game's bot levels; a level the chosen game lacks is refused when the
# game is created (service.seating), naming the seat.
BOT_LEVELS = tuple(dict.fromkeys(level for name in games.names() for level in games.get(name).bots))


# A card as the engine reads it (engine.cards.parse_card): a rank and a suit, or a joker,
# in either case, with white space around it allowed. The document gives this pattern, and
# a card outside it is refused even where Python would still read it ("10\u017f": the long
# s is "S" in upper case), so the document and the server agree.
CARD_PATTERN = r"^[ \t\n\r\f\v]*(?:(?:[2-9AaJjQqKk]|10)[CcDdHhSs]|[Jj][KkLl])[ \t\n\r\f\v]*$"
_CARD = re.compile(CARD_PATTERN)


class Card(fields.String):
    """A card in cardtrail notation, e.g. "10H", "QS", "JK"."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs["metadata"] = {"pattern": CARD_PATTERN, **kwargs.get("metadata", {})}
        super().__init__(**kwargs)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            card = parse_card(text)
        except InvalidCard as error:
            raise ValidationError(str(error)) from None
        if _CARD.fullmatch(text) is None:
            raise ValidationError(f"{text!r} is not a card in the notation ({CARD_PATTERN})")
        return card


# Names are what docs/inputs.md says (`inputs.seat_name`): more than a pattern can say, so
# the document names the rule as a format of its own.
NAME_DOC = {"format": "seat-name", "description": "A seat's name (docs/inputs.md)."}


class SeatRequest(Schema):
    """A seat: exactly one of a person's `name`, a `bot`, `open: true`, your own seat
    (`me: true`, with your player's credential: bound to your account) or one kept for
    the `player` named (the document says so with a oneOf: `openapi.SEAT_IS_ONE_OF`)."""

    name = Name(metadata=NAME_DOC)
    bot = fields.String(validate=validate.OneOf(BOT_LEVELS))
    open = fields.Boolean(truthy={True}, falsy={False})
    me = fields.Boolean(
        truthy={True},
        falsy={False},
        metadata={"description": "Your own seat: needs your credential."},
    )
    player = Name(
        metadata={**NAME_DOC, "description": "Invite this player: the seat is kept for them."}
    )
    client_seed = fields.String(validate=validate.Length(1, 200))
    webhook = fields.String(validate=validate.Length(1, 2000))

    @validates_schema
    def exactly_one(self, data: dict[str, Any], **kwargs: Any) -> None:
        given = [k for k in ("name", "bot", "open", "me", "player") if data.get(k)]
        if len(given) != 1:
            raise ValidationError(
                'give exactly one of "name", "bot", "player", "open": true or "me": true'
            )


class CreateGameRequest(Schema):
    game = fields.String(load_default=games.DEFAULT_GAME, validate=validate.OneOf(games.names()))
    preset = fields.String(allow_none=True, validate=validate.Length(1, 40))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seats = fields.List(fields.Nested(SeatRequest), required=True, validate=validate.Length(1, 8))
    seed = fields.String(validate=validate.Length(1, 200))
    deck = fields.List(Card(), validate=validate.Length(1, 120))


class SeatOut(Schema):
    seat = fields.Integer(required=True)
    label = fields.String(
        required=True,
        metadata={"description": "What a person reads for the seat, as sentences call it: a "
                  "person's name, else the game's name for the seat (counted from 1, or a place) "
                  "and who is there: \"West (strong bot)\", \"Seat 2 (open)\", \"bob (invited)\"."},
    )  # fmt: skip
    name = fields.String()
    bot = fields.String()
    open = fields.Boolean()
    player = fields.String(
        metadata={"description": "The id of the player bound to the seat, or awaited at it."}
    )
    invited = fields.String(
        metadata={"description": "The name of the player the seat is kept for until they join."}
    )
    token = fields.String()
    webhook_secret = fields.String()
    hand_count = fields.Integer()
    deadline = fields.Float()
    score = fields.Integer()


class CreatedGame(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    seats = fields.List(fields.Nested(SeatOut), required=True)
    seed_commitment = fields.String(required=True)  # SHA-256 of the server seed, hex
    seed_source = fields.String(required=True)  # "server", or "client" on a testing server
    receipt = fields.Nested(Receipt)


class JoinRequest(Schema):
    name = Name(
        metadata={**NAME_DOC, "description": "Required without a player's credential; with "
                  "one, the seat carries the player's own name."}
    )  # fmt: skip
    seat = fields.Integer(strict=True, validate=validate.Range(0, 7))
    client_seed = fields.String(validate=validate.Length(1, 200))
    webhook = fields.String(validate=validate.Length(1, 2000))


class Joined(Schema):
    seat = fields.Integer(required=True)
    token = fields.String(required=True)
    version = fields.Integer(required=True)
    seed_commitment = fields.String(required=True)
    webhook_secret = fields.String()
    receipt = fields.Nested(Receipt)


class ListQuery(Schema):
    class Meta:
        unknown = RAISE

    status = fields.String(validate=validate.OneOf(STATUSES))
    page = fields.Integer(load_default=1, validate=validate.Range(1, 100_000))
    page_size = fields.Integer(load_default=20, validate=validate.Range(1, 100))


class GameSummary(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    preset = fields.String(allow_none=True)
    status = fields.String()
    created = fields.Float()
    seats = fields.List(fields.Nested(SeatOut))
    rematch_of = fields.String()
    rematch = fields.String()


class GameList(Schema):
    items = fields.List(fields.Nested(GameSummary), required=True)
    page = fields.Integer(required=True)
    page_size = fields.Integer(required=True)
    total = fields.Integer(required=True)


class You(Schema):
    seat = fields.Integer(required=True)
    hand = fields.List(fields.String(), required=True)
    # true while the seat's own cards are still face down (games where one may act unseen)
    hand_hidden = fields.Boolean()
    legal_moves = fields.List(fields.Dict(), required=True)


def kind_field(kind: str) -> fields.Field:
    """The marshmallow field for a kind a game declares (see engine/contract.py)."""
    if kind.startswith("choice:"):
        return fields.String(validate=validate.OneOf(kind.removeprefix("choice:").split("|")))
    made: dict[str, Callable[[], fields.Field]] = {
        "card": lambda: Card(),
        "card_or_null": lambda: Card(allow_none=True),
        "cards": lambda: fields.List(Card(), validate=validate.Length(1, 20)),
        "card_list": lambda: fields.List(fields.String()),
        "card_groups": lambda: fields.List(
            fields.List(Card(), validate=validate.Length(1, 20)), validate=validate.Length(1, 10)
        ),
        "int": lambda: fields.Integer(strict=True),
        "int_or_null": lambda: fields.Integer(strict=True, allow_none=True),
        "bool": lambda: fields.Boolean(truthy={True}, falsy={False}),
        "int_list": lambda: fields.List(fields.Integer()),
        "cards_list": lambda: fields.List(fields.List(fields.String())),
        "dicts": lambda: fields.List(fields.Dict()),
        "dict_or_null": lambda: fields.Dict(allow_none=True),
        "str_or_null": lambda: fields.String(allow_none=True),
        "str": lambda: fields.String(),
        "list": lambda: fields.List(fields.Raw()),
    }
    return made[kind]()


def _union(attribute: str) -> dict[str, fields.Field]:
    """Every registered game's extra fields; one name must mean one kind across games."""
    kinds: dict[str, str] = {}
    for name in games.names():
        for field_name, kind in getattr(games.get(name), attribute).items():
            known = kinds.get(field_name)
            if known and known != kind:
                if known.startswith("choice:") and kind.startswith("choice:"):
                    merged = sorted(set(known[7:].split("|")) | set(kind[7:].split("|")))
                    kind = "choice:" + "|".join(merged)
                else:
                    raise TypeError(f"{field_name!r} is {known} in one game, {kind} in another")
            kinds[field_name] = kind
    return {field_name: kind_field(kind) for field_name, kind in kinds.items()}


GameView = Schema.from_dict(
    {
        "id": fields.String(required=True),
        "game": fields.String(required=True),
        "preset": fields.String(allow_none=True),
        "options": fields.Dict(required=True),
        "status": fields.String(required=True),
        "version": fields.Integer(required=True),
        "players": fields.Integer(),
        "seats": fields.List(fields.Nested(SeatOut), required=True),
        "hand_number": fields.Integer(),
        "hands_played": fields.Integer(),
        "dealer": fields.Integer(allow_none=True),
        "turn": fields.Integer(allow_none=True),
        "phase": fields.String(allow_none=True),
        "scores": fields.List(fields.Integer()),
        "you": fields.Nested(You),
        "seed_commitment": fields.String(required=True),
        "seed_source": fields.String(required=True),
        "receipt": fields.Nested(Receipt),
        "rematch_of": fields.String(metadata={"description": "The game this one rematches."}),
        "rematch": fields.String(metadata={"description": "The rematch offered after it."}),
        **_union("view_fields"),
    },
    name="GameView",
)


class Health(Schema):
    ok = fields.Boolean(required=True)


class EventsOut(Schema):
    version = fields.Integer(required=True)
    events = fields.List(fields.Dict(), required=True)
    receipt = fields.Nested(Receipt)


class EventsQuery(Schema):
    class Meta:
        unknown = RAISE

    after = fields.Integer(load_default=0, validate=validate.Range(0, 10**9))
    wait = fields.Float(load_default=0, validate=validate.Range(0, 30))


class ProblemField(Schema):
    """One input to blame: a body field ("seats.1.bot"), a query or header name, or null
    for the body as a whole."""

    field = fields.String(required=True, allow_none=True)
    reason = fields.String(required=True)


class Problem(Schema):
    """RFC 9457 problem details, as every error is answered (application/problem+json)."""

    type = fields.String(required=True, metadata={"format": "uri"})
    title = fields.String(required=True)
    status = fields.Integer(required=True, validate=validate.Range(400, 599))
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"description": "stable, for programs"})
    errors = fields.List(fields.Nested(ProblemField))
