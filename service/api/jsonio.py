"""The app's JSON answers, encoded by orjson.

Flask's own provider encodes with the standard library (keys sorted, ASCII only, a
space after each separator); this one gives the same values, keys sorted too, as
compact UTF-8, several times faster. What it cannot encode (an integer past 64 bits) or
encodes otherwise (dates, dataclasses: handed back to Flask's rules) goes the old way.

Only answers are encoded here. What the log and its hashes are made of is
`engine.ledger.canonical_json`, byte for byte as before: nothing here touches it.
"""

from typing import Any

import orjson
from flask import Flask, Response, current_app
from flask.json.provider import DefaultJSONProvider

OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_NON_STR_KEYS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
)


class OrjsonProvider(DefaultJSONProvider):
    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return self.dumpb(obj, **kwargs).decode()

    def dumpb(self, obj: Any, **kwargs: Any) -> bytes:
        """`obj` as JSON bytes; with any of `json.dumps`'s arguments, as it makes them."""
        if not kwargs:
            try:
                return orjson.dumps(obj, default=self.default, option=OPTIONS)
            except orjson.JSONEncodeError:
                pass  # e.g. an integer past 64 bits: the standard library writes it
        return super().dumps(obj, **kwargs).encode()

    def response(self, *args: Any, **kwargs: Any) -> Any:
        obj = self._prepare_response_obj(args, kwargs)
        if (self.compact is None and self._app.debug) or self.compact is False:
            return super().response(obj)  # indented, as Flask's provider has it
        return Response(self.dumpb(obj) + b"\n", mimetype=self.mimetype)


def init(app: Flask) -> None:
    app.json_provider_class = OrjsonProvider
    app.json = OrjsonProvider(app)


def dumpb(data: Any) -> bytes:
    """`data` as the current app's JSON bytes."""
    provider = current_app.json
    if isinstance(provider, OrjsonProvider):
        return provider.dumpb(data)
    return provider.dumps(data).encode()
