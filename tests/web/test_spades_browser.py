"""Spades on the same pages, in a real headless Chromium: create a pairs game against
three bots from the lobby, look at the cards (they start face down: blind bids are
allowed), bid, play all thirteen tricks by clicking cards, then step through the hand
trick by trick in the replay viewer, checking what is shown against the API."""

import time
from typing import Any

from engine.cards import pretty
from tests.web.browsing import (
    MY_TURN_OR_OVER,
    NEEDS_CHROMIUM,
    api_get,
    auth,
    click_move,
    screenshot,
    wait_step,
    wait_version,
)

pytestmark = NEEDS_CHROMIUM


def shown_table(page) -> dict[str, Any]:
    return page.evaluate(
        """() => ({
            hand: [...document.querySelectorAll('#hand [data-card]')].map(c => c.dataset.card),
            playable: [...document.querySelectorAll('#hand .playable')].map(c => c.dataset.card),
            trick: Object.fromEntries([...document.querySelectorAll('#trick .trick-seat')].map(
                s => [s.dataset.seat, s.querySelector('[data-card]')?.dataset.card ?? null])),
            showing: document.querySelector('#trick').dataset.showing,
            sides: [...document.querySelectorAll('#sides tbody tr')].map(
                r => [...r.querySelectorAll('td')].map(d => d.textContent)),
        })"""
    )


def check_trick(shown: dict[str, Any], state: dict[str, Any]) -> None:
    """The trick area holds the trick in play, or the last one won when none is in play."""
    cards = state["trick"] or (state["tricks"][-1]["cards"] if state["tricks"] else [])
    expected = {str(seat): None for seat in range(state["players"])}
    expected.update({str(seat): card for seat, card in cards})
    assert shown["trick"] == expected


def check_table(page, view: dict[str, Any]) -> None:
    shown = shown_table(page)
    assert shown["hand"] == view["you"]["hand"]  # in the server's order: trumps first
    check_trick(shown, view)
    scores = [row[2] for row in shown["sides"]]
    assert scores == [str(score) for score in view["side_scores"]]


def play_hand(page, client, game_id: str, token: str, deadline: float) -> dict[str, int]:
    made = {"look": 0, "bid": 0, "play": 0}
    refused_once = False
    while True:
        assert time.monotonic() < deadline, "the hand took too long"
        view = api_get(client, f"/games/{game_id}", token)
        if view["status"] == "finished":
            wait_version(page, view["version"])
            return made
        if view["you"]["hand_hidden"]:
            # Face down until we look: no card of ours is on the page.
            wait_version(page, view["version"])
            assert page.locator("#hand [data-card]").count() == 0
            assert page.locator("#hand .card.back").count() == 13
            click_move(page, view["version"], "#look")
            made["look"] += 1
            continue
        page.wait_for_function(MY_TURN_OR_OVER, timeout=30_000)
        view = api_get(client, f"/games/{game_id}", token)
        if view["status"] == "finished":
            continue
        wait_version(page, view["version"])
        check_table(page, view)
        legal = view["you"]["legal_moves"]
        if view["phase"] == "bidding":
            bids = sorted(m["tricks"] for m in legal if m["type"] == "bid" and not m.get("blind"))
            shown = page.eval_on_selector_all(
                "#bids button", "bs => bs.map(b => +b.dataset.tricks)"
            )
            assert shown == bids  # exactly the bids the server allows
            assert page.locator("#blind-bids").count() == 0  # we looked: no blind bids
            bid = 3 if 3 in bids else bids[-1]
            click_move(page, view["version"], f'#bids [data-tricks="{bid}"]')
            made["bid"] += 1
            assert f"bid {bid}" in page.text_content('#seats [data-seat="0"]')
            continue
        plays = [m["card"] for m in legal if m["type"] == "play"]
        assert sorted(shown_table(page)["playable"]) == sorted(plays)
        dim = [card for card in view["you"]["hand"] if card not in plays]
        if dim and not refused_once:
            # A card that may not be played: the engine's sentence, the table unchanged.
            page.click(f'#hand [data-card="{dim[0]}"]')
            page.wait_for_selector("#error:not([hidden])")
            refused = client.post(
                f"/games/{game_id}/moves",
                json={"type": "play", "card": dim[0]},
                headers=auth(token),
            )
            assert refused.status_code == 422
            assert page.text_content("#error") == refused.get_json()["detail"]
            assert api_get(client, f"/games/{game_id}", token)["version"] == view["version"]
            refused_once = True
        if made["play"] == 5:
            screenshot(page, "spades-table-mid-hand")
        card = plays[-1]
        click_move(page, view["version"], f'#hand [data-card="{card}"]')
        made["play"] += 1
        # The table's log tells the move in the engine's words.
        page.wait_for_function(
            "(text) => [...document.querySelectorAll('#log li')].some(l => l.textContent === text)",
            arg=f"ann played {pretty(card)}.",
        )


def shown_replay(page) -> dict[str, Any]:
    return page.evaluate(
        """() => ({
            step: Number(document.querySelector('#replay').dataset.step),
            hands: [...document.querySelectorAll('[data-seat-hand]')].map(
                s => [...s.querySelectorAll('[data-card]')].map(c => c.dataset.card)),
            trick: Object.fromEntries([...document.querySelectorAll('#trick .trick-seat')].map(
                s => [s.dataset.seat, s.querySelector('[data-card]')?.dataset.card ?? null])),
            description: document.querySelector('#description').textContent,
        })"""
    )


def test_play_a_spades_hand_against_three_bots_then_replay_it_trick_by_trick(
    page, live_server, web_app, bot_worker
):
    started = time.monotonic()
    client = web_app.test_client()

    # -- the lobby: Spades brings its presets, its options and four seats ----------------------
    page.goto(live_server.url + "/")
    page.click("#more-options > summary")  # the full form, behind More options
    page.select_option("#game", "spades")
    page.wait_for_selector("#opt-max_hands")
    assert page.eval_on_selector_all("#preset option", "os => os.map(o => o.value)") == [
        "pairs",
        "solo",
        "suicide",
        "whiz",
        "mirror",
    ]
    assert page.locator("#seats .seat-row").count() == 4
    assert page.locator("#opt-melds_per_turn").count() == 0  # Rummy's options are gone
    page.fill("#seats .seat-row:nth-child(1) .seat-name", "ann")
    for row, level in ((2, "strong"), (3, "greedy"), (4, "random")):
        page.select_option(f"#seats .seat-row:nth-child({row}) .seat-bot", level)
    page.fill("#opt-max_hands", "1")
    page.select_option("#opt-set_scoring", "minus")
    screenshot(page, "spades-lobby", phone_too=False)
    page.click("#create")
    page.wait_for_url("**/play/*")
    game_id = page.url.rsplit("/", 1)[1]
    token = page.evaluate("(id) => localStorage.getItem('cardtrail.token.' + id)", game_id)
    view = api_get(client, f"/games/{game_id}", token)
    assert view["game"] == "spades" and view["preset"] == "pairs"
    assert view["options"]["max_hands"] == 1 and view["options"]["set_scoring"] == "minus"
    assert [s.get("name") or s.get("bot") for s in view["seats"]] == [
        "ann",
        "strong",
        "greedy",
        "random",
    ]
    page.wait_for_selector('#table[data-game="spades"]')
    assert "Spades" in page.text_content("#title")

    # -- the table: look, bid, and play thirteen tricks by clicks --------------------------------
    made = play_hand(page, client, game_id, token, started + 120)
    assert made == {"look": 1, "bid": 1, "play": 13}
    final = api_get(client, f"/games/{game_id}", token)
    assert final["status"] == "finished"
    page.wait_for_selector("#game-over:not([hidden])")
    assert "Hand 1:" in page.text_content("#game-over")
    screenshot(page, "spades-table-game-over", phone_too=False)
    events = api_get(client, f"/games/{game_id}/events?after=0")["events"]
    players = {e["seat"] for e in events if e["type"] == "card_played"}
    assert players == {0, 1, 2, 3}  # the bots played their own cards
    log = page.eval_on_selector_all("#log li", "ls => ls.map(l => l.textContent)")
    assert any(line.startswith("ann played ") for line in log)

    # -- the replay viewer: trick by trick ---------------------------------------------------
    page.click("#replay-cta")
    page.wait_for_url(f"**/replay/{game_id}*")
    page.wait_for_selector('#replay[data-status="ready"]')
    page.wait_for_selector('#replay[data-tricks="13"]')
    page.wait_for_selector('#audit[data-audit="ok"]')
    steps = api_get(client, f"/games/{game_id}/hands")["hands"][0]["steps"]
    raw = api_get(client, f"/games/{game_id}/hands/1/replay")["events"]
    won = [k for k, event in enumerate(raw) if event["type"] == "trick_won"]
    assert len(won) == 13
    for trick, step in enumerate(won, start=1):
        page.click("#next-trick")
        wait_step(page, step)
        answer = api_get(client, f"/games/{game_id}/hands/1/replay?step={step}")
        shown = shown_replay(page)
        state = answer["state"]
        assert len(state["tricks"]) == trick
        check_trick(shown, state)
        assert shown["hands"] == state["hands"]  # face up, every seat
        assert answer["event"]["description"] in shown["description"]
        if trick == 7:
            screenshot(page, "spades-replay")
    page.click("#prev-trick")
    wait_step(page, won[-2])
    page.click("#last")
    wait_step(page, steps)
    assert page.locator("#hand-result:not([hidden])").count() == 1
    assert page.js_errors == []


def test_a_blind_nil_from_the_table_is_bid_face_down_then_the_cards_show(
    page, live_server, web_app
):
    client = web_app.test_client()
    seats = [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}, {"name": "di"}]
    created = client.post(
        "/games",
        json={"game": "spades", "preset": "pairs", "options": {"first_dealer": 3}, "seats": seats},
    ).get_json()
    game_id, token = created["id"], created["seats"][0]["token"]
    page.goto(f"{live_server.url}/play/{game_id}#token={token}")
    page.wait_for_selector('#table[data-my-turn="true"]')  # left of the dealer: ann bids first
    assert page.locator("#hand [data-card]").count() == 0
    assert page.locator("#hand .card.back").count() == 13
    blind = page.eval_on_selector_all("#blind-bids button", "bs => bs.map(b => b.textContent)")
    assert blind == ["Blind nil"] + [f"Blind {n}" for n in range(4, 14)]
    assert "blind nil wins or loses 200" in page.text_content("#extra-actions")
    assert page.locator("#bids").count() == 0  # no sighted bid before looking
    # The replay of the hand in play, from ann's seat: her own cards are face down too.
    page.goto(f"{live_server.url}/replay/{game_id}")
    page.wait_for_selector('#replay[data-status="ready"]')
    own = page.locator('[data-seat-hand="0"]')
    assert own.get_attribute("data-face-up") == "false"
    assert own.locator("[data-card]").count() == 0 and own.locator(".card.back").count() == 13
    page.goto(f"{live_server.url}/play/{game_id}")
    page.wait_for_selector('#table[data-my-turn="true"]')
    version = api_get(client, f"/games/{game_id}", token)["version"]
    click_move(page, version, '#blind-bids [data-tricks="0"]')
    view = api_get(client, f"/games/{game_id}", token)
    assert view["bids"][0] == {"tricks": 0, "blind": True}
    assert not view["you"]["hand_hidden"]
    wait_version(page, view["version"])
    assert (
        page.eval_on_selector_all("#hand [data-card]", "cs => cs.map(c => c.dataset.card)")
        == (view["you"]["hand"])
    )
    assert "bid blind nil" in page.text_content('#seats [data-seat="0"]')
    assert page.js_errors == []
