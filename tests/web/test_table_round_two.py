"""The table as a card table, in a real headless Chromium: seats round the felt, the
action you must take always in view, moves that show who did what, clocks, a tab in the
background hearing of its turn, and endings that say what happened.

Each test plays real games against the real bot worker (or, where the position must be
made first, through the API); what the page shows is checked against the API's own
answers. Screenshots of what a player sees (the viewport, at 1280x800 and 390x844) go to
test-artifacts/.
"""

import random
import re
import time
from typing import Any

from tests.web.browsing import (
    ARTIFACTS,
    MY_TURN_OR_OVER,
    NEEDS_CHROMIUM,
    api_get,
    auth,
    click_move,
    select_cards,
    wait_version,
)

pytestmark = NEEDS_CHROMIUM

WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SIZES = (WIDE, PHONE)

# Where each button of the phase sits, and whether it is the one on top at its centre.
IN_VIEW = """(selectors) => {
    const found = [];
    for (const selector of selectors) {
        for (const node of document.querySelectorAll(selector)) {
            const r = node.getBoundingClientRect();
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            found.push({
                selector, card: node.dataset.card ?? null, text: node.textContent.trim(),
                inside: r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0
                    && r.bottom <= innerHeight && r.right <= innerWidth,
                onTop: Boolean(hit) && (hit === node || node.contains(hit)),
            });
        }
    }
    return { scrolled: scrollX !== 0 || scrollY !== 0, found };
}"""

# From the first script on: every last-move mark the table shows (the card marked on the
# felt, and the trick seat it lies at), and the most animations running at any frame.
RECORDER = """
window.__marks = [];
window.__animations = { most: 0, names: [] };
const watch = () => {
    const table = document.querySelector('#table');
    if (!table) { requestAnimationFrame(watch); return; }
    new MutationObserver(() => {
        const mark = document.querySelector('#felt .last-move');
        window.__marks.push({
            move: table.dataset.lastMove,
            card: mark?.dataset.card ?? null,
            seat: mark?.closest('.trick-seat')?.dataset.seat ?? null,
        });
    }).observe(table, { subtree: true, childList: true, attributes: true,
                        attributeFilter: ['data-last-move', 'class'] });
    const frame = () => {
        const running = document.getAnimations();
        if (running.length > window.__animations.most) window.__animations.most = running.length;
        for (const a of running) {
            const name = a.animationName || a.transitionProperty || a.constructor.name;
            if (!window.__animations.names.includes(name)) window.__animations.names.push(name);
        }
        requestAnimationFrame(frame);
    };
    frame();
};
watch();
"""

# document.hidden and visibilityState as the test says (window.__hidden), and the page's
# notifications and sounds recorded on their way to the browser.
BACKGROUND = """
window.__hidden = false;
Object.defineProperty(Document.prototype, 'hidden', {
    configurable: true, get: () => window.__hidden });
Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true,
    get: () => (window.__hidden ? 'hidden' : 'visible') });
window.__notified = [];
const RealNotification = window.Notification;
window.Notification = class extends RealNotification {
    constructor(title, options) {
        super(title, options);
        window.__notified.push({ title, ...options });
    }
};
window.__beeps = 0;
const realStart = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
    window.__beeps += 1;
    return realStart.apply(this, args);
};
"""


def set_hidden(page, hidden: bool) -> None:
    page.evaluate(
        "(h) => { window.__hidden = h; document.dispatchEvent(new Event('visibilitychange')); }",
        hidden,
    )


def settle_layout(page) -> None:
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def assert_in_view(page, selectors: list[str], at: str) -> list[dict[str, Any]]:
    """At both sizes, without scrolling: each selector finds a button, every one inside the
    viewport and on top at its centre (nothing covers it). Back at 1280x800 after."""
    found: list[dict[str, Any]] = []
    for size in SIZES:
        page.set_viewport_size(size)
        settle_layout(page)
        shown = page.evaluate(IN_VIEW, selectors)
        where = f"{at} at {size['width']}x{size['height']}"
        assert not shown["scrolled"], where
        for selector in selectors:
            assert any(b["selector"] == selector for b in shown["found"]), (where, selector)
        for button in shown["found"]:
            assert button["inside"] and button["onTop"], (where, button)
        found = shown["found"]
    page.set_viewport_size(WIDE)
    settle_layout(page)
    return found


def shoot(page, name: str) -> None:
    """What a player sees, at both sizes: test-artifacts/<name>.png and <name>-phone.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    for size, suffix in ((WIDE, ""), (PHONE, "-phone")):
        page.set_viewport_size(size)
        settle_layout(page)
        page.wait_for_timeout(400)  # the last move's animation over
        page.screenshot(path=str(ARTIFACTS / f"{name}{suffix}.png"))
    page.set_viewport_size(WIDE)
    settle_layout(page)


def events(client, game_id: str, token: str | None = None) -> list[dict[str, Any]]:
    return api_get(client, f"/games/{game_id}/events?after=0", token)["events"]


def open_table(page, base: str, game_id: str, token: str) -> None:
    page.set_viewport_size(WIDE)
    page.goto(f"{base}/play/{game_id}#token={token}")
    page.wait_for_selector('#table[data-my-seat="0"][data-status="playing"]')


def wait_my_turn(page, client, game_id: str, token: str) -> dict[str, Any]:
    page.wait_for_function(MY_TURN_OR_OVER, timeout=30_000)
    view = api_get(client, f"/games/{game_id}", token)
    wait_version(page, view["version"])
    return view


# -- Rummy: the phases in view, the bot's discard marked, the card you drew marked ----------


def rummy_value(card: str) -> int:
    rank = card[:-1]
    return {"A": 1, "J": 11, "Q": 12, "K": 13}.get(rank) or (20 if card == "JK" else int(rank))


def rummy_play(page, view: dict[str, Any]) -> None:
    """Meld the longest meld, else lay off, else discard the costliest card: by clicks on
    the dock's buttons."""
    legal = view["you"]["legal_moves"]
    melds = [m for m in legal if m["type"] == "meld"]
    lay_offs = [m for m in legal if m["type"] == "lay_off"]
    if melds:
        cards, target = max(melds, key=lambda m: len(m["cards"]))["cards"], "#meld"
    elif lay_offs:
        cards, target = [lay_offs[0]["card"]], f"#lay-off-{lay_offs[0]['meld']}"
    else:
        discards = [m["card"] for m in legal if m["type"] == "discard"]
        cards, target = [max(discards, key=rummy_value)], "#discard"

    def clicks() -> None:
        select_cards(page, cards)
        page.click(target)

    click_move(page, view["version"], clicks)


def test_a_rummy_hand_keeps_each_phase_in_view_and_marks_every_move(
    page, live_server, web_app, bot_worker
):
    client = web_app.test_client()
    created = client.post(
        "/games",
        json={
            "preset": "block",
            "options": {"game_end": "deals", "deals": 1, "first_dealer": 1},
            "seats": [{"name": "ann"}, {"bot": "greedy"}],
        },
    ).get_json()
    game_id, token = created["id"], created["seats"][0]["token"]
    open_table(page, live_server.url, game_id, token)
    labels = page.eval_on_selector_all("#seats .seat-name", "ns => ns.map(n => n.textContent)")
    assert labels[0] == "ann (you)" and "greedy bot" in labels[1]
    seen = {"draw": 0, "play": 0, "bot_discard_marked": 0, "drawn_marked": 0}
    deadline = time.monotonic() + 150
    while True:
        assert time.monotonic() < deadline, "the hand took too long"
        view = wait_my_turn(page, client, game_id, token)
        if view["status"] == "finished":
            break
        if view["phase"] == "draw":
            assert_in_view(page, ["#draw-stock", "#draw-discard"], "the draw")
            moves = [e for e in events(client, game_id, token) if "seat" in e]
            last = moves[-1] if moves else {"type": "none"}
            if last["type"] == "discarded" and last["seat"] == 1:
                # The bot's discard, on top of the pile, is marked as the last move.
                top = page.locator("#discard-pile [data-card]")
                assert top.get_attribute("data-card") == last["card"]
                assert "last-move" in top.get_attribute("class")
                assert "discarded" in page.text_content('#seats [data-seat="1"] .seat-last')
                seen["bot_discard_marked"] += 1
            if seen["draw"] == 1:
                shoot(page, "table-rummy-draw")
            click_move(page, view["version"], "#draw-stock")
            seen["draw"] += 1
            if api_get(client, f"/games/{game_id}")["status"] != "playing":
                break  # the stock was empty: drawing from it ended the hand (and this game)
            drew = [e for e in events(client, game_id, token) if e["type"] == "card_drawn"][-1]
            assert drew["seat"] == 0
            marked = page.eval_on_selector_all("#hand .drawn", "cs => cs.map(c => c.dataset.card)")
            assert marked == [drew["card"]]  # the card you drew, until your turn ends
            seen["drawn_marked"] += 1
            continue
        buttons = assert_in_view(page, ["#meld", "#discard"], "the melds and the discard")
        assert {b["text"] for b in buttons} == {"Meld", "Discard"}
        if seen["play"] == 1:
            shoot(page, "table-rummy-play")
        rummy_play(page, view)
        seen["play"] += 1
        after = api_get(client, f"/games/{game_id}", token)
        if after["turn"] != 0 or after["status"] != "playing":  # the discard ended the turn
            assert page.locator("#hand .drawn").count() == 0
    assert seen["draw"] >= 3 and seen["play"] >= 2 and seen["bot_discard_marked"] >= 2, seen
    assert seen["drawn_marked"] >= 2, seen
    page.wait_for_selector("#game-over:not([hidden])")
    assert_in_view(page, ["#new-game", "#rematch", "#replay-cta"], "the end of the game")
    shoot(page, "table-rummy-game-over")
    assert page.js_errors == []


# -- Spades: four labels, the partner, the trick round the table, the clock, resigning -------

# Each card of the trick, and its player's seat, as seen from the middle of the trick.
TRICK_PLACES = """() => {
    const centre = (node) => { const r = node.getBoundingClientRect();
                               return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; };
    const middle = centre(document.querySelector('#trick'));
    return [...document.querySelectorAll('#trick .trick-seat')]
        .filter((spot) => spot.querySelector('[data-card]'))
        .map((spot) => {
            const card = centre(spot.querySelector('[data-card]'));
            const box = document.querySelector(`#seats > [data-seat="${spot.dataset.seat}"]`);
            const seat = centre(box);
            return { seat: Number(spot.dataset.seat),
                     card: spot.querySelector('[data-card]').dataset.card,
                     toCard: [card.x - middle.x, card.y - middle.y],
                     toSeat: [seat.x - middle.x, seat.y - middle.y] };
        });
}"""


def compass(vector: list[float]) -> str:
    dx, dy = vector
    if abs(dx) > abs(dy):
        return "west" if dx < 0 else "east"
    return "north" if dy < 0 else "south"


def check_trick_places(page, view: dict[str, Any]) -> int:
    """Each card of the trick lies between the middle and its player's seat; you are south,
    your partner north. Returns how many cards were checked."""
    shown = {}
    for size in SIZES:
        page.set_viewport_size(size)
        settle_layout(page)
        for spot in page.evaluate(TRICK_PLACES):
            where = (size["width"], spot)
            assert compass(spot["toCard"]) == compass(spot["toSeat"]), where
            expected = {0: "south", 2: "north"}.get(spot["seat"])
            assert expected is None or compass(spot["toSeat"]) == expected, where
            shown[spot["seat"]] = spot["card"]
    page.set_viewport_size(WIDE)
    settle_layout(page)
    cards = view["trick"] or (view["tricks"][-1]["cards"] if view["tricks"] else [])
    assert shown == {seat: card for seat, card in cards}
    return len(shown)


def seconds_left(page) -> int:
    page.wait_for_selector("#countdown:not([hidden])")
    text = page.text_content("#countdown")
    assert re.fullmatch(r"(\d+:)?\d{1,2}:\d\d left", text), text
    return int(page.get_attribute("#countdown", "data-left"))


def test_a_spades_table_seats_four_players_and_shows_each_move_where_it_was_made(
    browser, live_server, web_app, bot_worker
):
    """Three bots (two of one level) get four distinct labels; the partner is marked and
    sits opposite; each trick card lies before its player; every bot card is marked as the
    last move when it is played, cards move; a clocked table counts down; Resign says so,
    with the final scores, and a new game like it is one click away."""
    client = web_app.test_client()
    options = {"max_hands": 1, "first_dealer": 3, "move_time": "1h", "set_scoring": "minus"}
    seats = [{"name": "ann"}, {"bot": "strong"}, {"bot": "strong"}, {"bot": "greedy"}]
    created = client.post(
        "/games", json={"game": "spades", "preset": "pairs", "options": options, "seats": seats}
    ).get_json()
    game_id, token = created["id"], created["seats"][0]["token"]
    context = browser.new_context(viewport=WIDE)
    context.add_init_script(RECORDER)
    page = context.new_page()
    watch = []
    page.on("pageerror", lambda error: watch.append(str(error)))
    try:
        open_table(page, live_server.url, game_id, token)
        page.wait_for_selector('#table[data-my-turn="true"]')  # left of the dealer: ann bids first

        # -- four labels, the partner marked, the sides named by them -----------------------
        labels = page.eval_on_selector_all("#seats .seat-name", "ns => ns.map(n => n.textContent)")
        assert len(set(labels)) == 4 and labels[0] == "ann (you)", labels
        assert all("bot" in label for label in labels[1:]), labels
        partner = page.locator('#seats [data-seat="2"]')
        assert "partner" in partner.get_attribute("class") and "partner" in partner.text_content()
        assert page.locator("#seats .partner").count() == 1
        sides = page.eval_on_selector_all("#sides tbody th", "ts => ts.map(t => t.textContent)")
        assert sides == [f"{labels[0]} & {labels[2]}", f"{labels[1]} & {labels[3]}"]

        # -- the clock: ann's turn counts down, in the dock and at her seat --------------------
        first = seconds_left(page)
        assert 3590 <= first <= 3600
        page.wait_for_function(
            "(s) => Number(document.querySelector('#countdown').dataset.left) < s", arg=first - 1
        )
        assert seconds_left(page) < first
        assert page.locator('#seats [data-seat="0"] .seat-clock').count() == 1

        # -- bidding: look, then bid; each phase's buttons in view ---------------------------
        assert_in_view(page, ["#look", "#blind-bids button"], "looking or bidding blind")
        shoot(page, "table-spades-look")
        version = api_get(client, f"/games/{game_id}", token)["version"]
        click_move(page, version, "#look")
        bids = assert_in_view(page, ["#bids button"], "the bid")
        assert [b["text"] for b in bids][:2] == ["Nil", "1"]
        shoot(page, "table-spades-bid")
        click_move(
            page, api_get(client, f"/games/{game_id}", token)["version"], '#bids [data-tricks="3"]'
        )

        # -- three tricks by clicks: the playable cards in view, the trick round the table ----
        checked = 0
        for trick in range(3):
            view = wait_my_turn(page, client, game_id, token)
            assert view["phase"] == "playing"
            assert_in_view(page, ["#hand .playable"], f"trick {trick + 1}")
            checked += check_trick_places(page, view)
            if trick == 1:
                shoot(page, "table-spades-play")
            card = [m["card"] for m in view["you"]["legal_moves"] if m["type"] == "play"][-1]
            click_move(page, view["version"], f'#hand [data-card="{card}"]')
        view = wait_my_turn(page, client, game_id, token)
        checked += check_trick_places(page, view)
        assert checked >= 3  # at least one card before each of our later turns

        # Every bot's card was, once played, the card marked as the last move, at its seat.
        marks = page.evaluate("() => window.__marks")
        played = [e for e in events(client, game_id, token) if e["type"] == "card_played"]
        bots = [e for e in played if e["seat"] != 0]
        assert len(bots) >= 6
        for event in bots:
            hits = [
                m for m in marks if (m["card"], m["seat"]) == (event["card"], str(event["seat"]))
            ]
            assert hits, (event, marks[-5:])
        animations = page.evaluate("() => window.__animations")
        assert animations["most"] > 0 and "ct-arrive" in animations["names"], animations

        # -- resigning: the panel says so, with the final scores -----------------------------
        page.once("dialog", lambda dialog: dialog.accept())
        page.click("#resign")
        page.wait_for_selector("#game-over:not([hidden])")
        final = api_get(client, f"/games/{game_id}", token)
        assert final["status"] == "finished" and final["result"]["forfeited"] == 0
        assert page.text_content("#resigned") == "You resigned."
        rows = page.eval_on_selector_all(
            "#final-scores tbody tr", "rs => rs.map(r => [...r.children].map(c => c.textContent))"
        )
        assert [row[1] for row in rows] == [str(s) for s in final["result"]["side_scores"]]
        assert rows[1][0].startswith(f"{labels[1]} & {labels[3]}") and rows[1][0].endswith("★")
        assert "Hand 1:" not in page.text_content("#game-over")  # no stale hand result
        assert_in_view(page, ["#new-game", "#rematch", "#replay-cta"], "the end of the game")
        shoot(page, "table-spades-resigned")

        # -- a new game with the same options, seats and clock -----------------------------
        page.click("#new-game")
        page.wait_for_url(re.compile(r".*/play/(?!" + game_id + r"$)\w+$"))
        new_id = page.url.rsplit("/", 1)[1]
        page.wait_for_selector('#table[data-my-seat="0"]')
        old_created, new_created = events(client, game_id)[0], events(client, new_id)[0]
        assert new_created["type"] == "game_created"
        assert new_created["options"] == old_created["options"]
        assert new_created["clock"] == old_created["clock"]
        fresh = api_get(client, f"/games/{new_id}")
        assert fresh["game"] == "spades" and fresh["preset"] == "pairs"
        assert [s.get("name") or s.get("bot") for s in fresh["seats"]] == [
            "ann",
            "strong",
            "strong",
            "greedy",
        ]
        assert page.evaluate("(id) => localStorage.getItem('cardtrail.token.' + id)", new_id)
        assert watch == []
    finally:
        context.close()


def test_with_reduced_motion_nothing_moves_but_the_last_move_is_still_marked(
    browser, live_server, web_app, bot_worker
):
    client = web_app.test_client()
    seats = [{"name": "ann"}] + [{"bot": "random"}] * 3
    created = client.post(
        "/games", json={"game": "spades", "options": {"first_dealer": 3}, "seats": seats}
    ).get_json()
    game_id, token = created["id"], created["seats"][0]["token"]
    context = browser.new_context(viewport=WIDE, reduced_motion="reduce")
    context.add_init_script(RECORDER)
    page = context.new_page()
    try:
        page.emulate_media(reduced_motion="reduce")
        open_table(page, live_server.url, game_id, token)
        assert page.evaluate("() => matchMedia('(prefers-reduced-motion: reduce)').matches")
        view = wait_my_turn(page, client, game_id, token)
        click_move(page, view["version"], "#look")
        view = wait_my_turn(page, client, game_id, token)
        click_move(page, view["version"], '#bids [data-tricks="2"]')
        for _ in range(2):
            view = wait_my_turn(page, client, game_id, token)
            card = [m["card"] for m in view["you"]["legal_moves"] if m["type"] == "play"][0]
            click_move(page, view["version"], f'#hand [data-card="{card}"]')
        wait_my_turn(page, client, game_id, token)
        bots = [e for e in events(client, game_id, token) if e["type"] == "card_played"]
        assert len([e for e in bots if e["seat"] != 0]) >= 3  # bots played while we watched
        assert page.evaluate("() => window.__animations") == {"most": 0, "names": []}
        marked = page.locator("#felt .last-move")
        if marked.count():  # a trick in play: the newest card still marked, standing still
            style = marked.evaluate(
                "n => [getComputedStyle(n).animationName, getComputedStyle(n).transitionDuration]"
            )
            assert style == ["none", "0s"]
    finally:
        context.close()


# -- a tab in the background hears of its turn --------------------------------------------------


def test_a_hidden_tab_says_in_its_title_that_it_is_your_turn(
    browser, live_server, web_app, bot_worker
):
    client = web_app.test_client()
    created = client.post(
        "/games",
        json={"options": {"first_dealer": 1}, "seats": [{"name": "ann"}, {"bot": "greedy"}]},
    ).get_json()
    game_id, token = created["id"], created["seats"][0]["token"]
    context = browser.new_context(viewport=WIDE)
    context.grant_permissions(["notifications"], origin=live_server.url)
    context.add_init_script(BACKGROUND)
    page = context.new_page()
    try:
        open_table(page, live_server.url, game_id, token)
        title = page.title()
        page.click("#alerts summary")
        page.check("#notify-turn")
        page.check("#sound-turn")
        remembered = (
            "() => ['notify', 'sound'].map(k => localStorage.getItem('cardtrail.table-' + k))"
        )
        assert page.evaluate(remembered) == ["on", "on"]
        beeps = page.evaluate("() => window.__beeps")  # ticking the box plays it once
        assert beeps == 1
        view = wait_my_turn(page, client, game_id, token)
        click_move(page, view["version"], "#draw-stock")
        view = wait_my_turn(page, client, game_id, token)
        card = max(
            (m["card"] for m in view["you"]["legal_moves"] if m["type"] == "discard"),
            key=rummy_value,
        )
        set_hidden(page, True)  # ann looks elsewhere, then the bot plays and passes the turn back

        def discard() -> None:
            select_cards(page, [card])
            page.click("#discard")

        click_move(page, view["version"], discard)
        page.wait_for_function("() => document.title.startsWith('▶ Your turn')")
        assert page.title() == "▶ Your turn · " + title
        assert api_get(client, f"/games/{game_id}")["turn"] == 0
        notified = page.evaluate("() => window.__notified")
        assert [n["tag"] for n in notified] == [f"turn-{game_id}"]
        assert notified[0]["title"] == "Your turn at cardtrail"
        assert page.evaluate("() => window.__beeps") == beeps + 1
        set_hidden(page, False)
        page.wait_for_function("(t) => document.title === t", arg=title)
    finally:
        context.close()


# -- Rummy's hint, and a hand's result that stays closed ----------------------------------------


def _api_play(client, game_id: str, tokens: list[str], until, rng: random.Random) -> dict:
    """Legal moves for every seat over the API (discarding rather than melding) until
    `until(view of seat 0)` holds."""
    for _ in range(3000):
        mine = api_get(client, f"/games/{game_id}", tokens[0])
        if until(mine):
            return mine
        seat = mine["turn"]
        legal = api_get(client, f"/games/{game_id}", tokens[seat])["you"]["legal_moves"]
        plain = [m for m in legal if m["type"] in ("draw", "discard")] or legal
        answer = client.post(
            f"/games/{game_id}/moves", json=rng.choice(plain), headers=auth(tokens[seat])
        )
        assert answer.status_code == 200, answer.get_json()
    raise AssertionError("the position never came")


def test_the_rummy_hint_highlights_the_cards_of_the_legal_melds_and_lay_offs(
    page, live_server, web_app
):
    client = web_app.test_client()
    created = client.post(
        "/games", json={"options": {"first_dealer": 1}, "seats": [{"name": "ann"}, {"name": "bob"}]}
    ).get_json()
    game_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]

    def can_meld(view: dict) -> bool:
        legal = view["you"]["legal_moves"]
        return (
            view["turn"] == 0
            and view["phase"] == "play"
            and any(m["type"] == "meld" for m in legal)
        )

    view = _api_play(client, game_id, tokens, can_meld, random.Random(11))
    legal = view["you"]["legal_moves"]
    meld_cards = {c for m in legal if m["type"] == "meld" for c in m["cards"]}
    lay_off_cards = {m["card"] for m in legal if m["type"] in ("lay_off", "swap_joker")}
    open_table(page, live_server.url, game_id, tokens[0])
    wait_version(page, view["version"])
    assert page.locator("#hand .hint-meld").count() == 0  # off until asked for
    page.click("#hints")
    assert page.get_attribute("#hints", "aria-pressed") == "true"
    lit = page.eval_on_selector_all("#hand .hint-meld", "cs => cs.map(c => c.dataset.card)")
    assert set(lit) == meld_cards
    lit = page.eval_on_selector_all("#hand .hint-layoff", "cs => cs.map(c => c.dataset.card)")
    assert set(lit) == lay_off_cards
    # A suggestion selects its cards; Meld lays them down.
    longest = max((m for m in legal if m["type"] == "meld"), key=lambda m: len(m["cards"]))
    page.locator("#suggestions .suggestion").first.click()
    assert int(page.get_attribute("#table", "data-selected")) == len(longest["cards"])
    shoot(page, "table-rummy-hints")
    click_move(page, view["version"], "#meld")
    melds = api_get(client, f"/games/{game_id}")["melds"]
    assert sorted(melds[-1]["cards"]) == sorted(longest["cards"])
    page.reload()
    page.wait_for_selector('#table[data-my-seat="0"]')
    assert page.get_attribute("#hints", "aria-pressed") == "true"  # remembered
    assert page.js_errors == []


def test_a_hands_result_lies_over_the_table_and_stays_closed(page, live_server, web_app):
    client = web_app.test_client()
    created = client.post(
        "/games",
        json={
            "options": {"game_end": "deals", "deals": 3},
            "seats": [{"name": "ann"}, {"name": "bob"}],
        },
    ).get_json()
    game_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
    view = _api_play(client, game_id, tokens, lambda v: v["hand_number"] >= 2, random.Random(5))
    open_table(page, live_server.url, game_id, tokens[0])
    page.wait_for_selector("#hand-result:not([hidden])")
    assert f"hand {view['last_hand']['hand']}" in page.text_content("#hand-result h2").lower()
    where = "() => [document.querySelector('#board').getBoundingClientRect().top, scrollY]"
    with_result = page.evaluate(where)
    phase = ["#draw-stock", "#draw-discard"] if view["turn"] == 0 else ["#meld", "#discard"]
    assert_in_view(page, phase, "the next hand, its result over the table")
    shoot(page, "table-hand-result")
    page.click("#close-result")
    page.wait_for_selector("#hand-result", state="hidden")
    assert page.evaluate(where) == with_result  # the table did not move
    page.reload()
    page.wait_for_selector('#table[data-my-seat="0"]')
    wait_version(page, view["version"])
    assert page.is_hidden("#hand-result")  # closed for good
    assert page.evaluate(f"() => localStorage.getItem('cardtrail.result-closed.{game_id}')") == str(
        view["last_hand"]["hand"]
    )
    assert page.js_errors == []


def test_seats_read_the_servers_label_first_and_count_from_one(page, live_server):
    """The server's `label` wins; without one, bots of one level still read apart, numbered
    from 1; Spades' compass places hold for three players too (North sits north)."""
    page.goto(live_server.url + "/")
    found = page.evaluate(
        """async () => {
            const { seatLabel, positions } = await import('/assets/js/table/seats.js');
            return {
                labelled: seatLabel({ seat: 1, bot: 'strong', label: 'West (strong bot)' }),
                named: seatLabel({ seat: 0, name: 'ann' }),
                bots: [1, 2].map((seat) => seatLabel({ seat, bot: 'strong' })),
                open: seatLabel({ seat: 3, open: true }),
                three: positions(3, 0, { compass: true }),
                fromNorth: positions(4, 2),
            };
        }"""
    )
    assert found == {
        "labelled": "West (strong bot)",
        "named": "ann",
        "bots": ["Seat 2 (strong bot)", "Seat 3 (strong bot)"],
        "open": "Seat 4 (open)",
        "three": {"0": "south", "1": "west", "2": "north"},
        "fromNorth": {"2": "south", "3": "west", "0": "north", "1": "east"},
    }
