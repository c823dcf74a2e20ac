"""Plain data for a game's frozen-dataclass states: `encode` to JSON values, `decode` back.

A state kept outside the process (a snapshot in Redis) must come back without trusting
what the stored bytes say about themselves. The bytes here are plain JSON and the class
alone decides what is read: `decode(cls, data)` walks the type hints of `cls` (and of the
dataclasses they name), accepts exactly the fields they declare with the types they
declare, and builds nothing but those classes. Anything else is a `CodecError`, so a
caller has one thing to catch and fall back from (the log is the truth).

The shapes a state may use: nested dataclasses (slots or not), `tuple[X, ...]` and fixed
`tuple[X, Y]`, `list[X]`, `dict[str, X]`, unions such as `X | None`, `str`, `int`,
`bool`, `float` and `Any` (JSON values as they are: events kept in a state). Tuples and
lists are JSON arrays; a `bool` is never an `int` nor the other way round.

A decoded instance is built the way the engine builds its states, so it is `==` to the
original and folds on identically: a plain frozen dataclass gets a fresh ordinary
`__dict__` (see `engine.frozen`); a slots class, or one that checks itself in
`__post_init__`, goes through its constructor. Decoders are compiled once per class.
"""

import dataclasses
import inspect
import math
import threading
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

from engine.frozen import new_object, set_attribute

__all__ = ["CodecError", "decode", "encode"]

T = TypeVar("T")
Decoder = Callable[[Any], Any]


class CodecError(ValueError):
    """Data that is not a state of the class (or a value that is not plain data).

    `path` names where, as dotted field names and indexes ("hand.hands.1.0")."""

    def __init__(self, reason: str, path: str = "") -> None:
        super().__init__(f"{path}: {reason}" if path else reason)
        self.reason = reason
        self.path = path

    def at(self, step: str | int) -> "CodecError":
        """The same error, one step further from the value that was wrong."""
        return CodecError(self.reason, f"{step}.{self.path}" if self.path else str(step))


# -- encoding ---------------------------------------------------------------------------


def encode(value: Any) -> Any:
    """`value` as JSON values: a dataclass as an object of every field, tuples as arrays."""
    try:
        return _encode(value)
    except RecursionError:
        raise CodecError("nested too deeply (or a value contains itself)") from None


# JSON scalars a value may hold as they are (a float must also be finite). Arrays and
# objects of these alone are checked and copied in C: most of a state is such leaves.
_LEAVES = frozenset({str, int, bool, type(None)})
_KEYS = frozenset({str})


def _encode(value: Any) -> Any:
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is tuple or kind is list:
        if _LEAVES.issuperset(map(type, value)):
            return list(value)
        return [_encode(item) for item in value]
    if kind is dict:
        if _KEYS.issuperset(map(type, value)) and _LEAVES.issuperset(map(type, value.values())):
            return dict(value)
        return {_key(key): _encode(item) for key, item in value.items()}
    if kind is float:
        return _finite(value)
    return {name: _encode(getattr(value, name)) for name in _field_names(kind)}


def _key(key: Any) -> str:
    if type(key) is not str:
        raise CodecError(f"an object key must be a string, not {_kind(key)}")
    return key


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise CodecError(f"{value!r} is not a JSON number")
    return value


_names: dict[type, tuple[str, ...]] = {}


def _field_names(kind: type) -> tuple[str, ...]:
    names = _names.get(kind)
    if names is None:
        if not dataclasses.is_dataclass(kind):
            raise CodecError(f"cannot encode {_kind_name(kind)}: not plain data")
        names = _names[kind] = tuple(field.name for field in dataclasses.fields(kind))
    return names


# -- decoding ---------------------------------------------------------------------------


def decode(cls: type[T], data: Any) -> T:
    """The instance of the dataclass `cls` that `data` (as `encode` made it) describes."""
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise CodecError(f"{cls!r} is not a dataclass")
    decoder = _compiled.get(cls) or _compile(cls)
    try:
        result: T = decoder(data)
    except RecursionError:
        raise CodecError("nested too deeply") from None
    return result


_compiled: dict[Any, Decoder] = {}
_lock = threading.Lock()


def _compile(hint: Any) -> Decoder:
    """Compile `hint` and every class it reaches; kept only when all of them compile."""
    with _lock:
        pending: dict[Any, Decoder] = {}
        decoder = _decoder(hint, pending)
        _compiled.update(pending)
        return decoder


def _decoder(hint: Any, pending: dict[Any, Decoder]) -> Decoder:
    try:
        known = _compiled.get(hint) or pending.get(hint)
    except TypeError:  # an unhashable hint (Literal of a list, say): not one of ours
        raise CodecError(f"unsupported type {hint!r}") from None
    if known is not None:
        return known
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _struct(hint, pending)  # registers itself: a class may refer to itself
    decoder = pending[hint] = _shaped(hint, pending)
    return decoder


def _shaped(hint: Any, pending: dict[Any, Decoder]) -> Decoder:
    """The decoder of a hint that is not a dataclass."""
    if hint is Any:
        return _json
    if hint in _SCALARS:
        return _SCALARS[hint]
    if hint is list:
        return _decoder(list[Any], pending)
    if hint is dict:
        return _decoder(dict[str, Any], pending)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union or origin is types.UnionType:
        return _union([_decoder(arg, pending) for arg in args], type(None) in args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _sequence(args[0], _decoder(args[0], pending), tuple)
        return _fixed_tuple([_decoder(arg, pending) for arg in args])
    if origin is list and len(args) == 1:
        return _sequence(args[0], _decoder(args[0], pending), list)
    if origin is dict and len(args) == 2 and args[0] is str:
        return _json_object if args[1] is Any else _mapping(_decoder(args[1], pending))
    raise CodecError(f"unsupported type {hint!r}")


def _struct(cls: type, pending: dict[Any, Decoder]) -> Decoder:
    """An object of exactly the fields of `cls`, each of its declared type, as a `cls`."""
    plan: list[tuple[str, Decoder]] = []
    build = _builder(cls)
    title = cls.__name__

    def decode_struct(data: Any) -> Any:
        if type(data) is not dict:
            raise CodecError(f"expected an object for {title}, got {_kind(data)}")
        if len(data) != len(plan):
            raise CodecError(_field_mismatch(title, [name for name, _ in plan], data))
        values = {}
        for name, field_decoder in plan:
            try:
                item = data[name]
            except KeyError:
                raise CodecError(_field_mismatch(title, [n for n, _ in plan], data)) from None
            try:
                values[name] = field_decoder(item)
            except CodecError as error:
                raise error.at(name) from None
        return build(values)

    pending[cls] = decode_struct
    try:
        hints = typing.get_type_hints(cls)
    except Exception as error:  # a hint naming what its module does not define
        raise CodecError(f"cannot read the type hints of {title}: {error}") from None
    for field in dataclasses.fields(cls):
        plan.append((field.name, _decoder(hints[field.name], pending)))
    return decode_struct


def _field_mismatch(title: str, names: list[str], data: dict[Any, Any]) -> str:
    missing = [name for name in names if name not in data]
    extra = sorted(repr(key) for key in data if key not in names)
    parts = [f"missing {', '.join(missing)}"] if missing else []
    parts += [f"unexpected {', '.join(extra)}"] if extra else []
    return f"{title} fields: {'; '.join(parts)}"


def _builder(cls: type) -> Callable[[dict[str, Any]], Any]:
    """How an instance is made: a fresh `__dict__` where the engine copies states that
    way, the constructor where fields live in slots or `__post_init__` checks them."""
    fields = dataclasses.fields(cls)
    in_slots = any(
        isinstance(inspect.getattr_static(cls, field.name, None), types.MemberDescriptorType)
        for field in fields
    )
    if cls.__dictoffset__ and not in_slots and not hasattr(cls, "__post_init__"):

        def install(values: dict[str, Any]) -> Any:
            instance: Any = new_object(cls)
            set_attribute(instance, "__dict__", values)
            return instance

        return install
    if not all(field.init for field in fields):
        raise CodecError(f"{cls.__name__} has fields its constructor does not take")

    def construct(values: dict[str, Any]) -> Any:
        try:
            return cls(**values)
        except (TypeError, ValueError) as error:
            raise CodecError(f"{cls.__name__} refused the values: {error}") from None

    return construct


def _union(options: list[Decoder], nullable: bool) -> Decoder:
    others = [option for option in options if option is not _none]
    if nullable and len(others) == 1:
        inner = others[0]

        def decode_optional(data: Any) -> Any:
            return None if data is None else inner(data)

        return decode_optional

    def decode_union(data: Any) -> Any:
        reasons = []
        for option in options:
            try:
                return option(data)
            except CodecError as error:
                reasons.append(str(error))
        raise CodecError("matches no type of the union: " + " | ".join(reasons))

    return decode_union


def _sequence(hint: Any, item: Decoder, make: type) -> Decoder:
    """A JSON array as a tuple or a list; scalars are only checked (the common case)."""
    scalar = hint if hint in (str, int, bool) else None
    only = frozenset({scalar})

    def decode_sequence(data: Any) -> Any:
        if type(data) is not list:
            raise CodecError(f"expected an array, got {_kind(data)}")
        if scalar is not None:
            if only.issuperset(map(type, data)):
                return make(data)
            index, value = next((i, v) for i, v in enumerate(data) if type(v) is not scalar)
            raise CodecError(_expected(scalar, value), str(index))
        try:
            return make([item(value) for value in data])
        except CodecError:
            for index, value in enumerate(data):
                try:
                    item(value)
                except CodecError as error:
                    raise error.at(index) from None
            raise

    return decode_sequence


def _fixed_tuple(items: list[Decoder]) -> Decoder:
    def decode_fixed(data: Any) -> Any:
        if type(data) is not list or len(data) != len(items):
            raise CodecError(f"expected an array of {len(items)}, got {_kind(data)}")
        values = []
        for index, (item, value) in enumerate(zip(items, data, strict=True)):
            try:
                values.append(item(value))
            except CodecError as error:
                raise error.at(index) from None
        return tuple(values)

    return decode_fixed


def _mapping(item: Decoder) -> Decoder:
    def decode_mapping(data: Any) -> Any:
        if type(data) is not dict:
            raise CodecError(f"expected an object, got {_kind(data)}")
        values = {}
        for key, value in data.items():
            if type(key) is not str:
                raise CodecError(f"an object key must be a string, not {_kind(key)}")
            try:
                values[key] = item(value)
            except CodecError as error:
                raise error.at(key) from None
        return values

    return decode_mapping


def _json(data: Any) -> Any:
    """A JSON value as it is (a fresh copy of its arrays and objects), or CodecError."""
    kind = type(data)
    if kind in _LEAVES:
        return data
    if kind is list:
        if _LEAVES.issuperset(map(type, data)):
            return list(data)
        return [_json(value) for value in data]
    if kind is dict:
        return _json_object(data)
    if kind is float:
        return _finite(data)
    raise CodecError(f"not a JSON value: {_kind(data)}")


def _json_object(data: Any) -> Any:
    """`dict[str, Any]`: a JSON object as it is (a fresh copy), or CodecError."""
    if type(data) is not dict:
        raise CodecError(f"expected an object, got {_kind(data)}")
    if not _KEYS.issuperset(map(type, data)):
        raise CodecError("an object key must be a string")
    if _LEAVES.issuperset(map(type, data.values())):
        return dict(data)
    return {key: _json(value) for key, value in data.items()}


def _scalar(kind: type) -> Decoder:
    def decode_scalar(data: Any) -> Any:
        if type(data) is not kind:
            raise CodecError(_expected(kind, data))
        return data

    return decode_scalar


def _float(data: Any) -> Any:
    if type(data) is float:
        return _finite(data)
    if type(data) is int:  # JSON writes 2.0 as 2.0, but a float field may hold an int
        return data
    raise CodecError(_expected(float, data))


def _none(data: Any) -> Any:
    if data is not None:
        raise CodecError(f"expected null, got {_kind(data)}")
    return None


_SCALARS: dict[Any, Decoder] = {
    str: _scalar(str),
    int: _scalar(int),
    bool: _scalar(bool),
    float: _float,
    type(None): _none,
}


def _expected(kind: type, data: Any) -> str:
    return f"expected {kind.__name__}, got {_kind(data)}"


def _kind(data: Any) -> str:
    return "null" if data is None else _kind_name(type(data))


def _kind_name(kind: type) -> str:
    return getattr(kind, "__qualname__", repr(kind))
