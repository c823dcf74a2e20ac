"""The export: a whole game as JSON Lines (docs/export-format.md).

Line 1 is a header naming the format, the game id (the hash chain's start) and the
game; every further line is one event with its version, the command that opened
its batch (if it did) and its chain hash.
"""

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from replays.audit import EXPORT_FORMAT, EXPORT_FORMAT_VERSION


def export_lines(
    game_id: str,
    game: str,
    records: Iterable[Any],
    keys: Sequence[Mapping[str, Any]] | None = None,
) -> Iterator[str]:
    """The header, then a line per record. `keys`: the public keys that sign the server's
    receipts, so that an auditor needs nothing from the server to check them."""
    header: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_FORMAT_VERSION,
        "game_id": game_id,
        "game": game,
    }
    if keys is not None:
        header["keys"] = [dict(key) for key in keys]
    yield json.dumps(header, sort_keys=True)
    for record in records:
        line: dict[str, Any] = {
            "version": record.version,
            "event": record.event,
            "hash": record.hash,
        }
        if record.command is not None:
            line["command"] = record.command
        yield json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
