"""Every test session plays with a third game, minitricks (tests/games), found the way any
separately installed game is found: its distribution's entry point in `cardtrail.games`.

tests/games holds the package and its `.dist-info`; on `sys.path`, `importlib.metadata`
finds the distribution. This runs before anything imports the service, whose schemas are
built from the registry when they are imported; PYTHONPATH carries the same directory to
the worker and server processes tests start.
"""

import os
import sys
from pathlib import Path

GAMES = str(Path(__file__).resolve().parent / "games")

if GAMES not in sys.path:
    sys.path.insert(0, GAMES)
_paths = [path for path in os.environ.get("PYTHONPATH", "").split(os.pathsep) if path]
if GAMES not in _paths:
    os.environ["PYTHONPATH"] = os.pathsep.join([*_paths, GAMES])

from engine import games  # noqa: E402  (after the path is set: the registry reads it)

games.refresh()
