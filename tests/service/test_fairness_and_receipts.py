"""Fair against everyone: the creator cannot choose (or learn) the cards, every answer
carries a receipt the player can keep, and a history rewritten in the store — however
well re-chained — fails the audit against the receipts a player kept."""

import json
import os
import random
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from engine import games, ledger
from engine.rummy.state import deal_hands
from engine.shuffle import shuffle
from replays.audit import audit_export
from replays.receipts import parse_keys, refusal
from service.api import create_app
from service.redis_server import EmbeddedRedis
from service.signing import load_or_create
from tests.replays.exports import parse
from tests.replays.forgeries import a_new_game, other_moves_after_a_deal, write_over
from tests.service.helpers import assert_problem, auth

QUICK = {"game_end": "deals", "deals": 2, "hand_size": 14}
FIXTURES = Path(__file__).resolve().parents[1] / "replays" / "fixtures"  # made by older code
PLAIN_SEATS = [{"name": "ann", "client_seed": "ann's own"}, {"name": "bob"}]


def verify(receipt: dict, keys: dict) -> None:
    """The receipt's signature checks out against the server's listed key."""
    public = bytes.fromhex(keys[receipt["key_id"]]["public_key"])
    message = ledger.receipt_message(
        receipt["game"], receipt["version"], receipt["hash"], receipt["key_id"]
    )
    Ed25519PublicKey.from_public_bytes(public).verify(bytes.fromhex(receipt["signature"]), message)


def listed_keys(client) -> dict:
    return {key["key_id"]: key for key in client.get("/keys").get_json()["keys"]}


# -- the server seed is the server's -------------------------------------------------


def test_a_chosen_seed_or_deck_is_refused_by_a_real_server(strict_app, redis_client):
    client = strict_app.test_client()
    body = {"seats": PLAIN_SEATS, "seed": "I know every card"}
    problem = assert_problem(client.post("/games", json=body), 403, "chosen_seed_disabled")
    assert problem["errors"] == [{"field": "seed", "reason": problem["detail"]}]
    assert not redis_client.keys("cardtrail:game:*")
    created = client.post("/games", json={"seats": PLAIN_SEATS}).get_json()
    assert created["seed_source"] == "server"
    assert (
        created["seed_commitment"]
        == client.get(f"/games/{created['id']}").get_json()["seed_commitment"]
    )


def test_a_testing_server_marks_a_chosen_seed_and_the_audit_says_it_is_not_fair(client):
    body = {"seats": PLAIN_SEATS, "seed": "chosen", "preset": "block", "options": QUICK}
    created = client.post("/games", json=body).get_json()
    game_id, toks = created["id"], [s["token"] for s in created["seats"]]
    assert created["seed_source"] == "client"
    assert created["seed_commitment"] == ledger.commitment("chosen")
    first = first_event(client, game_id)
    assert first["seed_source"] == "client"
    assert client.get(f"/games/{game_id}").get_json()["seed_source"] == "client"
    play_out(client, game_id, toks, random.Random(1))
    verdict = client.get(f"/games/{game_id}/audit").get_json()
    assert verdict["ok"] is True and verdict["provably_fair"] is False
    assert any("NOT provably fair" in note for note in verdict["notes"])


def first_event(client, game_id):
    return client.get(f"/games/{game_id}/events?after=0").get_json()["events"][0]


def test_the_commitment_is_known_before_anyone_chooses_a_client_seed(strict_app):
    client = strict_app.test_client()
    seats = [{"name": "ann"}, {"open": True}]
    created = client.post("/games", json={"seats": seats}).get_json()
    game_id = created["id"]
    commitment = created["seed_commitment"]
    # A would-be joiner sees the commitment in the waiting game's view, from the first event.
    waiting = client.get(f"/games/{game_id}").get_json()
    assert waiting["status"] == "waiting" and waiting["seed_commitment"] == commitment
    assert first_event(client, game_id)["seed_commitment"] == commitment
    joined = client.post(
        f"/games/{game_id}/join", json={"name": "bob", "client_seed": "chosen after"}
    ).get_json()
    assert joined["seed_commitment"] == commitment


def test_a_creator_who_knows_everything_public_cannot_predict_another_hand(strict_app):
    """The creator sees the answer, every view and every event; from all of it they cannot
    compute the other seat's first hand: identical public inputs deal different hands, and
    no public value works as the server seed."""
    client = strict_app.test_client()
    body = {"seats": PLAIN_SEATS, "preset": "pagat", "options": {"first_dealer": 0}}
    hands = []
    for _ in range(2):
        created = client.post("/games", json=body).get_json()
        game_id, (ann, bob) = created["id"], [s["token"] for s in created["seats"]]
        bobs = client.get(f"/games/{game_id}", headers=auth(bob)).get_json()["you"]["hand"]
        hands.append(sorted(bobs))
        public = client.get(f"/games/{game_id}/events?after=0", headers=auth(ann)).get_json()
        seated = next(e for e in public["events"] if e["type"] == "players_seated")
        guesses = [
            created["seed_commitment"],
            game_id,
            ann,
            "",
            *filter(None, seated["client_seeds"]),
        ]
        rummy = games.get("rummy")
        options = rummy.resolve_options("pagat", {"first_dealer": 0}, 2)
        for guess in guesses:
            key = ledger.deal_key(guess, seated["client_seeds"])
            deck = shuffle(rummy.pack(options), key, "deal:1")
            dealt, _, _ = deal_hands(deck, 2, 0, options)
            assert sorted(dealt[1]) != sorted(bobs)  # not bob's hand
    assert hands[0] != hands[1]


# -- receipts --------------------------------------------------------------------------


def play_out(client, game_id, toks, rng, receipts=None):
    """Play to the end, keeping every receipt the players are handed."""
    while (shown := client.get(f"/games/{game_id}").get_json())["status"] != "finished":
        token = toks[shown["turn"]]
        mine = client.get(f"/games/{game_id}", headers=auth(token)).get_json()
        moved = client.post(
            f"/games/{game_id}/moves",
            json=rng.choice(mine["you"]["legal_moves"]),
            headers=auth(token),
        ).get_json()
        if receipts is not None:
            receipts += [mine["receipt"], moved["receipt"]]


def test_every_answer_that_shows_or_grows_a_game_carries_a_verifiable_receipt(client, store):
    created = client.post(
        "/games",
        json={"seats": [{"name": "ann"}, {"open": True}], "preset": "block", "options": QUICK},
    ).get_json()
    game_id = created["id"]
    joined = client.post(f"/games/{game_id}/join", json={"name": "bob"}).get_json()
    toks = [created["seats"][0]["token"], joined["token"]]
    view = client.get(f"/games/{game_id}", headers=auth(toks[0])).get_json()
    spectator = client.get(f"/games/{game_id}").get_json()
    events = client.get(f"/games/{game_id}/events?after=0").get_json()
    moves = []
    play_out(client, game_id, toks, random.Random(2), moves)
    keys = listed_keys(client)
    answers = [created, joined, view, spectator, events]
    for answer in answers:
        receipt = answer["receipt"]
        assert receipt["game"] == game_id and receipt["version"] == answer["version"]
    for receipt in [a["receipt"] for a in answers] + moves:
        verify(receipt, keys)
        assert receipt["hash"] == store.hash_at(game_id, receipt["version"])
    # The whole game with every receipt audits clean, over HTTP and offline.
    verdict = client.post(f"/games/{game_id}/audit", json={"receipts": moves}).get_json()
    assert "ok" in verdict, verdict
    assert verdict["ok"] and verdict["receipts"] == len(moves) and verdict["checks"]["receipts"]
    export = client.get(f"/games/{game_id}/export").get_data(as_text=True)
    assert audit_export(export.splitlines(), moves).ok


@pytest.fixture
def kept(client):
    """A finished game and every receipt its players were handed."""
    body = {"seats": PLAIN_SEATS, "preset": "block", "options": QUICK}
    created = client.post("/games", json=body).get_json()
    game_id = created["id"]
    receipts = [created["receipt"]]
    play_out(client, game_id, [s["token"] for s in created["seats"]], random.Random(3), receipts)
    export = client.get(f"/games/{game_id}/export").get_data(as_text=True)
    return game_id, receipts, export


@pytest.mark.parametrize("forgery", ["other moves after the second deal", "a whole new game"])
def test_a_rechained_forgery_audits_clean_alone_and_fails_against_the_receipts(
    kept, forgery, redis_url, redis_client, tmp_path
):
    game_id, receipts, export = kept
    _, lines = parse(export)
    if forgery == "a whole new game":
        forged = a_new_game(
            game_id,
            2,
            "rummy",
            rng=random.Random(9),
            preset="block",
            options=QUICK,
            client_seeds=["ann's own", None],
        )
    else:
        forged = other_moves_after_a_deal(game_id, lines, "rummy", 2, random.Random(99))
    assert [line.hash for line in forged] != [line.hash for line in lines]
    write_over(redis_client, game_id, forged)
    # Another process (no cache of the honest log) audits the store as it now is.
    fresh = create_app({"REDIS_URL": redis_url, "RATE_LIMITS_ENABLED": False}).test_client()
    alone = fresh.get(f"/games/{game_id}/audit").get_json()
    assert alone["ok"] is True, alone  # the chain, seeds and moves all hang together
    with_receipts = fresh.post(f"/games/{game_id}/audit", json={"receipts": receipts}).get_json()
    assert with_receipts["ok"] is False
    bad = with_receipts["first_bad"]
    assert bad["reason"].startswith("receipt ") and "contradicts the log" in bad["reason"]
    first_wrong = next(r for r in receipts if r["hash"] != forged[r["version"] - 1].hash)
    assert bad["version"] == first_wrong["version"]
    # Offline, with the keys the forged export still carries and the kept receipts.
    forged_export = fresh.get(f"/games/{game_id}/export").get_data(as_text=True)
    export_file, receipts_file = tmp_path / "forged.jsonl", tmp_path / "receipts.jsonl"
    export_file.write_text(forged_export)
    receipts_file.write_text("".join(json.dumps(r) + "\n" for r in receipts))
    cli = [sys.executable, "-c", "from cardtrail.cli import main; main()", "audit"]
    clean = subprocess.run([*cli, str(export_file)], capture_output=True, text=True)
    assert clean.returncode == 0, clean.stdout
    caught = subprocess.run(
        [*cli, str(export_file), "--receipts", str(receipts_file)], capture_output=True, text=True
    )
    assert caught.returncode == 1 and "receipt " in caught.stdout, caught.stdout


def test_an_honest_game_with_its_receipts_passes_offline_with_keys_given(kept, client, tmp_path):
    game_id, receipts, export = kept
    (tmp_path / "game.jsonl").write_text(export)
    (tmp_path / "receipts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in receipts))
    (tmp_path / "keys.json").write_text(client.get("/keys").get_data(as_text=True))
    cli = [sys.executable, "-c", "from cardtrail.cli import main; main()", "audit"]
    run = subprocess.run(
        [
            *cli,
            str(tmp_path / "game.jsonl"),
            "--receipts",
            str(tmp_path / "receipts.jsonl"),
            "--keys",
            str(tmp_path / "keys.json"),
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"every one of {len(receipts)} receipts matched" in run.stdout


def test_a_tampered_receipt_fails_verification(kept, client):
    game_id, receipts, _ = kept
    keys = parse_keys(client.get("/keys").get_json())
    good = receipts[5]
    assert refusal(good, game_id, keys) is None
    flipped = dict(good)
    signature = bytearray(bytes.fromhex(good["signature"]))
    signature[7] ^= 0x10
    flipped["signature"] = signature.hex()
    assert "signature does not verify" in refusal(flipped, game_id, keys)
    other_hash = {**good, "hash": ledger.chain_start("x")}
    assert "signature does not verify" in refusal(other_hash, game_id, keys)
    wrong_key = {**good, "key_id": "0123456789abcdef"}
    assert "not among the server's keys" in refusal(wrong_key, game_id, keys)
    other_game = {**good, "game": "SomeOtherGam"}
    assert "not of this one" in refusal(other_game, game_id, keys)
    assert "signature does not verify" in refusal(other_game, "SomeOtherGam", keys)
    verdict = client.post(f"/games/{game_id}/audit", json={"receipts": [good, flipped]}).get_json()
    assert verdict["ok"] is False and verdict["first_bad"]["reason"].startswith("receipt 2 ")
    shortened = {**good, "version": 10**6}
    assert refusal(shortened, game_id, keys) is not None  # signed for its own version only


def test_keys_stay_listed_when_the_key_changes(redis_url, client, tmp_path):
    before = listed_keys(client)
    other = create_app(
        {
            "REDIS_URL": redis_url,
            "SIGNING_KEY_FILE": str(tmp_path / "new.pem"),
            "RATE_LIMITS_ENABLED": False,
        }
    )
    after = {key["key_id"] for key in other.test_client().get("/keys").get_json()["keys"]}
    assert set(before) < after and len(after) == len(before) + 1


# -- secrets at rest -----------------------------------------------------------------


def test_the_embedded_data_and_the_signing_key_are_the_owners_only(tmp_path):
    data = tmp_path / "data"
    with EmbeddedRedis(data / "redis", appendfsync="always") as server:
        import redis

        client = redis.Redis.from_url(server.url)
        client.set("secret", "a server seed")
        client.close()
        written = [data / "redis", *(data / "redis").rglob("*")]
        assert any("appendonly" in path.name for path in written), written
        for path in written:
            mode = stat.S_IMODE(os.lstat(path).st_mode)
            assert mode & 0o077 == 0, (path, oct(mode))
    key = tmp_path / "keys" / "signing-key.pem"
    signer = load_or_create(key)
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert load_or_create(key).key_id == signer.key_id  # the same key on the next start


def test_exports_made_before_receipts_still_audit():
    fixtures = [
        "rummy-before-receipts.jsonl",
        "spades-before-receipts.jsonl",
        "rummy-clocked-before-receipts.jsonl",
    ]
    for name in fixtures:
        with open(FIXTURES / name, "rb") as file:
            verdict = audit_export(file)
        assert verdict.ok, (name, verdict.first_bad)
        assert verdict.seed_source is None and not verdict.provably_fair
        assert any("before cardtrail recorded" in note for note in verdict.notes)
    clocked = FIXTURES / "rummy-clocked-before-receipts.jsonl"
    assert b"turn_timed_out" in clocked.read_bytes()  # time-outs of the old clock audit too
