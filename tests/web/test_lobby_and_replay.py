"""The lobby and the replay viewer in a real headless Chromium.

The lobby: one click plays Rummy or Spades against the computer (a bot seat, the table
opened); the full form is folded behind More options, where a move time makes a clocked
game; the game lists follow other clients' games by themselves (polling with ETags, 304
while nothing changed, paused in a hidden tab). The replay viewer: every heading stands
out from its own background (contrast computed from the computed colours) with the light
and the dark colour scheme; a spectator opening a hand still in play is told so, with the
controls off; the keys step by move, by turn and by trick (Spades); a step's link opens
that step. Screenshots at 1280x800 and 390x844 go to test-artifacts/.
"""

import time
from pathlib import Path
from typing import Any

import pytest

from tests.web.browsing import (
    ARTIFACTS,
    NEEDS_CHROMIUM,
    TIMEOUT_MS,
    api_get,
    wait_step,
    watch_errors,
)

pytestmark = NEEDS_CHROMIUM

WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
POLL_SECONDS = 3  # lobbylists.js's POLL_MS
AA_TEXT = 4.5  # WCAG 2 AA, normal-size text


@pytest.fixture
def wide(browser):
    """A page at 1280x800 collecting its errors."""
    context = browser.new_context(viewport=WIDE)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    watch_errors(page)
    yield page
    context.close()


def shots(page, name: str) -> None:
    """Full-page screenshots at 1280x800 and 390x844, then back to 1280x800."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}-1280x800.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(ARTIFACTS / f"{name}-390x844.png"), full_page=True)
    page.set_viewport_size(WIDE)


def open_lobby(page, base: str) -> None:
    page.goto(base + "/")
    page.wait_for_selector('#list-live[data-live="open"]')


def table_token(page, game_id: str) -> str | None:
    return page.evaluate("(id) => localStorage.getItem('cardtrail.token.' + id)", game_id)


# -- the lobby ------------------------------------------------------------------------------------


def test_one_click_plays_rummy_then_spades_against_the_computer(
    wide, live_server, web_app, bot_worker
):
    client = web_app.test_client()
    open_lobby(wide, live_server.url)
    assert wide.evaluate("document.querySelector('#more-options').open") is False
    assert not wide.is_visible("#create")  # the full form is folded away
    assert wide.input_value("#quick-level") == "strong"
    shots(wide, "lobby")
    wide.fill("#quick-name", "ann")
    wide.click("#quick-rummy")
    wide.wait_for_url("**/play/*")
    game_id = wide.url.rsplit("/", 1)[1]
    token = table_token(wide, game_id)
    view = api_get(client, f"/games/{game_id}", token)
    assert (view["game"], view["preset"], view["status"]) == ("rummy", "pagat", "playing")
    assert [s.get("name") or s.get("bot") for s in view["seats"]] == ["ann", "strong"]
    assert view["you"]["seat"] == 0
    wide.wait_for_selector('#table[data-game="rummy"]')
    # The bot is live: whoever was dealt the first turn, it comes to us.
    wide.wait_for_selector('#table[data-my-turn="true"]')

    # Back in the lobby the name is remembered: one click again, Spades in pairs.
    open_lobby(wide, live_server.url)
    assert wide.input_value("#quick-name") == "ann"
    mine = wide.locator(f'#games-playing [data-game-id="{game_id}"] a', has_text="Play")
    assert mine.get_attribute("href") == f"/play/{game_id}"
    wide.click("#quick-spades")
    wide.wait_for_url("**/play/*")
    spades_id = wide.url.rsplit("/", 1)[1]
    view = api_get(client, f"/games/{spades_id}", table_token(wide, spades_id))
    assert (view["game"], view["preset"]) == ("spades", "pairs")
    assert [s.get("name") or s.get("bot") for s in view["seats"]] == ["ann"] + ["strong"] * 3
    wide.wait_for_selector('#table[data-game="spades"]')
    assert wide.js_errors == []


def test_one_click_when_logged_in_takes_your_own_seat(wide, live_server, web_app):
    client = web_app.test_client()
    base = live_server.url
    signed = wide.request.post(
        f"{base}/players", data={"name": "zoe", "password": "long enough pw"}
    )
    assert signed.status == 201, signed.text()
    logged = wide.request.post(
        f"{base}/session", data={"name": "zoe", "password": "long enough pw"}
    )
    assert logged.ok, logged.text()
    open_lobby(wide, base)
    wide.wait_for_selector("#quick-as:not([hidden])")
    assert "zoe" in wide.text_content("#quick-as")
    assert not wide.is_visible("#quick-name")
    wide.click("#quick-rummy")
    wide.wait_for_url("**/play/*")
    game_id = wide.url.rsplit("/", 1)[1]
    assert table_token(wide, game_id) is None  # the session cookie plays the seat
    seats = api_get(client, f"/games/{game_id}")["seats"]
    assert seats[0]["name"] == "zoe" and seats[0]["player"].startswith("p_")
    assert seats[1]["bot"] == "strong"
    assert wide.js_errors == []


def test_more_options_is_closed_and_its_move_time_makes_a_clocked_game(wide, live_server, web_app):
    client = web_app.test_client()
    open_lobby(wide, live_server.url)
    assert wide.evaluate("document.querySelector('#more-options').open") is False
    assert not wide.is_visible("#move-time")
    wide.click("#more-options > summary")
    assert wide.is_visible("#move-time") and wide.is_visible("#create")
    assert wide.is_disabled("#on-timeout")  # no clock, no time-out
    times = wide.eval_on_selector_all("#move-time option", "os => os.map(o => o.value)")
    assert times == ["", "30s", "2m", "15m", "1h", "24h", "3d"]
    wide.select_option("#move-time", "2m")
    assert wide.is_enabled("#on-timeout")
    wide.select_option("#on-timeout", "forfeit")
    wide.fill("#seats .seat-row:nth-child(1) .seat-name", "ann")
    assert wide.input_value("#seats .seat-row:nth-child(2) .seat-kind") == "bot"
    shots(wide, "lobby-more-options")
    asked = time.time()
    wide.click("#create")
    wide.wait_for_url("**/play/*")
    game_id = wide.url.rsplit("/", 1)[1]
    created = api_get(client, f"/games/{game_id}/events?after=0")["events"][0]
    assert created["clock"]["move_time"] == "2m" and created["clock"]["seconds"] == 120
    assert created["clock"]["on_timeout"] == "forfeit"
    view = api_get(client, f"/games/{game_id}")
    deadline = view["seats"][view["turn"]]["deadline"]
    assert asked + 110 < deadline < time.time() + 121  # the turn's clock is running
    assert wide.js_errors == []


def test_the_lists_follow_other_clients_without_a_reload(wide, live_server, web_app):
    client = web_app.test_client()
    statuses: list[int] = []
    wide.on(
        "response",
        lambda r: statuses.append(r.status) if "/games?status=" in r.url else None,
    )
    open_lobby(wide, live_server.url)
    wide.evaluate("() => { window.sameDocument = true; }")
    assert wide.text_content("#games-waiting") == "None yet."
    # Another client opens a table with a free seat: it appears by itself.
    created = client.post("/games", json={"seats": [{"name": "cy"}, {"open": True}]})
    game_id = created.get_json()["id"]
    waiting = f'#games-waiting [data-game-id="{game_id}"]'
    wide.wait_for_selector(waiting, timeout=(POLL_SECONDS + 5) * 1000)
    assert "cy" in wide.text_content(waiting)
    shots(wide, "lobby-lists")
    assert "2 Seat 2 (open)" in wide.text_content(f"{waiting} .game-seats")  # seats from 1
    # Someone takes the seat: the game moves to In progress.
    assert client.post(f"/games/{game_id}/join", json={"name": "di"}).status_code == 201
    wide.wait_for_selector(f'#games-playing [data-game-id="{game_id}"]')
    wide.wait_for_selector(waiting, state="detached")
    assert wide.evaluate("() => window.sameDocument") is True  # no reload
    assert 304 in statuses  # unchanged lists cost no body

    # A hidden tab does not ask; shown again, it asks at once and catches up.
    wide.evaluate(
        """() => {
            Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
            document.dispatchEvent(new Event('visibilitychange'));
        }"""
    )
    wide.wait_for_selector('#list-live[data-live="paused"]')
    time.sleep(0.5)  # a request in flight when the tab hid lands
    before = len(statuses)
    later = client.post("/games", json={"seats": [{"name": "ed"}, {"open": True}]})
    time.sleep(POLL_SECONDS * 2 + 0.5)
    assert len(statuses) == before
    wide.evaluate(
        """() => {
            Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
            document.dispatchEvent(new Event('visibilitychange'));
        }"""
    )
    wide.wait_for_selector(
        f'#games-waiting [data-game-id="{later.get_json()["id"]}"]', timeout=2000
    )
    assert wide.js_errors == []


# -- the replay viewer ----------------------------------------------------------------------------


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def chosen(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Any legal move but giving up: look before bidding, draw from the stock."""
    for kind in ("look", "draw"):
        if found := [m for m in legal if m["type"] == kind and m.get("source", "stock") == "stock"]:
            return found[0]
    return next(m for m in legal if m["type"] != "forfeit")


def play_hands(client, game_id: str, tokens: list[str], hands: int) -> None:
    """Every seat's moves through the API until `hands` hands are over (or the game is)."""
    for _ in range(2000):
        view = api_get(client, f"/games/{game_id}")
        if view["status"] != "playing" or view["hands_played"] >= hands:
            return
        seat = view["turn"]
        legal = api_get(client, f"/games/{game_id}", tokens[seat])["you"]["legal_moves"]
        answer = client.post(
            f"/games/{game_id}/moves", json=chosen(legal), headers=auth(tokens[seat])
        )
        assert answer.status_code == 200, answer.get_json()
    raise AssertionError("the hands did not end")


def new_game(client, game: str, players: int, options: dict[str, Any]) -> tuple[str, list[str]]:
    seats = [{"name": name} for name in ("ann", "bob", "cy", "di")[:players]]
    created = client.post("/games", json={"game": game, "options": options, "seats": seats})
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    return body["id"], [seat["token"] for seat in body["seats"]]


def replay_events(client, game_id: str, hand: int = 1) -> list[dict[str, Any]]:
    return api_get(client, f"/games/{game_id}/hands/{hand}/replay")["events"]


# The contrast of each visible heading against the background it is drawn on, computed in
# the page from the computed colours (tests/web/contrast.js).
CONTRASTS = (Path(__file__).parent / "contrast.js").read_text()
HEADINGS = ", ".join(
    f"#replay {tag}"
    for tag in ("h1", "h2", "h3", "th", "summary", "legend", ".pile-label", ".trick-name")
)


def low_contrast(page) -> list[dict[str, Any]]:
    found = page.evaluate(CONTRASTS, HEADINGS)
    assert found, "no heading measured"
    return [entry for entry in found if entry["ratio"] < AA_TEXT]


@pytest.fixture
def finished_games(web_app):
    """A one-hand Rummy game and a one-hand Spades game, both over (played through the API)."""
    client = web_app.test_client()
    rummy, rummy_tokens = new_game(client, "rummy", 2, {"game_end": "deals", "deals": 1})
    play_hands(client, rummy, rummy_tokens, 1)
    spades, spades_tokens = new_game(client, "spades", 4, {"max_hands": 1})
    play_hands(client, spades, spades_tokens, 1)
    for game_id in (rummy, spades):
        assert api_get(client, f"/games/{game_id}")["status"] == "finished"
    return {"rummy": rummy, "spades": spades}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_replay_headings_stand_out_in_light_and_dark(wide, live_server, finished_games, scheme):
    wide.emulate_media(color_scheme=scheme)
    rummy = finished_games["rummy"]
    wide.goto(f"{live_server.url}/replay/{rummy}?hand=1&step=4")
    wait_step(wide, 4)
    wide.wait_for_selector("#stock-section")  # the hand is over: the stock face up
    assert "Stock, top card first" in wide.text_content("#stock-section h2")
    assert low_contrast(wide) == []
    if scheme == "light":
        shots(wide, "replay-rummy")
    wide.click("#last")
    wait_step(wide, int(wide.get_attribute("#replay", "data-steps")))
    wide.wait_for_selector("#hand-result:not([hidden])")
    assert low_contrast(wide) == []
    spades = finished_games["spades"]
    wide.goto(f"{live_server.url}/replay/{spades}?hand=1&step=20")
    wait_step(wide, 20)
    assert low_contrast(wide) == []
    if scheme == "dark":
        shots(wide, "replay-spades-dark")
    assert wide.js_errors == []


def test_a_spectator_opening_a_hand_in_play_is_told_and_the_controls_are_off(
    wide, live_server, web_app
):
    client = web_app.test_client()
    game_id, tokens = new_game(client, "rummy", 2, {"game_end": "deals", "deals": 2})
    wide.goto(f"{live_server.url}/replay/{game_id}")  # no seat in this browser
    wide.wait_for_selector('#replay[data-status="in-play"]')
    message = wide.text_content("#in-play")
    assert "Hand 1 is still being played" in message and "once the hand is over" in message
    assert not wide.is_visible("#error")  # no error, no empty table under usable controls
    assert not wide.is_visible("#felt")
    for control in (
        "#first",
        "#prev",
        "#play",
        "#next",
        "#last",
        "#prev-turn",
        "#next-turn",
        "#slider",
        "#step-input",
    ):
        assert wide.is_disabled(control), control
    wide.keyboard.press("ArrowRight")
    assert wide.get_attribute("#replay", "data-status") == "in-play"
    assert wide.get_attribute("#watch-table", "href") == f"/play/{game_id}"
    shots(wide, "replay-in-play")

    # Once hand 1 is over, it opens; hand 2 (in play) says the same, and leads back.
    play_hands(client, game_id, tokens, 1)
    wide.reload()
    wide.wait_for_selector('#replay[data-status="ready"]')
    assert wide.get_attribute("#replay", "data-hand") == "1"
    assert wide.is_enabled("#next")
    wide.select_option("#hand-select", "2")
    wide.wait_for_selector('#replay[data-status="in-play"]')
    assert "Hand 2 is still being played" in wide.text_content("#in-play")
    assert wide.is_disabled("#next")
    wide.click("#replay-finished")
    wide.wait_for_selector('#replay[data-status="ready"]')
    assert wide.get_attribute("#replay", "data-hand") == "1" and wide.is_enabled("#next")
    assert not wide.is_visible("#in-play")
    assert wide.js_errors == []


def test_keys_step_by_move_and_turn_in_rummy(wide, live_server, web_app, finished_games):
    client = web_app.test_client()
    game_id = finished_games["rummy"]
    events = replay_events(client, game_id)
    # A Rummy turn ends with the discard (or with the meld that goes out, the hand's last).
    discards = [k for k, event in enumerate(events) if event["type"] == "discarded"]
    wide.goto(f"{live_server.url}/replay/{game_id}")
    wait_step(wide, 0)
    wide.wait_for_selector("#replay[data-turns]")
    assert wide.is_hidden("#trick-controls") and wide.is_hidden("#keys-trick")  # no tricks
    keys = wide.text_content("#keys")
    assert "a move" in keys and "a turn" in keys
    wide.keyboard.press("ArrowRight")
    wait_step(wide, 1)
    wide.keyboard.press("ArrowLeft")
    wait_step(wide, 0)
    wide.keyboard.press("Shift+ArrowRight")
    wait_step(wide, discards[0])
    wide.keyboard.press("Shift+ArrowRight")
    wait_step(wide, discards[1])
    wide.keyboard.press("Shift+ArrowLeft")
    wait_step(wide, discards[0])
    wide.click("#next-turn")
    wait_step(wide, discards[1])
    wide.keyboard.press("]")  # no trick in Rummy: the step stays
    wide.keyboard.press("End")
    steps = len(events) - 1
    wait_step(wide, steps)
    wide.keyboard.press("Home")
    wait_step(wide, 0)
    shown = api_get(client, f"/games/{game_id}/hands/1/replay?step=0")["event"]["description"]
    assert shown in wide.text_content("#description")
    assert wide.js_errors == []


def test_keys_step_by_trick_in_spades_and_a_step_link_opens_that_step(
    wide, browser, live_server, web_app, finished_games
):
    client = web_app.test_client()
    game_id = finished_games["spades"]
    events = replay_events(client, game_id)
    won = [k for k, event in enumerate(events) if event["type"] == "trick_won"]
    bids = [k for k, event in enumerate(events) if event["type"] == "bid_made"]
    assert len(won) == 13
    wide.goto(f"{live_server.url}/replay/{game_id}")
    wait_step(wide, 0)
    wide.wait_for_selector('#replay[data-tricks="13"]')
    assert wide.is_visible("#trick-controls") and wide.is_visible("#keys-trick")
    wide.keyboard.press("]")
    wait_step(wide, won[0])
    wide.keyboard.press("]")
    wait_step(wide, won[1])
    wide.keyboard.press("[")
    wait_step(wide, won[0])
    wide.click("#next-trick")
    wait_step(wide, won[1])
    wide.click("#prev-trick")
    wait_step(wide, won[0])
    wide.keyboard.press("Home")
    wait_step(wide, 0)
    # A Spades turn is a seat's bid (after looking at its cards) or one card played, also
    # when the trick's winner played its last card and leads the next one.
    turns = [k for k, event in enumerate(events) if event["type"] in ("bid_made", "card_played")]
    assert len(turns) == 4 + 52
    for k in turns:
        wide.keyboard.press("Shift+ArrowRight")
        wait_step(wide, k)
    wide.keyboard.press("Shift+ArrowLeft")
    wait_step(wide, turns[-2])
    wide.keyboard.press("Home")
    wait_step(wide, 0)
    wide.keyboard.press("Shift+ArrowRight")
    wait_step(wide, bids[0])
    wide.keyboard.press("ArrowRight")
    wait_step(wide, bids[0] + 1)

    # The address follows the step; the link opens it, in a new tab, in the query or fragment.
    target = won[5] + 2
    wide.fill("#step-input", str(target))
    wide.press("#step-input", "Enter")
    wait_step(wide, target)
    assert f"hand=1&step={target}" in wide.url
    link = wide.get_attribute("#step-link", "href")
    assert link.endswith(f"/replay/{game_id}?hand=1&step={target}")
    shots(wide, "replay-spades")
    description = api_get(client, f"/games/{game_id}/hands/1/replay?step={target}")["event"]
    other = browser.new_context(viewport=PHONE)
    try:
        tab = other.new_page()
        tab.set_default_timeout(TIMEOUT_MS)
        watch_errors(tab)
        tab.goto(link)
        wait_step(tab, target)
        assert description["description"] in tab.text_content("#description")
        tab.goto(f"{live_server.url}/replay/{game_id}#hand=1&step={won[2]}")
        wait_step(tab, won[2])
        assert tab.js_errors == []
    finally:
        other.close()
    assert wide.js_errors == []
