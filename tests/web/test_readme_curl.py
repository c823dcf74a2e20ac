"""README's "Play a game with curl" block, run as written by bash against the app served
over real HTTP: it must work whichever seat the deal makes move first.

The dealer is drawn from the server's seed, which nobody may choose; so that both cases
surely occur, the server here adds `first_dealer` to the block's create request (a
WSGI layer in front of the app), as a random seed would. The block itself is not
changed: `curl` fails on any 4xx/5xx answer (a function the test puts before the block),
and bash stops at the first failing command.
"""

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.web.browsing import api_get

README = Path(__file__).resolve().parents[2] / "README.md"
STRICT = 'curl() { command curl --fail-with-body "$@"; }\nset -euo pipefail\n'

pytestmark = pytest.mark.skipif(
    not (shutil.which("curl") and shutil.which("jq")),
    reason="the README's block needs curl and jq: `apt-get install -y curl jq` (.ci/run does)",
)


def readme_block() -> str:
    section = README.read_text().split("## Play a game with curl", 1)[1]
    found = re.search(r"```sh\n(.*?)```", section, re.S)
    assert found, "no ```sh block under 'Play a game with curl'"
    return found.group(1)


def choosing_the_dealer(inner, dealer: int | None):
    """The app, with `first_dealer` set in every POST /games body (None: left to the seed)."""

    def app(environ, start_response):
        creating = (environ["REQUEST_METHOD"], environ.get("PATH_INFO")) == ("POST", "/games")
        if dealer is not None and creating:
            body = json.loads(environ["wsgi.input"].read(int(environ["CONTENT_LENGTH"])))
            body.setdefault("options", {})["first_dealer"] = dealer
            raw = json.dumps(body).encode()
            environ["wsgi.input"], environ["CONTENT_LENGTH"] = io.BytesIO(raw), str(len(raw))
        return inner(environ, start_response)

    return app


def run_block(tmp_path: Path, server: str) -> subprocess.CompletedProcess:
    """The block in a fresh folder that has the README's `.venv` (this one)."""
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parent.parent)
    return subprocess.run(
        ["bash", "-c", STRICT + readme_block()],
        cwd=tmp_path,
        env={**os.environ, "SERVER": server},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("dealer", [0, 1, None], ids=["ann-deals", "bob-deals", "seed-deals"])
def test_the_readme_walk_through_runs_whoever_moves_first(tmp_path, web_app, live_server, dealer):
    web_app.wsgi_app = choosing_the_dealer(web_app.wsgi_app, dealer)
    done = run_block(tmp_path, live_server.url.removeprefix("http://"))
    assert done.returncode == 0, f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert "AUDIT PASSED" in done.stdout

    client = web_app.test_client()
    game_id = json.loads(done.stdout.splitlines()[0])["id"]
    game = api_get(client, f"/games/{game_id}")
    events = api_get(client, f"/games/{game_id}/events?after=0")["events"]
    moves = [(e["type"], e.get("seat")) for e in events if e.get("seat") is not None]
    first = (game["dealer"] + 1) % 2  # the seat after the dealer draws first
    if dealer is not None:
        assert game["dealer"] == dealer
    assert moves[:2] == [("card_drawn", first), ("discarded", first)]
    assert game["status"] == "finished" and game["result"]["winners"] == [0]  # bob resigned
    exported = (tmp_path / "game.jsonl").read_text().splitlines()
    assert len(exported) >= len(events)
