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

# Every Flask test client checks each answer against the app's own /openapi.json
# (tests/openapi_check.py); a test that does not keep to the protocol on purpose says so
# with @pytest.mark.off_protocol("why").
import flask  # noqa: E402
import pytest  # noqa: E402

from tests.openapi_check import COLLECTOR, CheckedClient  # noqa: E402

flask.Flask.test_client_class = CheckedClient


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "off_protocol(reason): the test breaks the HTTP protocol on purpose, so its "
        "answers are not checked against /openapi.json",
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    COLLECTOR.begin()
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Fail a test whose answers broke the document, after it ran (all of them at once)."""
    try:
        result = yield
    finally:
        problems = COLLECTOR.end()
    if problems and item.get_closest_marker("off_protocol") is None:
        count = len(problems)
        shown = "\n\n".join(problems[:20])
        more = f"\n\n… and {count - 20} more" if count > 20 else ""
        pytest.fail(
            f"{count} answer(s) do not match /openapi.json:\n\n{shown}{more}", pytrace=False
        )
    return result
