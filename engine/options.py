"""Checking game options, shared by every game: presets, choices, flags, bounded integers.

Each game declares its options as a frozen dataclass plus an `OptionRules` table;
anything the table does not cover (a mapping, a suit order) the game checks itself.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.errors import InvalidOptions


@dataclass(frozen=True)
class OptionRules:
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    flags: frozenset[str] = frozenset()
    # name -> (minimum, maximum, may be null)
    integers: Mapping[str, tuple[int, int, bool]] = field(default_factory=dict)

    def covers(self, name: str) -> bool:
        return name in self.choices or name in self.flags or name in self.integers

    def check(self, name: str, value: Any) -> Any:
        """The value, or InvalidOptions naming `options.<name>` and what it must be."""
        where = f"options.{name}"
        if name in self.choices:
            if value not in self.choices[name]:
                raise InvalidOptions(where, f"must be one of {', '.join(self.choices[name])}")
        elif name in self.flags:
            if not isinstance(value, bool):
                raise InvalidOptions(where, "must be true or false")
        elif name in self.integers:
            low, high, nullable = self.integers[name]
            if value is None and nullable:
                return value
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidOptions(where, "must be an integer" + (" or null" if nullable else ""))
            if not low <= value <= high:
                raise InvalidOptions(where, f"must be between {low} and {high}")
        return value


def merged_options(
    presets: Mapping[str, Mapping[str, Any]],
    default_preset: str,
    preset: str | None,
    options: Any,
    names: tuple[str, ...],
    check: Callable[[str, Any], Any],
) -> dict[str, Any]:
    """The preset's options overridden by the explicit ones, every value checked."""
    name = default_preset if preset is None else preset
    if name not in presets:
        raise InvalidOptions("preset", f"unknown preset {name!r}; one of {', '.join(presets)}")
    if options is not None and not isinstance(options, dict):
        raise InvalidOptions("options", "must be an object")
    merged: dict[str, Any] = dict(presets[name])
    for key, value in (options or {}).items():
        if key not in names:
            raise InvalidOptions(f"options.{key}", "unknown option")
        merged[key] = value
    return {key: check(key, value) for key, value in merged.items()}


def recorded_options(data: Mapping[str, Any], added_later: Mapping[str, Any]) -> dict[str, Any]:
    """Options as a game's first event records them: every field except those added
    after games were recorded (`added_later`, with their defaults) while they hold their
    defaults, so that re-creating an older game (the audit does) gives back its event."""
    return {
        name: value
        for name, value in data.items()
        if name not in added_later or value != added_later[name]
    }
