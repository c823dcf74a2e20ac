"""What the HTTP edge takes from a client, checked before anything else reads it.

Whatever a client sends is answered 4xx naming what was wrong, never 500:

- Integers in headers (If-Match, Last-Event-ID) are 1 to 18 ASCII digits, and nothing
  else. `str.isdigit()` and `int()` accept far more: "²" is a digit to `isdigit()` and not
  to `int()`, "٣" is 3 to both, and `int()` refuses more than 4,300 digits. 18 digits
  always fit a signed 64-bit integer, as Redis keeps them. A bad one is 400 naming the
  header.
- Tokens in headers (Idempotency-Key) are printable ASCII: a header arrives as bytes read
  as Latin-1, so anything else is mojibake, never what the client meant.
- No string anywhere in a JSON body, value or key at any depth, holds a lone surrogate
  (`"\\ud800"` is valid JSON, but no UTF-8 can encode it: hashing a seed with one, or
  storing it, failed deep inside). Every request schema derives from `Schema` here, and
  every body flask-smorest reads goes through `JsonParser`, so every field is covered,
  those added later too; each is 422 naming where it is.
- Seat names are text other players read in every sentence about the game: `Name`.
- A JSON number Python refuses to read (an integer of more than 4,300 digits) makes the
  body malformed JSON, 400, like any other (`JsonParser`).
"""

import json
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

import marshmallow
from marshmallow import ValidationError, fields, pre_load, validate
from webargs.flaskparser import FlaskParser, abort

from service.errors import BadRequest

MAX_HEADER_DIGITS = 18
_DIGITS = re.compile(rf"[0-9]{{1,{MAX_HEADER_DIGITS}}}")  # [0-9]: ASCII only, unlike \d
_DIGEST = re.compile("[0-9a-f]{1,64}")  # an ETag's part after its version
_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]+")

# -- headers ------------------------------------------------------------------------------


def _code(header: str) -> str:
    return "malformed_" + header.lower().replace("-", "_")


def header_integer(
    header: str, value: str | None, what: str = "a number", example: str = "12"
) -> int | None:
    """The integer a header holds (None when it is absent), or BadRequest naming it."""
    if value is None:
        return None
    text = value.strip(" \t")
    if not _DIGITS.fullmatch(text):
        detail = f"{header} must be {what}: 1 to {MAX_HEADER_DIGITS} digits 0-9, e.g. {example}."
        raise BadRequest(_code(header), detail, header)
    return int(text)


def version_tag(header: str, value: str | None) -> int | None:
    """The version an entity tag names (`"12"`, `W/"12"`, a bare 12, or a view's ETag
    `"12-3fa9…"`, which begins with the version it shows), None without the header;
    BadRequest naming the header for anything else (a list, `*`, "v2")."""
    if value is None:
        return None
    text = value.strip(" \t").removeprefix("W/")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1].strip(" \t")
        version, dash, digest = text.partition("-")
        if dash and _DIGEST.fullmatch(digest):
            text = version
    return header_integer(header, text, "a version", '"12"')


def last_event_id(value: str | None) -> int | None:
    """The version a Server-Sent Events client last saw; None when it sent none (an empty
    id is the protocol's way of saying none)."""
    if value is None or not value.strip(" \t"):
        return None
    return header_integer("Last-Event-ID", value, "the id of an event (its version)")


_NEWS_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")
_MAX_ID_PART = 2**64 - 1  # each half of a Redis stream id is an unsigned 64-bit number


def news_id(value: str | None) -> str | None:
    """Where a player's stream resumes: the id of the last notice seen (Last-Event-ID,
    e.g. `1764600000000-0`; `0-0` for all that is kept), or None without one."""
    if value is None or not value.strip(" \t"):
        return None
    text = value.strip(" \t")
    if not _NEWS_ID.fullmatch(text) or any(int(part) > _MAX_ID_PART for part in text.split("-")):
        detail = "Last-Event-ID must be the id of a notice, e.g. 1764600000000-0."
        raise BadRequest(_code("Last-Event-ID"), detail, "Last-Event-ID")
    return text


def header_token(header: str, value: str | None, max_length: int = 200) -> str | None:
    """A header holding an opaque token (Idempotency-Key): 1 to `max_length` printable
    ASCII characters, or BadRequest naming the header."""
    if value is None:
        return None
    if len(value) > max_length or not _PRINTABLE_ASCII.fullmatch(value):
        detail = f"{header}: 1 to {max_length} printable ASCII characters."
        raise BadRequest(_code(header), detail, header)
    return value


# -- text in bodies -----------------------------------------------------------------------

LONE_SURROGATE = "not valid Unicode: a lone surrogate (U+D800 to U+DFFF), which UTF-8 cannot encode"


def has_lone_surrogate(text: str) -> bool:
    """Whether UTF-8 cannot encode `text` (only a lone surrogate makes it so); ASCII, most
    of what arrives, is answered without encoding anything."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _shown(key: str) -> str:
    """A key as an error may name it: a lone surrogate spelled as its escape."""
    return key.encode("utf-8", "backslashreplace").decode("utf-8")


def _surrogates(data: Any) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(path, reason) of every string in a JSON value holding a lone surrogate. A loop
    over a stack rather than recursion: the JSON may be as deep as the parser allows."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str) and has_lone_surrogate(value):
            yield path, LONE_SURROGATE
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and has_lone_surrogate(key):
                    yield (*path, _shown(key)), "this key is " + LONE_SURROGATE
                else:
                    stack.append(((*path, key), item))
        elif isinstance(value, list):
            stack.extend(((*path, index), item) for index, item in enumerate(value))


def surrogate_messages(data: Any) -> dict[str | int, Any]:
    """Marshmallow's nested messages for every lone surrogate in `data` ({} for none):
    {"seats": {0: {"name": [reason]}}} names "seats.0.name" in the problem."""
    messages: dict[str | int, Any] = {}
    for path, reason in _surrogates(data):
        if not path:
            messages.setdefault("_schema", []).append(reason)
            continue
        node = messages
        for step in path[:-1]:
            node = node.setdefault(step, {})
        node[path[-1]] = [reason]
    return messages


class Schema(marshmallow.Schema):
    """The base of every request schema: a lone surrogate anywhere in the input is refused,
    naming each place, before any field reads it (harmless for answers: only loading
    runs it)."""

    @pre_load
    def refuse_lone_surrogates(self, data: Any, **kwargs: Any) -> Any:
        messages = surrogate_messages(data)
        if messages:
            raise ValidationError(messages)
        return data


# -- names --------------------------------------------------------------------------------

NAME_LENGTH = 40
_REFUSED = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character (such as a bidi override or a zero-width one)",
    "Co": "a private-use character",
    "Cn": "an unassigned code point",
    "Cs": "a lone surrogate",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}
# Letters and symbols that show nothing, used to make a name look blank or like another.
_BLANK = frozenset("\u034f\u115f\u1160\u2800\u3164\uffa0")


def _refusal(char: str) -> str | None:
    kind = _REFUSED.get(unicodedata.category(char))
    if kind is None and char in _BLANK:
        kind = "a character that shows nothing"
    if kind is None:
        return None
    named = unicodedata.name(char, "")
    return f"names may not contain U+{ord(char):04X}{f' {named}' if named else ''}, {kind}"


# The ends of the labels the server gives seats nobody named (table_records.Seat.label).
_LIKE_A_LABEL = re.compile(r"\((?:[^()]* bot|open|invited)\)$", re.IGNORECASE)


def seat_name(text: str) -> str:
    """A seat's name as every other player will read it, or ValidationError saying why not.

    NFC, so one name has one spelling; no character that is invisible, reorders the text
    around it (a bidi override would let "ann" end a sentence about someone else) or has
    no meaning yet. Whitespace is trimmed at the ends and each run of it inside becomes
    one space, so "ann", " ann" and "ann" with a no-break space are one name; and a name
    may not start with a combining mark, which would land on the text before it."""
    if has_lone_surrogate(text):
        raise ValidationError(LONE_SURROGATE)
    text = unicodedata.normalize("NFC", text)
    for char in text:
        if (refusal := _refusal(char)) is not None:
            raise ValidationError(refusal)
    text = " ".join(text.split())
    if text and unicodedata.category(text[0]).startswith("M"):
        raise ValidationError("names may not start with a combining mark")
    if _LIKE_A_LABEL.search(text):  # "West (strong bot)" is a bot's seat, not a person
        raise ValidationError('names may not end as the seats\' labels do: "(… bot)", "(open)"')
    return text


class Name(fields.String):
    """A seat's name (see `seat_name`), 1 to NAME_LENGTH characters once normalised."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("validate", validate.Length(1, NAME_LENGTH))
        super().__init__(**kwargs)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> str:
        return seat_name(super()._deserialize(value, attr, data, **kwargs))


# -- JSON bodies --------------------------------------------------------------------------


class JsonParser(FlaskParser):
    """webargs' parser for flask-smorest's arguments, holding every JSON body it reads to
    the rules above whatever schema then loads it (the record's own schemas, an audit's
    receipts, included): a lone surrogate anywhere is 422 naming where; a number Python
    refuses to read (an integer of more than 4,300 digits: `int()`'s guard against
    quadratic parsing) makes the body malformed JSON, 400, like any other, not a 500."""

    def load_json(self, req: Any, schema: marshmallow.Schema) -> Any:
        try:
            data = super().load_json(req, schema)
        except ValueError as error:
            if isinstance(error, json.JSONDecodeError | UnicodeDecodeError):
                raise
            reason = "Invalid JSON body: a number longer than the server reads (4,300 digits)."
            abort(400, exc=error, messages={"json": [reason]})
        messages = surrogate_messages(data)
        if messages:
            raise ValidationError(messages)  # webargs answers it 422, under "json"
        return data
