"""What the browser tests share: Debian's chromium, window sizes, screenshots, API reads."""

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
TIMEOUT_MS = 20_000

NEEDS_CHROMIUM = pytest.mark.skipif(
    not os.path.exists(CHROMIUM),
    reason=f"no {CHROMIUM}: `apt-get install -y chromium` (.ci/run installs it)",
)


def screenshot(page, name: str, phone_too: bool = True) -> None:
    """A full-page screenshot at desktop size, and one at a phone's 390x844."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    if phone_too:
        page.set_viewport_size(PHONE)
        page.screenshot(path=str(ARTIFACTS / f"{name}-phone.png"), full_page=True)
        page.set_viewport_size(DESKTOP)


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def api_get(client, path: str, token: str | None = None) -> dict[str, Any]:
    response = client.get(path, headers=auth(token))
    assert response.status_code == 200, (path, response.get_json())
    return response.get_json()


def wait_version(page, version: int) -> None:
    """Until the table shows `version` or later, with no move of ours in flight."""
    page.wait_for_function(
        """(v) => { const t = document.querySelector('#table');
                   return Number(t.dataset.version) >= v && t.dataset.busy !== 'true'; }""",
        arg=version,
    )


def wait_step(page, step: int) -> None:
    """Until the replay viewer shows step `step`, loaded."""
    page.wait_for_function(
        """(k) => { const r = document.querySelector('#replay');
                   return Number(r.dataset.step) === k && r.dataset.loading === 'false'; }""",
        arg=step,
    )


def click_move(page, before: int, clicks: str | Callable[[], None]) -> None:
    """Make one move by clicks, then wait for the table to show a newer version (or an
    error, which fails the test with its text)."""
    if isinstance(clicks, str):
        page.click(clicks)
    else:
        clicks()
    page.wait_for_function(
        """(v) => { const t = document.querySelector('#table');
                   const e = document.querySelector('#error');
                   return (Number(t.dataset.version) > v && t.dataset.busy !== 'true')
                       || (!e.hidden && e.textContent); }""",
        arg=before,
    )
    error = page.locator("#error")
    assert not error.is_visible() or not error.text_content(), error.text_content()


# The table waits on us: our turn with no move in flight, or the game is over.
MY_TURN_OR_OVER = """() => {
    const t = document.querySelector('#table');
    return t.dataset.status === 'finished'
        || (t.dataset.myTurn === 'true' && t.dataset.busy !== 'true');
}"""
