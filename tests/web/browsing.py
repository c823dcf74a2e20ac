"""What the browser tests share: Debian's chromium, window sizes, screenshots, API reads."""

import os
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
