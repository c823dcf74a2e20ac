"""Schemas of a game's record: receipts and signing keys, hands and replay steps, audits,
and the lines of an export."""

from marshmallow import RAISE, Schema, fields, validate

from replays.audit import EXPORT_FORMAT


class Receipt(Schema):
    """The server's signed word that the game was at `version` with chain hash `hash`
    (docs/audit.md): keep it to prove later what you were shown."""

    game = fields.String(required=True)
    version = fields.Integer(required=True)
    hash = fields.String(required=True)
    key_id = fields.String(required=True)
    signature = fields.String(required=True)


class SigningKey(Schema):
    key_id = fields.String(required=True)
    algorithm = fields.String(required=True)
    public_key = fields.String(required=True)  # raw Ed25519 public key, hex
    since = fields.Float()


class KeysOut(Schema):
    keys = fields.List(fields.Nested(SigningKey), required=True)


class AuditRequest(Schema):
    class Meta:
        unknown = RAISE

    # a player's receipts, as the API returned them; shape is checked by the audit,
    # which names the first receipt that fails
    receipts = fields.List(fields.Dict(), required=True, validate=validate.Length(0, 10_000))


class HandOut(Schema):
    number = fields.Integer(required=True)
    dealer = fields.Integer(required=True)
    first_version = fields.Integer(required=True)
    last_version = fields.Integer(required=True)
    steps = fields.Integer(required=True)
    finished = fields.Boolean(required=True)
    result = fields.Dict(allow_none=True)


class HandsOut(Schema):
    hands = fields.List(fields.Nested(HandOut), required=True)


class ReplayQuery(Schema):
    class Meta:
        unknown = RAISE

    step = fields.Integer(validate=validate.Range(0, 10**7))


class ReplayOut(Schema):
    hand = fields.Nested(HandOut, required=True)
    steps = fields.Integer(required=True)
    names = fields.List(fields.String(), required=True)
    face_up = fields.Boolean(required=True)
    step = fields.Integer()
    event = fields.Dict()
    state = fields.Dict()
    events = fields.List(fields.Dict())


class AuditOut(Schema):
    ok = fields.Boolean(required=True)
    game_id = fields.String(allow_none=True)
    game = fields.String(allow_none=True)
    events = fields.Integer()
    hands = fields.Integer()
    finished = fields.Boolean()
    deck_source = fields.String(allow_none=True)
    seed_source = fields.String(allow_none=True)
    provably_fair = fields.Boolean(required=True)
    receipts = fields.Integer()
    checks = fields.Dict(keys=fields.String(), values=fields.Boolean())
    first_bad = fields.Dict(allow_none=True)
    notes = fields.List(fields.String())


class ExportHeader(Schema):
    """The first line of an export (docs/export-format.md)."""

    format = fields.String(required=True, validate=validate.OneOf([EXPORT_FORMAT]))
    format_version = fields.Integer(required=True)
    game_id = fields.String(required=True)
    game = fields.String(required=True)
    keys = fields.List(fields.Nested(SigningKey))


class ExportRecord(Schema):
    """Every later line of an export: one event, with its command on a batch's first."""

    version = fields.Integer(required=True, validate=validate.Range(1))
    event = fields.Dict(required=True)
    hash = fields.String(required=True)
    command = fields.Dict()
