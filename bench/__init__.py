"""Benchmarks: run as modules, e.g. `python -m bench.engine_bench`; never timed in tests."""

import json
from typing import Any


def report(result: dict[str, Any], as_json: bool) -> None:
    """Print one benchmark's figures: as one JSON line, or a name and value a line."""
    if as_json:
        print(json.dumps(result))
        return
    width = max(map(len, result), default=0) + 2
    for name, value in result.items():
        print(f"{name:{width}} {value}")
