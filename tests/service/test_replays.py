"""Replays, exports and audits over HTTP, against a real Redis.

Games are played over HTTP with seeded random legal moves (no bots). The truth
for every replay step is the engine's fold of that prefix of the stored log;
exports are audited offline by the real `cardtrail audit` command.
"""

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cardtrail.cli import main
from engine import games, table
from engine.cards import pretty
from service.store import EventStore
from tests.replays.exports import build_batches, chain, keys_of, text
from tests.service.helpers import (
    assert_problem,
    auth,
    cards_in,
    create_game,
    move,
    tokens,
)

GAME = games.get("rummy")
SHORT = {"game_end": "deals", "deals": 2}
# preset, seats, options: big hands keep the stock (and so the hands) short; Wrotham's
# stock is turned over once per hand, so its replays include a replenished stock.
CASES = [
    ("pagat", 2, {**SHORT, "hand_size": 20, "max_stock_reuses": 0}),
    ("block", 3, {**SHORT, "hand_size": 14}),
    ("wrotham", 3, {**SHORT, "hand_size": 14, "max_stock_reuses": 1}),
]
NAMES = ("ann", "bob", "cid")


def jsonable(value: Any) -> Any:
    """A value as it comes back through JSON (tuples become lists)."""
    return json.loads(json.dumps(value))


class Player:
    """Plays a game over HTTP: the seat in turn picks a random move from its own view."""

    def __init__(self, client, redis_client, game_id: str, toks: list[str | None], seed: Any):
        self.client, self.game_id, self.toks = client, game_id, toks
        self.store = EventStore(redis_client)
        self.rng = random.Random(seed)
        self.raw: list[dict[str, Any]] = []
        self.state = None
        self.commands: list[dict[str, Any]] = []
        self.sync()

    def sync(self) -> None:
        newer = self.store.read(self.game_id, after=len(self.raw))
        self.raw += newer
        self.state = table.fold(GAME, newer, self.state)

    @property
    def finished(self) -> bool:
        return GAME.is_finished(self.state)

    def step(self) -> None:
        seat = GAME.to_act(self.state)[0]
        response = self.client.get(f"/games/{self.game_id}", headers=auth(self.toks[seat]))
        view = response.get_json()
        assert view["turn"] == seat, view
        command = self.rng.choice(view["you"]["legal_moves"])
        answer = move(self.client, self.game_id, self.toks[seat], command)
        assert answer.status_code == 200, answer.get_json()
        self.commands.append({**command, "seat": seat})
        self.sync()

    def play(self, until=lambda player: player.finished, limit: int = 1500) -> None:
        while not until(self):
            assert not self.finished and len(self.commands) < limit, "the game did not finish"
            self.step()


def new_game(client, redis_client, preset, players, options, seed, **extra):
    seats = [{"name": NAMES[s], "client_seed": f"{NAMES[s]}'s seed ♠"} for s in range(players)]
    created = create_game(client, seed=seed, seats=seats, options=options, preset=preset, **extra)
    return created, Player(client, redis_client, created["id"], tokens(created), seed)


def replay(client, game_id, number, token=None, step=None):
    query = "" if step is None else f"?step={step}"
    return client.get(f"/games/{game_id}/hands/{number}/replay{query}", headers=auth(token))


def described(event: dict[str, Any], version: int) -> dict[str, Any]:
    return {**event, "version": version, "description": GAME.describe(event, list(NAMES))}


def every_card(revealed: dict[str, Any]) -> Counter:
    cards = Counter(revealed["discard_pile"]) + Counter(revealed["stock"])
    for hand in revealed["hands"]:
        cards += Counter(hand)
    for meld in revealed["melds"]:
        cards += Counter(meld["cards"])
    return cards


# -- finished hands: every step is the fold of its prefix, face up ---------------------------


@pytest.mark.parametrize(("preset", "players", "options"), CASES)
def test_every_step_of_every_finished_hand_is_the_fold_of_that_prefix(
    client, redis_client, preset, players, options
):
    created, player = new_game(client, redis_client, preset, players, options, f"replay {preset}")
    game_id = created["id"]
    player.play()
    raw = player.raw
    names = list(NAMES[:players])
    pack = Counter(GAME.pack(player.state.options))

    hands = client.get(f"/games/{game_id}/hands").get_json()["hands"]
    ended = [v for v, e in enumerate(raw, start=1) if e["type"] == "hand_ended"]
    dealt = [v for v, e in enumerate(raw, start=1) if e["type"] == "hand_dealt"]
    assert [h["number"] for h in hands] == [1, 2]
    assert [h["first_version"] for h in hands] == dealt
    assert [h["last_version"] for h in hands] == ended
    for hand in hands:
        assert hand["finished"] and hand["steps"] == hand["last_version"] - hand["first_version"]
        assert hand["dealer"] == raw[hand["first_version"] - 1]["dealer"]
        assert hand["result"] == raw[hand["last_version"] - 1]

    spectator_and_players = [None, *player.toks]
    for hand in hands:
        first, steps = hand["first_version"], hand["steps"]
        whole = replay(client, game_id, hand["number"]).get_json()
        assert whole["face_up"] and whole["steps"] == steps and whole["names"] == names
        assert whole["events"] == [
            {
                **raw[first + k - 1],
                "version": first + k,
                "description": GAME.describe(raw[first + k - 1], names),
            }
            for k in range(steps + 1)
        ]
        state = table.fold(GAME, raw[:first])
        for k in range(steps + 1):
            if k:
                state = table.fold(GAME, [raw[first + k - 1]], state)  # = fold(raw[:first + k])
            if k in (0, steps // 2, steps):
                assert state == table.fold(GAME, raw[: first + k])
            token = spectator_and_players[k % len(spectator_and_players)]
            response = replay(client, game_id, hand["number"], token, k)
            assert response.status_code == 200, response.get_json()
            body = response.get_json()
            assert body["step"] == k and body["face_up"]
            assert body["state"] == jsonable(GAME.reveal(state)), (hand["number"], k)
            assert body["event"]["version"] == first + k
            assert {
                x: y for x, y in body["event"].items() if x not in ("version", "description")
            } == (raw[first + k - 1])
            # Face up: every seat's hand and the stock, every card of the pack somewhere.
            shown = body["state"]
            assert len(shown["hands"]) == players and "stock" in shown
            assert [len(h) for h in shown["hands"]] == shown["hand_counts"]
            assert every_card(shown) == pack, (hand["number"], k)

        # Out of range and unknown hands.
        assert_problem(replay(client, game_id, hand["number"], step=steps + 1), 422, "no_such_step")
        assert_problem(replay(client, game_id, hand["number"], step=10**6), 422, "no_such_step")
        assert_problem(replay(client, game_id, hand["number"], step=-1), 422)
    assert_problem(replay(client, game_id, 3), 404, "hand_not_found")
    assert_problem(replay(client, game_id, 0, step=0), 404, "hand_not_found")
    assert_problem(client.get("/games/nope/hands"), 404, "game_not_found")
    assert_problem(replay(client, "nope", 1), 404, "game_not_found")

    # The export is exactly what the offline builder writes for the same seeds and moves
    # (so tests/replays/test_audit.py audits what the service really produces).
    export = client.get(f"/games/{game_id}/export")
    assert export.status_code == 200
    batches = build_batches(
        server_seed=f"replay {preset}",
        players=players,
        moves=player.commands,
        preset=preset,
        options={"first_dealer": 0, **options},
        client_seeds=[f"{n}'s seed ♠" for n in names],
        seed_source="client",  # the test chose the server seed
        seats=[{"name": n} for n in names],
    )
    served = export.get_data(as_text=True)
    assert served == text(game_id, chain(game_id, batches), keys=keys_of(served))


# -- a hand in play: players see only their seat, spectators nothing ----------------------------


def secret_cards(state, seat: int) -> set[str]:
    """What `seat` may not see: other seats' hands and the stock."""
    hidden = set(state.hand.stock)
    for other, cards in enumerate(state.hand.hands):
        if other != seat:
            hidden.update(cards)
    return hidden


def check_in_play(client, player, number: int) -> set[str]:
    """Replays of hand `number`, in play, at every step, from every seat; its event kinds."""
    game_id, raw = player.game_id, player.raw
    assert_problem(replay(client, game_id, number), 403, "hand_in_play")
    assert_problem(replay(client, game_id, number, step=0), 403, "hand_in_play")
    first = next(
        v for v, e in enumerate(raw, start=1) if e["type"] == "hand_dealt" and e["hand"] == number
    )
    steps = len(raw) - first
    states = [table.fold(GAME, raw[:first])]
    for event in raw[first:]:
        states.append(table.fold(GAME, [event], states[-1]))
    others_drew = 0
    kinds = {event["type"] for event in raw[first:]}
    for seat, token in enumerate(player.toks):
        whole = replay(client, game_id, number, token).get_json()
        assert not whole["face_up"] and not whole["hand"]["finished"]
        assert whole["steps"] == steps and len(whole["events"]) == steps + 1
        for k, shown in enumerate(whole["events"]):
            event = raw[first + k - 1]
            assert shown == described(table.redact(GAME, event, seat, states[k]), first + k)
            if event["type"] == "hand_dealt":
                assert "deck" not in shown and "shuffle_key" not in shown
                assert shown["cards"] == list(states[0].hand.hands[seat])
            if event["type"] == "card_drawn" and event["source"] == "stock":
                assert ("card" in shown) is (event["seat"] == seat), (seat, shown)
                others_drew += event["seat"] != seat
            if event["type"] == "stock_replenished":
                assert "stock" not in shown
        for k in range(steps + 1):
            body = replay(client, game_id, number, token, k).get_json()
            view = body["state"]
            assert view == jsonable(GAME.view(states[k], seat)), (seat, k)
            assert "hands" not in view and "stock" not in view
            assert view["you"]["seat"] == seat
            assert view["you"]["hand"] == list(states[k].hand.hands[seat])
            table_part = {x: y for x, y in view.items() if x not in ("last_hand", "result")}
            hand = states[k].hand
            seen = {
                *hand.hands[seat],
                *hand.discard_pile,
                *cards_in([m.as_dict() for m in hand.melds]),
            }
            assert cards_in(table_part) <= seen, (seat, k)
            # The check has teeth: some card of the view would be secret for another seat.
            assert cards_in(table_part) & secret_cards(states[k], (seat + 1) % len(hand.hands))
            assert body["event"] == whole["events"][k]
        assert_problem(replay(client, game_id, number, token, steps + 1), 422, "no_such_step")
    assert others_drew, "the check needs another seat's stock draw"
    return kinds


def test_a_hand_in_play_replays_only_from_the_callers_seat(client, redis_client):
    preset, players, options = CASES[2]
    created, player = new_game(client, redis_client, preset, players, options, "in play")
    game_id = created["id"]
    # Into hand 1 past a replenished stock (its new order is secret), then check it.
    player.play(until=lambda p: replenished(p) and len(p.raw) > replenished(p) + 3)
    assert player.state.hand.number == 1, "this seed no longer replenishes hand 1's stock"
    assert "stock_replenished" in check_in_play(client, player, 1)

    # Not finished: no export, no audit, for spectators and players alike.
    for token in (None, player.toks[0]):
        assert_problem(
            client.get(f"/games/{game_id}/export", headers=auth(token)), 409, "game_not_finished"
        )
        assert_problem(
            client.get(f"/games/{game_id}/audit", headers=auth(token)), 409, "game_not_finished"
        )
    other = create_game(client, seed="another game")
    assert_problem(replay(client, game_id, 1, tokens(other)[0]), 403, "token_for_another_game")
    assert_problem(replay(client, game_id, 1, "not a token"), 401, "unknown_token")
    player.play(until=lambda p: p.state.hand.number == 2)
    hand_1 = len(player.commands)

    # Hand 1 over, hand 2 in play: hand 1 is face up for everyone, hand 2 still hidden.
    player.play(until=lambda p: p.state.hand.number == 2 and len(p.commands) >= hand_1 + 8)
    body = replay(client, game_id, 1).get_json()
    assert body["face_up"] and body["hand"]["finished"]
    last = replay(client, game_id, 1, step=body["steps"]).get_json()["state"]
    assert len(last["hands"]) == players and "stock" in last
    check_in_play(client, player, 2)
    assert_problem(replay(client, game_id, 3), 404, "hand_not_found")


def replenished(player) -> int:
    """The version of the current hand's stock_replenished event, or 0."""
    for version in range(len(player.raw), 0, -1):
        kind = player.raw[version - 1]["type"]
        if kind == "stock_replenished":
            return version
        if kind == "hand_dealt":
            return 0
    return 0


# -- export, the audit endpoint and the command line ----------------------------------------


def cardtrail_command() -> list[str]:
    script = Path(sys.executable).with_name("cardtrail")
    if script.exists():  # the console script pip installed beside this interpreter
        return [str(script)]
    return [sys.executable, "-c", "from cardtrail.cli import main; main()"]


def test_export_is_json_lines_and_cardtrail_audit_judges_it(client, redis_client, tmp_path):
    preset, players, options = CASES[1]
    created, player = new_game(client, redis_client, preset, players, options, "export")
    game_id = created["id"]
    assert_problem(client.get(f"/games/{game_id}/export"), 409, "game_not_finished")
    assert_problem(client.get(f"/games/{game_id}/audit"), 409, "game_not_finished")
    player.play()

    response = client.get(f"/games/{game_id}/export", headers=auth(player.toks[1]))
    assert response.status_code == 200
    assert response.mimetype == "application/x-ndjson"
    assert game_id in response.headers["Content-Disposition"]
    body = response.get_data(as_text=True)
    assert body.endswith("\n")
    header, *lines = [json.loads(line) for line in body.splitlines()]
    # The header carries the public keys that sign receipts: an auditor needs no server.
    assert header == {
        "format": "cardtrail-export",
        "format_version": 1,
        "game_id": game_id,
        "game": "rummy",
        "keys": client.get("/keys").get_json()["keys"],
    }
    records = EventStore(redis_client).records(game_id)
    assert len(lines) == len(records) == len(player.raw)
    for line, record in zip(lines, records, strict=True):
        assert line["version"] == record.version
        assert line["event"] == record.event
        assert line["hash"] == record.hash
        assert line.get("command") == record.command
    assert lines[0]["command"] == {"type": "create"}
    assert lines[-1]["event"]["type"] == "seed_revealed"
    assert lines[-1]["event"]["server_seed"] == "export"

    audit = client.get(f"/games/{game_id}/audit").get_json()
    assert audit["ok"] is True and audit["first_bad"] is None
    assert audit["finished"] and audit["hands"] == 2 and audit["events"] == len(lines)
    # The test chose the server seed (a testing server): consistent, not provably fair.
    assert audit["deck_source"] == "seed" and audit["seed_source"] == "client"
    assert audit["provably_fair"] is False and len(audit["notes"]) == 1
    assert "NOT provably fair" in audit["notes"][0]
    assert all(audit["checks"].values()) and len(audit["checks"]) == 4

    # The real console script, offline: exit 0 on the clean file ...
    clean = tmp_path / "clean.jsonl"
    clean.write_text(body, encoding="utf-8")
    run = subprocess.run(
        [*cardtrail_command(), "audit", str(clean)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith(f"AUDIT PASSED, BUT NOT PROVABLY FAIR: game {game_id}")

    # ... exit 1 on a file with one byte changed, naming that event.
    rows = body.split("\n")
    version = len(lines) // 2
    row = rows[version]
    at = row.index('"type":"') + len('"type":"')
    rows[version] = row[:at] + chr(ord(row[at]) ^ 0x20) + row[at + 1 :]  # case flip
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("\n".join(rows), encoding="utf-8")
    run = subprocess.run(
        [*cardtrail_command(), "audit", str(tampered)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.startswith(f"AUDIT FAILED at event {version}:"), run.stdout
    assert "hash does not match" in run.stdout


def test_a_game_with_an_open_seat_audits_with_the_joiners_seed(client, redis_client):
    created = create_game(
        client,
        seed="open seat",
        seats=[{"name": "ann", "client_seed": "ann's"}, {"open": True}],
        options={"game_end": "deals", "deals": 1, "hand_size": 20, "stock_exhausted": "end"},
    )
    game_id = created["id"]
    joined = client.post(f"/games/{game_id}/join", json={"name": "bob", "client_seed": "bob's"})
    assert joined.status_code == 201
    toks = [tokens(created)[0], joined.get_json()["token"]]
    Player(client, redis_client, game_id, toks, 4).play()
    export = client.get(f"/games/{game_id}/export").get_data(as_text=True)
    seated = json.loads(export.splitlines()[2])
    assert seated["command"] == {"type": "start"}
    assert seated["event"] == {
        "type": "players_seated",
        "v": 2,  # the deal key's encoding (ledger.deal_key)
        "client_seeds": ["ann's", "bob's"],
        "seats": [{"name": "ann"}, {"name": "bob"}],  # who sat where
    }
    audit = client.get(f"/games/{game_id}/audit").get_json()
    assert audit["ok"] is True, audit


def test_an_explicit_deck_is_marked_and_the_audit_says_so(client, redis_client, tmp_path):
    options = {**SHORT, "hand_size": 20, "stock_exhausted": "end"}
    deck = list(GAME.pack(GAME.resolve_options(None, options, 2)))
    random.Random(1).shuffle(deck)
    created = create_game(client, seed="explicit deck", options=options, deck=deck)
    player = Player(client, redis_client, created["id"], tokens(created), 2)
    assert player.raw[0]["deck_source"] == "explicit"
    assert player.raw[2]["type"] == "hand_dealt" and player.raw[2]["deck"] == deck
    player.play()

    audit = client.get(f"/games/{created['id']}/audit").get_json()
    assert audit["ok"] is True and audit["deck_source"] == "explicit"
    assert any("explicit deck" in note for note in audit["notes"])

    path = tmp_path / "explicit.jsonl"
    path.write_bytes(client.get(f"/games/{created['id']}/export").get_data())
    result = CliRunner().invoke(main, ["audit", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("AUDIT PASSED")
    assert "note: hand 1 was dealt from an explicit deck (testing only)" in result.output


def test_cardtrail_replay_prints_a_hands_steps(
    client, redis_client, redis_url, monkeypatch, tmp_path
):
    preset, players, options = CASES[1]
    created, player = new_game(client, redis_client, preset, players, options, "terminal")
    game_id = created["id"]
    player.play(until=lambda p: len(p.commands) >= 6)
    monkeypatch.setenv("REDIS_URL", redis_url)
    runner = CliRunner()

    refused = runner.invoke(main, ["replay", game_id])  # a spectator, hand 1 in play
    assert refused.exit_code == 1
    assert "hand_in_play" in refused.output

    mine = runner.invoke(main, ["replay", game_id, "--hand", "1", "--token", player.toks[0]])
    assert mine.exit_code == 0, mine.output
    steps = len(player.raw) - 3  # game_created, players_seated, then hand 1's deal
    assert f"Game {game_id}, hand 1: {steps} steps" in mine.output
    assert "(face up)" not in mine.output
    hand = player.state.hand
    own = " ".join(pretty(card) for card in hand.hands[0])
    assert f"ann: {own}" in mine.output
    assert f"bob: {len(hand.hands[1])} cards" in mine.output

    player.play()
    done = runner.invoke(main, ["replay", game_id, "--hand", "1"])
    assert done.exit_code == 0, done.output
    spans = client.get(f"/games/{game_id}/hands").get_json()["hands"]
    first, steps = spans[0]["first_version"], spans[0]["steps"]
    assert f"Game {game_id}, hand 1: {steps} steps (face up)" in done.output
    lines = done.output.splitlines()
    for k in range(steps + 1):
        event = player.raw[first + k - 1]
        assert f"{k:>4}  {GAME.describe(event, list(NAMES[:players]))}" in lines
    assert "Hand 1 was dealt by" in done.output and "discard pile:" in done.output

    last = runner.invoke(main, ["replay", game_id])  # default: the last hand
    assert last.exit_code == 0 and f"hand 2: {spans[1]['steps']} steps" in last.output
    missing = runner.invoke(main, ["replay", game_id, "--hand", "9"])
    assert missing.exit_code == 1 and "hand_not_found" in missing.output
    monkeypatch.delenv("REDIS_URL")  # and no serve keeps its Redis in the data directory
    lost = runner.invoke(main, ["replay", game_id, "--data-dir", str(tmp_path)])
    assert lost.exit_code == 2 and "no cardtrail serve is running on" in lost.output


@pytest.mark.parametrize("game", ["rummy", "spades"])
def test_a_hand_cut_short_by_a_resignation_replays_face_up_to_anyone(client, game):
    """A forfeit ends the game inside a hand: that hand is over, face up, with no result."""
    seats = [{"name": name} for name in ("ann", "bob", "cy", "di")[: 4 if game == "spades" else 2]]
    created = client.post("/games", json={"game": game, "seats": seats}).get_json()
    game_id, token = created["id"], created["seats"][0]["token"]
    answer = client.post(f"/games/{game_id}/moves", json={"type": "forfeit"}, headers=auth(token))
    assert answer.status_code == 200, answer.get_json()
    [hand] = client.get(f"/games/{game_id}/hands").get_json()["hands"]
    assert hand["finished"] and hand["result"] is None
    last = client.get(f"/games/{game_id}/hands/1/replay?step={hand['steps']}")  # a spectator
    assert last.status_code == 200, last.get_json()
    body = last.get_json()
    assert body["face_up"] and body["event"]["type"] == "game_ended"
    dealt = sum(len(cards) for cards in body["state"]["hands"])
    assert dealt == (52 if game == "spades" else 20)  # nobody played a card: all still held
