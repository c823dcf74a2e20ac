"""A move's body, as the registered games declare their moves (`Game.commands`).

Each distinct move is one schema: its `type`, the fields it carries (required unless
`service.commands.optional`) and nothing else. A move several games declare alike is
one schema ("PlayMove"); when games declare one type with different fields, each gets
its own, named by game ("MinitricksPlayMove"), and the type maps to a schema that is
any of them. `MoveRequest` is the union of them all, told apart by `type`.

The body is checked twice. Here, before the game is loaded, against the moves of that
type (a type no game declares may carry nothing but its `type`, for the game to refuse);
then, once the game is known, `service.commands.check_shape` holds it to that game's own
move. So a field that belongs to another move, or another game's, is refused with a 422
naming it, and never reaches the audited log.
"""

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from flask import Request
from flask_smorest import abort
from marshmallow import Schema, ValidationError, fields, validate

from engine import games
from engine.contract import Game
from service.api import inputs
from service.api.schemas import kind_field
from service.commands import optional
from service.errors import BadRequest

REF = "#/components/schemas/"
# An example value of each kind of field (engine/contract.py), for the document's examples.
EXAMPLES: Mapping[str, Any] = {
    "card": "QH",
    "card_or_null": "QH",
    "cards": ["7H", "7S", "7D"],
    "card_list": ["7H"],
    "card_groups": [["7H", "7S", "7D"], ["2C", "3C", "4C"]],
    "int": 1,
    "int_or_null": 1,
    "bool": False,
    "int_list": [1],
    "cards_list": [["7H"]],
    "dicts": [{}],
    "dict_or_null": {},
    "str": "text",
    "str_or_null": "text",
    "list": [],
}


@dataclass(frozen=True)
class Shape:
    """One distinct move: its type, its fields by name (kinds) and the games that have it."""

    name: str
    type: str
    fields: tuple[tuple[str, str], ...]
    games: tuple[str, ...]  # display names
    schema: Schema

    def example(self) -> dict[str, Any]:
        values = {name: _example(kind) for name, kind in self.fields}
        return {"type": self.type, **values}


def _camel(text: str) -> str:
    return "".join(part.capitalize() for part in text.replace("-", "_").split("_"))


def _example(kind: str) -> Any:
    if kind.startswith("choice:"):
        return kind.removeprefix("choice:").split("|")[0]
    return EXAMPLES[kind]


def _schema(name: str, kind: str, declared: tuple[tuple[str, str], ...]) -> Schema:
    made: dict[str, fields.Field] = {
        "type": fields.String(required=True, validate=validate.OneOf([kind]))
    }
    for field_name, field_kind in declared:
        made[field_name] = kind_field(field_kind)
        made[field_name].required = not optional(field_kind)
    return inputs.Schema.from_dict(made, name=name)()


def shapes_of(registry: Iterable[Game[Any, Any]]) -> dict[str, list[Shape]]:
    """Every distinct move of the games, by type."""
    alike: dict[str, dict[tuple[tuple[str, str], ...], list[Game[Any, Any]]]] = {}
    for game in registry:
        for kind, declared in game.commands.items():
            key = tuple(sorted(declared.items()))
            alike.setdefault(kind, {}).setdefault(key, []).append(game)
    shapes: dict[str, list[Shape]] = {}
    for kind, variants in alike.items():
        for fields_of, having in variants.items():
            by_game = "".join(_camel(game.name) for game in having) if len(variants) > 1 else ""
            name = f"{by_game}{_camel(kind)}Move"
            shown = tuple(game.display_name for game in having)
            shape = Shape(name, kind, fields_of, shown, _schema(name, kind, fields_of))
            shapes.setdefault(kind, []).append(shape)
    return shapes


def union(shapes: Mapping[str, list[Shape]]) -> dict[str, dict[str, Any]]:
    """The document's move schemas: each shape, a schema per type several shapes share,
    and `MoveRequest`, one of them all with `type` as the discriminator."""
    documented: dict[str, dict[str, Any]] = {}
    mapping: dict[str, str] = {}
    for kind, variants in shapes.items():
        if len(variants) == 1:
            mapping[kind] = REF + variants[0].name
            continue
        group = f"{_camel(kind)}Move"
        documented[group] = {
            "description": f'A "{kind}" move: which of these applies is the game\'s (by its id).',
            "anyOf": [{"$ref": REF + shape.name} for shape in variants],
        }
        mapping[kind] = REF + group
    documented["MoveRequest"] = {
        "description": "One move. The game (known from its id) must have a move of this "
        "type, and the move carries exactly that move's fields: any other is refused (422).",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    return documented


SHAPES = shapes_of(games.get(name) for name in games.names())
_UNDECLARED = inputs.Schema.from_dict(
    {"type": fields.String(required=True, validate=validate.Length(1, 40))}, name="AnyMove"
)()


def register(spec: Any) -> None:
    """Put every move schema and `MoveRequest` in the document's components."""
    for variants in SHAPES.values():
        for shape in variants:
            described = {"description": f"{shape.type!r}: a move of {', '.join(shape.games)}."}
            spec.components.schema(shape.name, described, schema=shape.schema)
    for name, schema in union(SHAPES).items():
        spec.components.schema(name, schema)


def examples() -> dict[str, dict[str, Any]]:
    """One example body per move, for the document."""
    found: dict[str, dict[str, Any]] = {}
    for kind, variants in SHAPES.items():
        for shape in variants:
            label = kind if len(variants) == 1 else f"{kind} ({', '.join(shape.games)})"
            found[label.replace(" ", "_")] = {"summary": label, "value": shape.example()}
    return found


def load(data: Any) -> dict[str, Any]:
    """The move `data` holds, checked against the moves of its type (ValidationError)."""
    kind = data.get("type") if isinstance(data, dict) else None
    variants = SHAPES.get(kind, []) if isinstance(kind, str) else []
    if not variants:
        loaded: dict[str, Any] = _UNDECLARED.load(data)
        return loaded
    errors = []
    for shape in variants:
        try:
            loaded = shape.schema.load(data)
            return loaded
        except ValidationError as error:
            errors.append(error.messages)
    raise ValidationError(min(errors, key=len))


def from_request(request: Request) -> dict[str, Any]:
    """The move in a request's JSON body: 400 when the body is not JSON, 422 naming each
    field that does not fit (as flask-smorest's arguments answer)."""
    raw = request.get_data(cache=True)
    try:
        data = json.loads(raw) if raw else {}
    except ValueError:  # not JSON, not UTF-8, or a number too long to read
        raise BadRequest("malformed_json", "The body is not valid JSON.") from None
    try:
        return load(data)
    except ValidationError as error:
        abort(422, messages={"json": error.messages})
        raise  # abort raises; this line tells the type checker so
