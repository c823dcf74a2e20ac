"""The receipts the web pages keep, in a real headless Chromium.

Every answer that appends to or shows a game carries the server's signed receipt, and the
pages keep each one in localStorage. Here a person creates games in the lobby and plays a
one-deal Rummy game against a bot by clicks; the receipts the page kept must each verify
against GET /keys and match the store's chain at their version; the page offers them as
a file and checks them against the log (passed). Then the history is rewritten in Redis
and re-chained: the same receipts, sent by the same button, fail the audit of a process
that reads the store afresh, naming a receipt.
"""

import json
import random
import time

import redis

from replays.audit import audit_export
from service.api import create_app
from service.store import EventStore
from tests.replays.exports import parse
from tests.replays.forgeries import other_moves_after_a_deal, write_over
from tests.web.browsing import (
    NEEDS_CHROMIUM,
    api_get,
    listed_keys,
    play_rummy_by_clicks,
    screenshot,
    stored_receipts,
    verify_receipt,
)

pytestmark = NEEDS_CHROMIUM


def answers_with_receipts(responses, kind: str) -> list[dict]:
    """The receipts of the page's answers of one kind ("moves", "events" or "view")."""
    found = []
    for response in responses:
        path = response.url.split("?", 1)[0]
        is_kind = {
            "moves": path.endswith("/moves"),
            "events": path.endswith("/events"),
            "view": response.request.method == "GET" and path.count("/") == 4,
        }[kind]
        if is_kind and response.ok and "/games/" in path:
            found.append(response.json()["receipt"])
    return found


def create_in_the_lobby(page, base: str, people: list[str], bots: list[str]) -> None:
    page.goto(base + "/")
    page.click("#more-options > summary")  # the full form, behind More options
    page.wait_for_selector("#seats .seat-row")
    while page.locator("#seats .seat-row").count() < len(people) + len(bots):
        page.click("#add-seat")
    for n, name in enumerate(people, start=1):
        page.select_option(f"#seats .seat-row:nth-child({n}) .seat-kind", "human")
        page.fill(f"#seats .seat-row:nth-child({n}) .seat-name", name)
    for n, level in enumerate(bots, start=len(people) + 1):
        page.select_option(f"#seats .seat-row:nth-child({n}) .seat-kind", "bot")
        page.select_option(f"#seats .seat-row:nth-child({n}) .seat-bot", level)
    page.select_option("#preset", "block")
    page.select_option("#opt-game_end", "deals")
    page.fill("#opt-deals", "1")
    page.click("#create")


def test_the_table_keeps_its_receipts_offers_them_and_they_catch_a_rewrite(
    page, live_server, web_app, web_redis_url, bot_worker
):
    started = time.monotonic()
    client = web_app.test_client()
    base = live_server.url
    store_client = redis.Redis.from_url(web_redis_url)
    store = EventStore(store_client)

    # -- the lobby keeps the create answer's receipt (two people: the lobby stays, with links)
    create_in_the_lobby(page, base, ["ann", "bob"], [])
    page.wait_for_selector("#created:not([hidden])")
    pair = page.get_attribute("#created input", "value").split("/play/", 1)[1].split("#")[0]
    kept = stored_receipts(page, pair)
    waiting = api_get(client, f"/games/{pair}")  # nobody has moved: still the created version
    assert [(r["version"], r["hash"]) for r in kept] == [
        (waiting["version"], waiting["receipt"]["hash"])
    ]

    # -- a one-deal game against a greedy bot, made in the lobby and played by clicks ----------
    responses = []
    page.on("response", lambda response: responses.append(response))
    create_in_the_lobby(page, base, ["ann"], ["greedy"])
    page.wait_for_url("**/play/*")
    game_id = page.url.rsplit("/", 1)[1]
    token = page.evaluate("(id) => localStorage.getItem('cardtrail.token.' + id)", game_id)
    assert token
    # While the game goes on, the receipts can be downloaded; the check waits for the end.
    page.click("#receipts-box summary")
    page.wait_for_selector("#download-receipts:not([disabled])")
    assert page.is_hidden("#check-receipts") and page.is_hidden("#export-game")
    moves = play_rummy_by_clicks(page, client, game_id, token, started + 90)
    assert moves > 0
    final = api_get(client, f"/games/{game_id}", token)
    assert final["status"] == "finished"
    page.wait_for_selector("#game-over:not([hidden]) #check-receipts:not([hidden])")
    assert page.is_hidden("#receipts-box")

    # -- what the page kept: every receipt it was handed, in version order, once each ------------
    receipts = stored_receipts(page, game_id)
    assert len(receipts) >= 5, receipts
    versions = [r["version"] for r in receipts]
    assert versions == sorted(versions)
    assert len({(r["version"], r["hash"]) for r in receipts}) == len(receipts)
    assert versions[-1] == final["version"]
    kept_pairs = {(r["version"], r["hash"]) for r in receipts}
    for kind in ("moves", "events", "view"):
        handed = answers_with_receipts(responses, kind)
        assert handed, f"the page got no {kind} answer"
        assert {(r["version"], r["hash"]) for r in handed} <= kept_pairs, kind
    assert {r["game"] for r in receipts} == {game_id}
    keys = listed_keys(client)
    for receipt in receipts:
        verify_receipt(receipt, keys)  # raises InvalidSignature if not the server's word
        assert receipt["hash"] == store.hash_at(game_id, receipt["version"]), receipt

    # -- offered as files, made in the browser -------------------------------------------------
    label = page.text_content("#download-receipts")
    assert label == f"Download my receipts ({len(receipts)})"
    with page.expect_download() as download:
        page.click("#download-receipts")
    assert download.value.suggested_filename == f"receipts-{game_id}.jsonl"
    lines = download.value.path().read_text().splitlines()
    assert len(lines) == len(receipts)
    assert [json.loads(line) for line in lines] == receipts
    with page.expect_download() as exported:
        page.click("#export-game")
    export = exported.value.path().read_text()
    assert audit_export(export.splitlines(), receipts).ok  # offline, with the export's keys

    # -- checked against the log: passed, and provably fair ------------------------------------
    page.click("#check-receipts")
    verdict = page.locator('#receipts-verdict[data-verdict="passed"]')
    verdict.wait_for()
    assert page.get_attribute("#receipts-verdict", "aria-live") == "polite"
    text = verdict.text_content()
    assert text.startswith("✔ Passed") and f"{len(receipts)} receipts" in text, text
    assert "The game is provably fair." in text, text
    screenshot(page, "table-receipts-checked", phone_too=False)

    # -- the history rewritten in Redis, re-chained: other moves after the deal ---------------
    _, honest = parse(export)
    forged = other_moves_after_a_deal(game_id, honest, "rummy", 1, random.Random(99))
    assert [line.hash for line in forged] != [line.hash for line in honest]
    write_over(store_client, game_id, forged)

    def forged_hash(version: int) -> str | None:
        return forged[version - 1].hash if version <= len(forged) else None

    first_wrong = next(r for r in receipts if r["hash"] != forged_hash(r["version"]))
    # The live app keeps the honest log in memory: a process that reads the store afresh
    # (as after a restart) is what sees the rewrite. The page's own "Check my receipts"
    # request is answered by such a process, with the receipts the page sends.
    fresh = create_app({"REDIS_URL": web_redis_url, "RATE_LIMITS_ENABLED": False})
    try:
        fresh_client = fresh.test_client()
        assert fresh_client.get(f"/games/{game_id}/audit").get_json()["ok"] is True  # alone

        sent = []

        def to_the_fresh_process(route):
            body = route.request.post_data_json
            sent.append(body["receipts"])
            answer = fresh_client.post(f"/games/{game_id}/audit", json=body)
            route.fulfill(status=answer.status_code, json=answer.get_json())

        page.route(f"{base}/games/{game_id}/audit", to_the_fresh_process)
        page.click("#check-receipts")
        failed = page.locator('#receipts-verdict[data-verdict="failed"]')
        failed.wait_for()
        assert sent == [receipts]
        text = failed.text_content()
        index = receipts.index(first_wrong) + 1
        named = f"✘ Failed at event {first_wrong['version']}: receipt {index} "
        assert text.startswith(named), text
        assert "contradicts the log" in text and "not provably fair" in text, text
        screenshot(page, "table-receipts-rewritten", phone_too=False)

        # The same, straight to the fresh app with the receipts read from the page.
        verdict_json = fresh_client.post(
            f"/games/{game_id}/audit", json={"receipts": stored_receipts(page, game_id)}
        ).get_json()
        assert verdict_json["ok"] is False and verdict_json["provably_fair"] is False
        bad = verdict_json["first_bad"]
        assert bad["version"] == first_wrong["version"]
        assert bad["reason"].startswith(f"receipt {index} contradicts the log")
    finally:
        fresh.extensions["cardtrail"].redis.close()
        store_client.close()
    assert page.js_errors == []


def test_the_replay_viewer_offers_the_receipts_and_checks_them(page, live_server, web_app):
    """The replay viewer keeps the receipt of the view it loads, offers the download while
    the game goes on, and the export and the check once it is over."""
    client = web_app.test_client()
    created = client.post(
        "/games", json={"seats": [{"name": "ann"}, {"bot": "greedy"}], "preset": "block"}
    ).get_json()
    game_id, token = created["id"], created["seats"][0]["token"]
    page.goto(f"{live_server.url}/play/{game_id}#token={token}")  # keeps the token
    page.wait_for_selector('#table[data-my-seat="0"]')
    page.goto(f"{live_server.url}/replay/{game_id}")
    page.wait_for_selector('#audit[data-audit="pending"]')
    page.wait_for_selector("#records-slot #download-receipts:not([disabled])")
    assert page.is_hidden("#check-receipts") and page.is_hidden("#export-game")  # in play
    assert {r["game"] for r in stored_receipts(page, game_id)} == {game_id}
    page.goto(f"{live_server.url}/play/{game_id}")
    page.wait_for_selector('#table[data-my-seat="0"]')
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#resign")
    page.wait_for_selector("#game-over:not([hidden])")
    page.goto(f"{live_server.url}/replay/{game_id}")
    page.wait_for_selector('#audit[data-audit="ok"]')  # the view it loaded is kept too
    page.wait_for_selector("#records-slot #check-receipts:not([hidden])")
    assert page.get_attribute("#export-game", "href") == f"/games/{game_id}/export"
    receipts = stored_receipts(page, game_id)
    assert receipts[-1]["version"] == api_get(client, f"/games/{game_id}")["version"]
    assert page.text_content("#download-receipts") == f"Download my receipts ({len(receipts)})"
    page.click("#check-receipts")
    page.locator('#receipts-verdict[data-verdict="passed"]').wait_for()
    assert "The game is provably fair." in page.text_content("#receipts-verdict")
    screenshot(page, "replay-receipts-checked", phone_too=False)
    assert page.js_errors == []


def test_the_store_keeps_each_receipt_once_in_version_order_and_the_newest_only(page, live_server):
    """api.js's `withReceipt`, run in the page: at most RECEIPTS_KEPT per game, the newest."""
    page.goto(live_server.url + "/")
    found = page.evaluate(
        """async () => {
            const { withReceipt, RECEIPTS_KEPT } = await import('/assets/js/api.js');
            const r = (version, hash = 'h' + version) => ({ game: 'g', version, hash });
            let kept = [];
            for (const v of [3, 1, 2]) kept = withReceipt(kept, r(v));
            const again = withReceipt(kept, r(2));          // the same version and hash
            const fork = withReceipt(kept, r(2, 'other'));  // the same version, another hash
            let many = [];
            for (let v = 1; v <= RECEIPTS_KEPT + 5; v += 1) many = withReceipt(many, r(v));
            return { order: kept.map((x) => x.version), again, fork: fork.map((x) => x.hash),
                     cap: RECEIPTS_KEPT, many: many.length, first: many[0].version };
        }"""
    )
    assert found["order"] == [1, 2, 3]
    assert found["again"] is None
    assert found["fork"] == ["h1", "h2", "other", "h3"]  # both stories at version 2 kept
    assert found["cap"] == 2000 and found["many"] == 2000 and found["first"] == 6
