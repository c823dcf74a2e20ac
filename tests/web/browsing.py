"""What the browser tests share: Debian's chromium, window sizes, screenshots, API reads,
Rummy by clicks and the receipts a page keeps."""

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from engine import ledger

# Debian's chromium; CARDTRAIL_CHROMIUM names another path (a missing one shows how the
# suite reports a machine without it: tests/web/test_skip_summary.py).
CHROMIUM = os.environ.get("CARDTRAIL_CHROMIUM", "/usr/bin/chromium")
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

NO_CHROMIUM = f"no {CHROMIUM}: `apt-get install -y chromium` (.ci/run installs it)"
NEEDS_CHROMIUM = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=NO_CHROMIUM)


def screenshot(page, name: str, phone_too: bool = True) -> None:
    """A full-page screenshot at desktop size, and one at a phone's 390x844."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    if phone_too:
        page.set_viewport_size(PHONE)
        page.screenshot(path=str(ARTIFACTS / f"{name}-phone.png"), full_page=True)
        page.set_viewport_size(DESKTOP)


def watch_errors(page) -> list[str]:
    """Collect the page's uncaught exceptions and logged errors in `page.js_errors`. A
    refused request's 4xx ("Failed to load resource") is expected, not a page bug."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda msg: (
            errors.append(msg.text)
            if msg.type == "error" and not msg.text.startswith("Failed to load resource")
            else None
        ),
    )
    page.js_errors = errors
    return errors


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


# -- playing Rummy by clicks, briefly ------------------------------------------------------------


def select_cards(page, cards: list[str]) -> None:
    """Select `cards` in the shown hand (each copy once), by clicks."""
    for card in cards:
        page.locator(f'#hand [data-card="{card}"]:not(.selected)').first.click()
    assert int(page.get_attribute("#table", "data-selected")) == len(cards)


def _rummy_value(card: str) -> int:
    rank = card[:-1]
    return {"A": 1, "J": 11, "Q": 12, "K": 13}.get(rank) or (20 if card == "JK" else int(rank))


def play_rummy_by_clicks(page, client, game_id: str, token: str, deadline: float) -> int:
    """Our seat's Rummy turns by clicks until the game is over (draw from the stock, lay the
    longest meld there is, else discard the costliest card); returns how many moves we made.
    The other seats are bots, whose moves reach the page by its long-poll."""
    moves = 0
    while True:
        assert time.monotonic() < deadline, "the game took too long"
        page.wait_for_function(MY_TURN_OR_OVER, timeout=30_000)
        view = api_get(client, f"/games/{game_id}", token)
        wait_version(page, view["version"])
        if view["status"] == "finished":
            return moves
        legal = view["you"]["legal_moves"]
        if view["phase"] == "draw":
            target, cards = "#stock", []
        elif melds := [m for m in legal if m["type"] == "meld"]:
            target, cards = "#meld", max(melds, key=lambda m: len(m["cards"]))["cards"]
        else:
            discards = [m["card"] for m in legal if m["type"] == "discard"]
            target, cards = "#discard", [max(discards, key=_rummy_value)]

        def clicks(target=target, cards=cards):
            select_cards(page, cards)
            page.click(target)

        click_move(page, view["version"], clicks)
        moves += 1


# -- receipts ---------------------------------------------------------------------------------


def stored_receipts(page, game_id: str) -> list[dict[str, Any]]:
    """The receipts the page keeps of a game, read through api.js's own `receipts()` (and
    checked equal to what localStorage holds under the game's key)."""
    found = page.evaluate(
        """async (id) => {
            const { receipts } = await import('/assets/js/api.js');
            return { read: receipts(id),
                     raw: JSON.parse(localStorage.getItem('cardtrail:receipts:' + id) || '[]') };
        }""",
        game_id,
    )
    assert found["read"] == found["raw"]
    return found["read"]


def verify_receipt(receipt: dict[str, Any], keys: dict[str, bytes]) -> None:
    """The receipt's Ed25519 signature checks out against the server's listed key
    (`keys`: key id -> raw public key, from GET /keys); raises InvalidSignature if not."""
    message = ledger.receipt_message(
        receipt["game"], receipt["version"], receipt["hash"], receipt["key_id"]
    )
    public = Ed25519PublicKey.from_public_bytes(keys[receipt["key_id"]])
    public.verify(bytes.fromhex(receipt["signature"]), message)


def listed_keys(client) -> dict[str, bytes]:
    """GET /keys as key id -> raw public key."""
    return {k["key_id"]: bytes.fromhex(k["public_key"]) for k in api_get(client, "/keys")["keys"]}


# -- accessibility: axe-core, and the keyboard ---------------------------------------------------

SERIOUS = ("serious", "critical")


def serious_violations(page) -> list[dict[str, Any]]:
    """What axe-core (the script axe-playwright-python ships) finds on the page as it is now,
    of impact serious or critical: each rule's id, impact and summary, and the elements it
    names (CSS selectors)."""
    axe = pytest.importorskip(
        "axe_playwright_python.sync_playwright", reason="pip install -e '.[test]'"
    )
    found = axe.Axe().run(page).response["violations"]
    return [
        {
            "rule": violation["id"],
            "impact": violation["impact"],
            "help": violation["help"],
            "elements": [" >>> ".join(node["target"]) for node in violation["nodes"]],
        }
        for violation in found
        if violation["impact"] in SERIOUS
    ]


# Elements a keyboard user must be able to reach, when shown and enabled.
NATIVE = (
    "a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), "
    "select:not([disabled]), textarea:not([disabled]), summary"
)
FOCUSABLE = NATIVE + ", [tabindex]"


def focusable_controls(page) -> list[str]:
    """Every shown, enabled control (FOCUSABLE: a native one even with tabindex=-1, which
    Tab then misses), each marked with `data-tab-probe` and described by a short
    snippet, in document order."""
    return page.evaluate(
        """([selector, native]) => {
          for (const old of document.querySelectorAll('[data-tab-probe]')) {
            delete old.dataset.tabProbe;
          }
          return [...document.querySelectorAll(selector)]
            .filter(e => (e.tabIndex >= 0 || e.matches(native))
                         && e.checkVisibility({visibilityProperty: true})
                         && !e.closest('[inert]'))
            .map((e, i) => { e.dataset.tabProbe = String(i);
                             return e.outerHTML.replace(/>[^]*$/, '>').slice(0, 160); });
        }""",
        [FOCUSABLE, NATIVE],
    )


def tab_through(page, presses: int) -> set[int]:
    """Press Tab `presses` times from the top of the page; the probes focus landed on."""
    page.evaluate("() => { document.activeElement?.blur(); window.scrollTo(0, 0); }")
    reached: set[int] = set()
    for _ in range(presses):
        page.keyboard.press("Tab")
        probe = page.evaluate("() => document.activeElement?.dataset?.tabProbe ?? null")
        if probe is not None:
            reached.add(int(probe))
    return reached


def unreachable_by_tab(page, tries: int = 3) -> list[str]:
    """The controls (focusable_controls) that Tab never reaches in two rounds of the page.
    A page that draws itself anew meanwhile (a move arriving, a list refreshed) is gone
    round again, up to `tries` times."""
    for _ in range(tries):
        controls = focusable_controls(page)
        reached = tab_through(page, 2 * len(controls) + 4)
        still = page.evaluate("() => document.querySelectorAll('[data-tab-probe]').length")
        if still == len(controls):
            return [snippet for index, snippet in enumerate(controls) if index not in reached]
        page.wait_for_timeout(500)
    raise AssertionError(f"the page drew itself anew each of {tries} times Tab went round it")


def tab_to(page, selector: str, limit: int = 200) -> None:
    """Move the focus with Tab alone until it is on an element matching `selector`."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement?.matches(s) ?? false", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")
