"""The export: a whole game as JSON Lines (docs/export-format.md).

Line 1 is a header naming the format, the game id (the hash chain's start) and the
game; every further line is one event with its version, the command that opened
its batch (if it did) and its chain hash.
"""

import json
from collections.abc import Iterable, Iterator
from typing import Any

from replays.audit import EXPORT_FORMAT, EXPORT_FORMAT_VERSION


def export_lines(game_id: str, game: str, records: Iterable[Any]) -> Iterator[str]:
    yield json.dumps(
        {
            "format": EXPORT_FORMAT,
            "format_version": EXPORT_FORMAT_VERSION,
            "game_id": game_id,
            "game": game,
        },
        sort_keys=True,
    )
    for record in records:
        line: dict[str, Any] = {
            "version": record.version,
            "event": record.event,
            "hash": record.hash,
        }
        if record.command is not None:
            line["command"] = record.command
        yield json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
