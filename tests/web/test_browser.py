"""The web table in a real headless Chromium (Debian's `chromium`), driven by Playwright.

Create a game against a bot from the lobby, play the whole hand by clicking (the bot's
moves arrive through the page's long-poll), then step through the hand in the replay
viewer and check the cards shown against the API. Screenshots go to test-artifacts/.
"""

import random
import time
from typing import Any

import pytest

from tests.web.browsing import (
    MY_TURN_OR_OVER,
    NEEDS_CHROMIUM,
    PHONE,
    api_get,
    auth,
    click_move,
    screenshot,
    wait_step,
    wait_version,
)

pytestmark = NEEDS_CHROMIUM


# -- the table ------------------------------------------------------------


def ui_version(page) -> int:
    return int(page.get_attribute("#table", "data-version"))


def select(page, cards: list[str]) -> None:
    for card in cards:
        page.locator(f'#hand [data-card="{card}"]:not(.selected)').first.click()
    assert int(page.get_attribute("#table", "data-selected")) == len(cards)


def card_value(card: str) -> int:
    rank = card[:-1]
    return {"A": 1, "J": 11, "Q": 12, "K": 13}.get(rank) or (20 if card == "JK" else int(rank))


def shown_table(page) -> dict[str, Any]:
    return page.evaluate(
        """() => ({
            hand: [...document.querySelectorAll('#hand [data-card]')].map(c => c.dataset.card),
            top: document.querySelector('#discard-pile [data-card]')?.dataset.card ?? null,
            depth: Number(document.querySelector('#discard-pile').dataset.depth),
            stock: Number(document.querySelector('#stock-count').textContent),
            melds: [...document.querySelectorAll('#melds [data-meld]')].map(m => ({
                id: Number(m.dataset.meld),
                cards: [...m.querySelectorAll('[data-card]')].map(c => c.dataset.card)})),
        })"""
    )


def check_table_matches(page, view: dict[str, Any]) -> None:
    shown = shown_table(page)
    assert sorted(shown["hand"]) == sorted(view["you"]["hand"])
    pile = view["discard_pile"]
    assert shown["top"] == (pile[-1] if pile else None)
    assert shown["depth"] == len(pile)
    assert shown["stock"] == view["stock_count"]
    assert shown["melds"] == [{"id": m["id"], "cards": m["cards"]} for m in view["melds"]]


def play_hand_by_clicks(page, client, game_id: str, token: str, deadline: float) -> int:
    """Our seat's turns by clicks until the game is over; returns how many moves we made."""
    moves = 0
    turns = 0
    checked_illegal = False
    shot = False
    while True:
        assert time.monotonic() < deadline, "the hand took too long"
        page.wait_for_function(MY_TURN_OR_OVER, timeout=30_000)
        view = api_get(client, f"/games/{game_id}", token)
        if view["status"] == "finished":
            wait_version(page, view["version"])
            return moves
        wait_version(page, view["version"])  # our turn: the state only moves when we do
        check_table_matches(page, view)
        legal = view["you"]["legal_moves"]
        version = view["version"]
        if view["phase"] == "draw":
            turns += 1
            takes_discard = turns == 1 and {"type": "draw", "source": "discard"} in legal
            target = "#discard-pile" if takes_discard else "#stock"
            click_move(page, version, lambda target=target: page.click(target))
            moves += 1
            continue
        if not checked_illegal:
            # An illegal move shows the engine's own sentence from the problem+json.
            card = view["you"]["hand"][0]
            select(page, [card])
            page.click("#meld")
            page.wait_for_selector("#error:not([hidden])")
            refused = client.post(
                f"/games/{game_id}/moves",
                json={"type": "meld", "cards": [card]},
                headers=auth(token),
            )
            assert refused.status_code == 422
            assert page.text_content("#error") == refused.get_json()["detail"]
            page.click("#clear")
            checked_illegal = True
        melds = [m for m in legal if m["type"] == "meld"]
        lay_offs = [m for m in legal if m["type"] == "lay_off"]
        if melds:
            cards = max(melds, key=lambda m: len(m["cards"]))["cards"]
            target = "#meld"
        elif lay_offs:
            cards = [lay_offs[0]["card"]]
            target = f'#melds [data-meld="{lay_offs[0]["meld"]}"]'
        else:
            discards = [m["card"] for m in legal if m["type"] == "discard"]
            cards = [max(discards, key=card_value)]
            target = "#discard"

        def clicks(cards=cards, target=target, shoot=turns == 3 and not shot):
            select(page, cards)
            if shoot:  # mid-hand, cards selected
                screenshot(page, "table-mid-hand")
            page.click(target)

        shot = shot or turns == 3

        click_move(page, version, clicks)
        moves += 1


# -- the replay viewer ------------------------------------------------------------


def shown_replay(page) -> dict[str, Any]:
    return page.evaluate(
        """() => ({
            step: Number(document.querySelector('#replay').dataset.step),
            hands: [...document.querySelectorAll('[data-seat-hand]')].map(
                s => [...s.querySelectorAll('[data-card]')].map(c => c.dataset.card)),
            stock: [...document.querySelectorAll('#stock [data-card]')].map(c => c.dataset.card),
            top: document.querySelector('#discard-pile [data-card]')?.dataset.card ?? null,
            depth: Number(document.querySelector('#discard-pile').dataset.depth),
            melds: [...document.querySelectorAll('#melds [data-meld]')].map(m => ({
                id: Number(m.dataset.meld),
                cards: [...m.querySelectorAll('[data-card]')].map(c => c.dataset.card)})),
            description: document.querySelector('#description').textContent,
        })"""
    )


def check_replay_matches(page, client, game_id: str, step: int) -> None:
    answer = api_get(client, f"/games/{game_id}/hands/1/replay?step={step}")
    state = answer["state"]
    shown = shown_replay(page)
    assert shown["step"] == step
    assert [sorted(cards) for cards in shown["hands"]] == [sorted(h) for h in state["hands"]]
    assert shown["stock"] == state["stock"]  # face up, top card first
    pile = state["discard_pile"]
    assert shown["top"] == (pile[-1] if pile else None)
    assert shown["depth"] == len(pile)
    assert shown["melds"] == [{"id": m["id"], "cards": m["cards"]} for m in state["melds"]]
    assert answer["event"]["description"] in shown["description"]


def test_play_a_hand_against_a_bot_then_replay_it(page, browser, live_server, web_app, bot_worker):
    started = time.monotonic()
    client = web_app.test_client()
    base = live_server.url
    # Someone else's game waiting for a player, so the lobby lists something.
    client.post("/games", json={"preset": "pagat", "seats": [{"name": "cy"}, {"open": True}]})

    # -- the lobby: create a game against a greedy bot, by clicks ------------------------------
    page.goto(base + "/")
    page.wait_for_selector("#games-waiting .game")
    page.click("#more-options > summary")  # the full form, behind More options
    page.fill("#seats .seat-row:nth-child(1) .seat-name", "ann")
    page.select_option("#seats .seat-row:nth-child(2) .seat-kind", "bot")
    page.select_option("#seats .seat-row:nth-child(2) .seat-bot", "greedy")
    page.select_option("#preset", "block")
    page.select_option("#opt-game_end", "deals")
    page.fill("#opt-deals", "1")
    screenshot(page, "lobby")
    page.click("#create")
    page.wait_for_url("**/play/*")
    game_id = page.url.rsplit("/", 1)[1]
    assert "#" not in game_id
    token = page.evaluate("(id) => localStorage.getItem('cardtrail.token.' + id)", game_id)
    assert token
    view = api_get(client, f"/games/{game_id}", token)
    assert view["preset"] == "block"
    assert view["options"]["game_end"] == "deals" and view["options"]["deals"] == 1
    assert [s.get("name") or s.get("bot") for s in view["seats"]] == ["ann", "greedy"]
    assert view["you"]["seat"] == 0

    # -- the table: the whole hand by clicks; the bot's moves arrive by themselves ---------------
    moves = play_hand_by_clicks(page, client, game_id, token, started + 75)
    assert moves > 0
    final = api_get(client, f"/games/{game_id}", token)
    assert final["status"] == "finished"
    page.wait_for_selector("#game-over:not([hidden])")
    # As the table names them: the server's label, "(you)" for one's own name.
    names = {s["seat"]: s["label"] for s in final["seats"]}
    names[0] = "ann (you)"
    winners = ", ".join(names[seat] for seat in final["result"]["winners"])
    assert winners in page.text_content("#winner")
    screenshot(page, "table-game-over", phone_too=False)
    events = api_get(client, f"/games/{game_id}/events?after=0")["events"]
    drawers = {e["seat"] for e in events if e["type"] == "card_drawn"}
    assert drawers == {0, 1}  # the bot played its own turns

    # -- the replay viewer: step through the hand -------------------------------------------------
    page.click("#replay-cta")
    page.wait_for_url(f"**/replay/{game_id}*")
    page.wait_for_selector('#replay[data-status="ready"]')
    wait_step(page, 0)
    hands = api_get(client, f"/games/{game_id}/hands")["hands"]
    steps = hands[0]["steps"]
    assert int(page.get_attribute("#replay", "data-steps")) == steps
    assert page.get_attribute("#replay", "data-face-up") == "true"
    page.wait_for_selector('#audit[data-audit="ok"]')
    checkpoints = {0, 1, 2, steps // 3, steps // 2, (2 * steps) // 3, steps}
    check_replay_matches(page, client, game_id, 0)
    for step in range(1, steps + 1):
        page.click("#next")
        wait_step(page, step)
        if step in checkpoints:
            check_replay_matches(page, client, game_id, step)
        if step == steps // 2:
            screenshot(page, "replay")
    assert page.is_disabled("#next")
    # Jump back with the step box and the slider, and play a little.
    page.fill("#step-input", str(steps // 3))
    page.press("#step-input", "Enter")
    wait_step(page, steps // 3)
    check_replay_matches(page, client, game_id, steps // 3)
    page.focus("#slider")
    page.keyboard.press("Home")
    wait_step(page, 0)
    page.keyboard.press("ArrowRight")
    wait_step(page, 1)
    check_replay_matches(page, client, game_id, 1)
    page.click("#play")
    wait_step(page, 2)
    page.click("#play")  # pause
    assert page.get_attribute("#replay", "data-playing") == "false"
    page.click("#last")
    wait_step(page, steps)
    screenshot(page, "replay-last-step", phone_too=False)

    # -- the seat link: the token travels in the fragment, which the server never sees ------------
    other = browser.new_context(viewport=PHONE)
    try:
        phone = other.new_page()
        phone.goto(f"{base}/play/{game_id}#token={token}")
        phone.wait_for_selector('#table[data-my-seat="0"]')
        assert "#" not in phone.url  # the fragment was cleared once read
        stored = phone.evaluate("(id) => localStorage.getItem('cardtrail.token.' + id)", game_id)
        assert stored == token
    finally:
        other.close()
    assert live_server.urls and not [url for url in live_server.urls if token in url]
    assert page.js_errors == []


@pytest.mark.parametrize(
    ("game", "seats"),
    [
        ("rummy", [{"name": "ann"}, {"bot": "greedy"}]),
        ("spades", [{"name": "ann"}] + [{"bot": "random"}] * 3),
    ],
)
def test_resigning_from_the_table_ends_the_game(page, live_server, web_app, game, seats):
    client = web_app.test_client()
    created = client.post("/games", json={"game": game, "seats": seats}).get_json()
    game_id, token = created["id"], created["seats"][0]["token"]
    page.goto(f"{live_server.url}/play/{game_id}#token={token}")
    page.wait_for_selector('#table[data-my-seat="0"]')
    page.once("dialog", lambda dialog: dialog.dismiss())  # thought better of it
    page.click("#resign")
    page.click("#log-box summary")  # anything after the dialog: it was answered, nothing sent
    assert not [url for url in live_server.urls if url.endswith("/moves")]
    assert api_get(client, f"/games/{game_id}")["status"] == "playing"
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#resign")
    page.wait_for_selector("#game-over:not([hidden])")
    final = api_get(client, f"/games/{game_id}")
    assert final["status"] == "finished" and 0 not in final["result"]["winners"]
    assert page.js_errors == []


def _play_until_hand_two(client, game_id: str, tokens: list[str]) -> dict:
    """Random legal moves for every seat over the API until the second hand is dealt."""
    rng = random.Random(7)
    for _ in range(5000):
        table = api_get(client, f"/games/{game_id}")
        if table["hand_number"] >= 2:
            return table
        token = tokens[table["turn"]]
        move = rng.choice(api_get(client, f"/games/{game_id}", token)["you"]["legal_moves"])
        answer = client.post(f"/games/{game_id}/moves", json=move, headers=auth(token))
        assert answer.status_code == 200, answer.get_json()
    raise AssertionError("hand 2 never came")


@pytest.mark.parametrize(
    ("game", "players", "options", "heading"),
    [
        ("rummy", 2, {"game_end": "deals", "deals": 2}, "Cards left"),
        ("spades", 4, {"max_hands": 2}, "Bid and tricks"),
    ],
)
def test_the_result_of_a_hand_shows_between_hands(
    page, live_server, web_app, game, players, options, heading
):
    client = web_app.test_client()
    seats = [{"name": name} for name in ("ann", "bob", "cy", "di")[:players]]
    created = client.post(
        "/games", json={"game": game, "options": options, "seats": seats}
    ).get_json()
    game_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
    table = _play_until_hand_two(client, game_id, tokens)
    result = table["last_hand"]
    page.goto(f"{live_server.url}/play/{game_id}#token={tokens[0]}")
    panel = page.locator("#hand-result")
    panel.wait_for(state="visible")
    names = ["ann (you)", "bob", "cy", "di"]
    headline = page.text_content("#hand-result h2")
    if game == "spades":  # "Hand 1: ann (you) & cy +40, bob & di -20."
        assert headline.startswith("Hand 1: ann (you) & cy")
    elif result["winner"] is not None:
        assert headline.startswith(f"{names[result['winner']]} went out")
    assert heading in page.text_content("#hand-result thead")
    # Each row's total, read in the column headed "Total".
    totals = page.evaluate(
        """() => {
            const heads = [...document.querySelectorAll('#hand-result thead th')];
            const column = heads.findIndex(h => h.textContent === 'Total');
            return [...document.querySelectorAll('#hand-result tbody tr')].map(
                r => r.children[column].textContent);
        }"""
    )
    expected = result["side_scores"] if game == "spades" else result["scores"]
    assert totals == [str(score) for score in expected]
    page.click("#hand-result button")
    panel.wait_for(state="hidden")
    assert page.js_errors == []
