"""Players in a real headless Chromium: accounts, My games, a game between two accounts and
a bot, the rematch, a player's page and the leaderboard.

Ann and Bob each have a browser context of their own (cookies and localStorage apart). They
sign up and log in through /login; from then on the session cookie is their only credential
(and its CSRF token, which the pages send with every write): no seat token is ever kept.
Ann creates a Rummy game from the lobby with seats Me, an invitation to Bob and a greedy
bot; Bob's My games page shows the invitation from his stream of news without a reload, and
he joins with one click. They play from their tables (a turn each by clicks, the rest by
fetch() in their pages, which still sends only the cookie and the CSRF header), Bob's My games
tab counting his turns in its title and, as he opted in, notifying him while hidden. At the
end Ann asks for a rematch twice at once (a double click and a second tab): one new game,
which links back; Bob hears of it at his table and joins it there. The real worker plays the
bot and rates the game: the player page and the leaderboard show it.
"""

import re
import time
from typing import Any

from tests.web.browsing import (
    DESKTOP,
    NEEDS_CHROMIUM,
    TIMEOUT_MS,
    api_get,
    click_move,
    screenshot,
    select_cards,
    wait_version,
    watch_errors,
)

pytestmark = NEEDS_CHROMIUM

PASSWORD = "a password long enough"
TOKEN_KEYS = "() => Object.keys(localStorage).filter(k => k.startsWith('cardtrail.token.'))"
# A your_turn notice while this tab is in the background: the page's own Notification call,
# recorded on its way to the browser's (permission granted to the origin beforehand).
HIDDEN_AND_RECORDING = """
Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => true });
window.__notified = [];
const Real = window.Notification;
window.Notification = class extends Real {
    constructor(title, options) {
        super(title, options);
        window.__notified.push({ title, ...options });
    }
};
"""


def open_page(context, url: str, deaf: bool = False):
    """A new tab at `url`; a `deaf` one cannot open the player's stream of news."""
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    watch_errors(page)
    if deaf:
        page.route("**/players/me/stream", lambda route: route.abort())
    page.goto(url)
    return page


def sign_up(page, name: str) -> None:
    """Through the sign-up form, a refusal first: the field it names gets its reason."""
    page.fill("#signup-name", name)
    page.fill("#signup-password", "short")
    page.click("#signup-submit")
    page.wait_for_selector("#signup-password-error:not(:empty)")
    assert "8" in page.text_content("#signup-password-error")
    assert page.get_attribute("#signup-password", "aria-invalid") == "true"
    assert page.text_content("#signup-name-error") == ""
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-submit")
    page.wait_for_url("**/me")
    page.wait_for_selector(f'#account-nav[data-player="{name}"]')


def cookie_fetch(page, method: str, path: str, body: Any = None) -> dict[str, Any]:
    """fetch() in the page: the browser's own cookie, and the CSRF header on writes."""
    return page.evaluate(
        """async ([method, path, body]) => {
            const csrf = document.cookie.split('; ').find(c => c.startsWith('cardtrail_csrf='));
            const headers = { Accept: 'application/json' };
            if (method !== 'GET') {
                headers['Content-Type'] = 'application/json';
                headers['X-CSRF-Token'] = decodeURIComponent(csrf.split('=')[1]);
            }
            const answer = await fetch(path, { method, headers,
                body: body === null ? undefined : JSON.stringify(body) });
            return { status: answer.status, body: await answer.json() };
        }""",
        [method, path, body],
    )


def _value(card: str) -> int:
    rank = card[:-1]
    return {"A": 1, "J": 11, "Q": 12, "K": 13}.get(rank) or (20 if card == "JK" else int(rank))


def chosen_move(view: dict[str, Any]) -> dict[str, Any]:
    """Draw from the stock, lay the longest meld, lay off, else discard the costliest card."""
    legal = view["you"]["legal_moves"]
    if view["phase"] == "draw":
        return {"type": "draw", "source": "stock"}
    if melds := [m for m in legal if m["type"] == "meld"]:
        return max(melds, key=lambda m: len(m["cards"]))
    if lay_offs := [m for m in legal if m["type"] == "lay_off"]:
        return lay_offs[0]
    return max((m for m in legal if m["type"] == "discard"), key=lambda m: _value(m["card"]))


def turn_by_clicks(page, game_id: str) -> None:
    """Draw from the stock by a click, then discard the costliest card by clicks."""
    view = cookie_fetch(page, "GET", f"/games/{game_id}")["body"]
    wait_version(page, view["version"])
    click_move(page, view["version"], "#stock")
    view = cookie_fetch(page, "GET", f"/games/{game_id}")["body"]
    discards = [m["card"] for m in view["you"]["legal_moves"] if m["type"] == "discard"]
    card = max(discards, key=_value)

    def clicks() -> None:
        select_cards(page, [card])
        page.click("#discard")

    click_move(page, view["version"], clicks)


def move_by_fetch(page, game_id: str) -> None:
    view = cookie_fetch(page, "GET", f"/games/{game_id}")["body"]
    answer = cookie_fetch(page, "POST", f"/games/{game_id}/moves", chosen_move(view))
    assert answer["status"] == 200, answer


def no_seat_tokens(*pages) -> None:
    for page in pages:
        assert page.evaluate(TOKEN_KEYS) == [], page.url


def wait_until(condition, what: str, seconds: float = 30) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if found := condition():
            return found
        time.sleep(0.1)
    raise AssertionError(f"never: {what}")


def test_logging_in_and_out_through_the_pages(page, live_server, web_app):
    base = live_server.url
    page.goto(base + "/login")
    sign_up(page, "ann")
    assert page.text_content("#nav-player") == "ann"
    assert page.get_attribute("#nav-player", "href") == "/profile/ann"
    page.wait_for_selector('#inbox[data-status="ready"]')
    assert page.text_content("#games-turn") == "None."
    page.click("#log-out")
    page.wait_for_url(base + "/")
    page.wait_for_selector("#nav-login")
    assert page.evaluate("() => document.cookie") == ""
    # The name is taken in any case; a wrong password gets the server's sentence.
    page.goto(base + "/login?next=/leaderboard")
    page.fill("#signup-name", "ANN")
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-submit")
    page.wait_for_selector("#signup-name-error:not(:empty)")
    assert page.text_content("#signup-name-error") == "That name is taken."
    page.fill("#login-name", "ann")
    page.fill("#login-password", "not the password")
    page.click("#login-submit")
    page.wait_for_selector("#login-form .form-error:not([hidden])")
    assert page.text_content("#login-form .form-error") == "The name or the password is wrong."
    screenshot(page, "login-refused")
    page.fill("#login-password", PASSWORD)
    page.click("#login-submit")
    page.wait_for_url("**/leaderboard/*")  # back where the page sent us
    page.wait_for_selector('#account-nav[data-player="ann"]')
    # Logged out, My games says to log in, and nothing asks the player API for it.
    page.click("#log-out")
    page.wait_for_selector("#nav-login")
    page.goto(base + "/me")
    page.wait_for_selector('#inbox[data-status="logged-out"]')
    assert page.is_visible("#login-needed")
    assert page.js_errors == []


def test_two_accounts_play_rematch_and_are_rated(browser, live_server, web_app, bot_worker):
    base = live_server.url
    client = web_app.test_client(use_cookies=False)
    ann_context = browser.new_context(viewport=DESKTOP)
    bob_context = browser.new_context(viewport=DESKTOP)
    bob_context.grant_permissions(["notifications"], origin=base)
    try:
        ann, bob = open_page(ann_context, base + "/login"), open_page(bob_context, base + "/login")
        pages = [ann, bob]
        sign_up(ann, "ann")
        sign_up(bob, "bob")
        bob.wait_for_selector('#live[data-live="open"]')
        bob.evaluate("() => { window.sameDocument = true; }")
        screenshot(bob, "my-games-empty", phone_too=False)

        # -- Ann's lobby: Me, an invitation to Bob, a greedy bot ----------------------------
        ann.goto(base + "/")
        ann.wait_for_selector("#games-waiting")
        ann.click("#more-options > summary")  # the full form, behind More options
        first = "#seats .seat-row:nth-child(1)"
        ann.wait_for_selector(f'{first} .seat-kind option[value="me"]', state="attached")
        assert ann.input_value(f"{first} .seat-kind") == "me"
        assert not ann.is_visible(f"{first} .seat-name")
        ann.select_option("#preset", "pagat")
        ann.select_option("#seats .seat-row:nth-child(2) .seat-kind", "invite")
        ann.fill("#seats .seat-row:nth-child(2) .seat-name", "bob")
        ann.click("#add-seat")
        ann.select_option("#seats .seat-row:nth-child(3) .seat-kind", "bot")
        ann.select_option("#seats .seat-row:nth-child(3) .seat-bot", "greedy")
        ann.select_option("#opt-game_end", "deals")
        ann.fill("#opt-deals", "1")
        screenshot(ann, "lobby-logged-in", phone_too=False)
        ann.click("#create")
        ann.wait_for_url("**/play/*")
        game_id = ann.url.rsplit("/", 1)[1]
        ann.wait_for_selector('#table[data-my-seat="0"]')  # her seat, by her cookie alone
        created = api_get(client, f"/games/{game_id}")
        assert created["status"] == "waiting"
        assert created["options"]["game_end"] == "deals" and created["options"]["deals"] == 1
        seats = created["seats"]
        assert seats[0]["name"] == "ann" and seats[0]["player"]
        assert seats[1]["invited"] == "bob" and seats[2]["bot"] == "greedy"

        # -- Bob's open My games shows the invitation by itself; one click joins --------------
        invitation = bob.locator(f'#games-invited [data-game-id="{game_id}"]')
        invitation.wait_for()
        assert bob.evaluate("() => window.sameDocument") is True  # no reload
        assert "ann" in invitation.text_content()
        screenshot(bob, "my-games-invited", phone_too=False)
        invitation.locator("button.join").click()
        bob.wait_for_url(f"**/play/{game_id}")
        bob.wait_for_selector('#table[data-my-seat="1"][data-status="playing"]')
        ann.wait_for_selector('#table[data-status="playing"]')
        no_seat_tokens(ann, bob)

        # Bob's My games in a second tab, in the background (notifications on).
        bob_context.add_init_script(HIDDEN_AND_RECORDING)
        inbox = open_page(bob_context, base + "/me")
        pages.append(inbox)
        inbox.wait_for_selector('#live[data-live="open"]')
        inbox.check("#notify")
        assert inbox.evaluate("() => localStorage.getItem('cardtrail.notify')") == "on"
        inbox.evaluate("() => { window.sameDocument = true; }")

        # -- the hand: a turn each by clicks, then fetch() with the cookie --------------------
        bob.evaluate("() => { window.sameDocument = true; }")
        tables = {0: ann, 1: bob}
        clicked: set[int] = set()
        bob_turns, last_seat = 0, None
        deadline = time.monotonic() + 120
        while (public := api_get(client, f"/games/{game_id}"))["status"] != "finished":
            assert time.monotonic() < deadline, "the game took too long"
            seat, was = public["turn"], last_seat
            last_seat = seat
            if seat not in tables:  # the bot's turn: the worker plays it
                time.sleep(0.05)
                continue
            if seat == 1 and was != 1:
                bob_turns += 1
                if bob_turns == 2:  # it has become his turn again: his other tab says so
                    inbox.wait_for_function("() => document.title.startsWith('(1) ')")
                    assert inbox.text_content("#turn-badge") == "1"
                    assert inbox.locator(f'#games-turn [data-game-id="{game_id}"]').count() == 1
                    inbox.wait_for_function("() => window.__notified.length > 0")
                    note = inbox.evaluate("() => window.__notified[0]")
                    assert note["title"] == "Your turn at cardtrail"
                    assert note["tag"] == f"turn-{game_id}"
                    screenshot(inbox, "my-games-your-turn", phone_too=False)
            if seat not in clicked:
                turn_by_clicks(tables[seat], game_id)
                clicked.add(seat)
                if seat == 1:  # his move, at his table: his other tab counts no turn now
                    inbox.wait_for_function("() => !document.title.startsWith('(')")
                continue
            move_by_fetch(tables[seat], game_id)
        assert bob_turns >= 2, "Bob never had a second turn"
        assert inbox.evaluate("() => window.sameDocument") is True
        for table in (ann, bob):
            table.wait_for_selector("#game-over:not([hidden])")
        no_seat_tokens(ann, bob, inbox)

        # -- the rematch: a double click here, then a click in a second tab that has not
        # heard of it yet (its stream of news cut off): the same key, so the same one game --
        second = open_page(ann_context, f"{base}/play/{game_id}", deaf=True)
        pages.append(second)
        second.wait_for_selector("#rematch")
        ann.wait_for_selector("#rematch")
        screenshot(ann, "table-game-over-rematch", phone_too=False)
        ann.dblclick("#rematch")
        ann.wait_for_url(re.compile(r".*/play/(?!" + game_id + r"$)\w+$"))
        second.click("#rematch")
        rematch_id = ann.url.rsplit("/", 1)[1]
        second.wait_for_url(f"**/play/{rematch_id}")
        asked = [url for url in live_server.urls if url == f"/games/{game_id}/rematch"]
        assert len(asked) == 2  # one per tab: the double click sent one request
        assert api_get(client, f"/games/{game_id}")["rematch"] == rematch_id
        rematch = api_get(client, f"/games/{rematch_id}")
        assert rematch["rematch_of"] == game_id and rematch["status"] == "waiting"
        listed = cookie_fetch(ann, "GET", "/players/me/games")["body"]["items"]
        assert sorted(item["id"] for item in listed) == sorted([game_id, rematch_id])
        assert api_get(client, "/games")["total"] == 2
        ann.wait_for_selector('#table[data-my-seat="0"]')
        assert ann.get_attribute("#rematch-of-link", "href") == f"/play/{game_id}"
        assert ann.is_visible("#rematch-of-link")
        no_seat_tokens(ann, second)

        # Bob's finished table hears of it (his stream of news) and he joins it there.
        bob.wait_for_selector("#rematch-link")
        assert bob.evaluate("() => window.sameDocument") is True  # the same page all along
        inbox.locator(f'#games-invited [data-game-id="{rematch_id}"]').wait_for()
        bob.click("#rematch-link")
        bob.wait_for_url(f"**/play/{rematch_id}")
        bob.click("#join-invited")
        bob.wait_for_selector('#table[data-my-seat="1"][data-status="playing"]')
        no_seat_tokens(bob)

        # -- the players' pages and the leaderboard, once the worker rated the game ----------
        rated = wait_until(
            lambda: api_get(client, "/players/ann")["ratings"], "the game was rated", 60
        )
        assert rated[0]["pool"] == "rummy-3-6" and rated[0]["provisional"]
        ann.click("#nav-player")
        ann.wait_for_url("**/profile/ann")
        ann.wait_for_selector('#profile[data-status="ready"]')
        row = ann.locator('#ratings tr[data-pool="rummy-3-6"]')
        assert "provisional" in row.text_content() and "Rummy, 3–6 players" in row.text_content()
        finished = ann.locator(f'#recent-games [data-game-id="{game_id}"]')
        assert finished.locator(".replay-link").get_attribute("href") == f"/replay/{game_id}"
        final = api_get(client, f"/games/{game_id}")
        won = "won" if 0 in final["result"]["winners"] else "lost"
        assert f"ann {won}" in finished.text_content()
        screenshot(ann, "player-page")
        ann.click("#nav-leaderboard")
        ann.wait_for_url("**/leaderboard/rummy-3-6")
        ann.wait_for_selector('#leaderboard[data-status="ready"]')
        board = ann.locator("#board tbody tr")
        assert board.count() == 3
        bot_row = ann.locator('#board tr[data-bot="true"]')
        assert "greedy bot" in bot_row.text_content() and bot_row.locator(".badge.bot").count() == 1
        assert bot_row.locator("a").count() == 0
        assert ann.locator('#board a[href="/profile/bob"]').count() == 1
        screenshot(ann, "leaderboard")
        ann.select_option("#pool", "rummy-2")
        ann.wait_for_url("**/leaderboard/rummy-2")
        ann.wait_for_selector('#leaderboard[data-pool="rummy-2"][data-status="ready"]')
        assert "Nobody is rated" in ann.text_content("#board tbody")
        ann.go_back()
        ann.wait_for_selector('#leaderboard[data-pool="rummy-3-6"][data-status="ready"]')
        for each in pages:
            assert each.js_errors == [], (each.url, each.js_errors)
    finally:
        ann_context.close()
        bob_context.close()
