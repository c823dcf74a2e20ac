"""How a game is shown to one caller: its events numbered and told in a sentence, and
the whole game as a seat (or a spectator) may see it.

Redaction and sentences are the engine's (`engine.table.redact`, `.describe`); this
module adds what only the service knows: versions, the seats' names and clocks, the
table's status.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from engine import table as tables
from engine.contract import Event, Game
from service.repository import Loaded
from service.scheduler import ClockedTurn


def shown_event(
    game: Game[Any, Any],
    event: Event,
    seat: int | None,
    state: Any,
    version: int,
    names: Sequence[str],
) -> dict[str, Any]:
    """An event as `seat` may see it, numbered and told in a sentence (the engine's)."""
    redacted = tables.redact(game, event, seat, state)
    return {**redacted, "version": version, "description": tables.describe(game, redacted, names)}


def shown_events(
    loaded: Loaded, events: Sequence[Event], seat: int | None, first_version: int, state: Any
) -> list[dict[str, Any]]:
    names = loaded.table.names()
    return [
        shown_event(loaded.game, event, seat, state, first_version + index, names)
        for index, event in enumerate(events)
    ]


def game_view(
    loaded: Loaded, seat: int | None, clocked: Mapping[int, ClockedTurn]
) -> dict[str, Any]:
    """The game as `seat` sees it, with every seat's name, cards left, score and deadline."""
    view = loaded.game.view(loaded.state, seat)
    seats = loaded.table.public_seats()
    counts = view.get("hand_counts") or []
    scores = view.get("scores") or []
    for info in seats:
        number = info["seat"]
        if number < len(counts):
            info["hand_count"] = counts[number]
        if number < len(scores):
            info["score"] = scores[number]
        if number in clocked:
            info["deadline"] = clocked[number].deadline
    status = "finished" if loaded.game.is_finished(loaded.state) else loaded.table.status
    return {
        **view,
        "id": loaded.id,
        "game": loaded.table.game,
        "preset": loaded.table.preset,
        "options": loaded.state.options.as_dict(),
        "status": status,
        "version": loaded.version,
        "seats": seats,
        "seed_commitment": loaded.table.seed_commitment,
        "seed_source": loaded.table.seed_source,
    }
