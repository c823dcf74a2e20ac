"""A Spades game over HTTP, replayed by `cardtrail replay` and exported for the offline
audit — the same commands and code that serve Rummy (tests/service/test_replays.py).

Moves are seeded random legal moves taken from each seat's own view; the truth for
every replayed step is the engine's sentence for the stored event.
"""

import io
import random

from click.testing import CliRunner

from cardtrail.cli import main
from engine import games, table
from engine.cards import pretty
from replays.audit import audit_export
from service.store import EventStore
from tests.replays.exports import build_batches, chain, keys_of, text
from tests.service.helpers import create_game, move, tokens, view

SPADES = games.get("spades")
NAMES = ["ann", "bob", "cid", "dee"]
SEEDS = [f"{name}'s seed ♠" for name in NAMES]
OPTIONS = {"max_hands": 2, "first_dealer": 0}
SERVER_SEED = "spades terminal"


class SpadesPlayer:
    """The seat in turn picks a random move from its own legal moves, over HTTP."""

    def __init__(self, client, redis_client, game_id: str, toks: list[str | None]):
        self.client, self.game_id, self.toks = client, game_id, toks
        self.store = EventStore(redis_client)
        self.rng = random.Random(SERVER_SEED)
        self.raw: list[dict] = []
        self.state = None
        self.commands: list[dict] = []
        self.sync()

    def sync(self) -> None:
        newer = self.store.read(self.game_id, after=len(self.raw))
        self.raw += newer
        self.state = table.fold(SPADES, newer, self.state)

    def send(self, seat: int, command: dict) -> None:
        answer = move(self.client, self.game_id, self.toks[seat], command)
        assert answer.status_code == 200, (command, answer.get_json())
        self.commands.append({**command, "seat": seat})
        self.sync()

    def play(self, until=lambda player: False, limit: int = 1000) -> None:
        while not SPADES.is_finished(self.state) and not until(self):
            assert len(self.commands) < limit, "the game did not finish"
            seat = SPADES.to_act(self.state)[0]
            mine = view(self.client, self.game_id, self.toks[seat])
            assert mine["turn"] == seat, mine
            self.send(seat, self.rng.choice(mine["you"]["legal_moves"]))


def test_cardtrail_replay_and_the_export_of_a_spades_game(
    client, redis_client, redis_url, monkeypatch, tmp_path
):
    created = create_game(
        client,
        seed=SERVER_SEED,
        game="spades",
        preset="pairs",
        options=OPTIONS,
        seats=[{"name": n, "client_seed": s} for n, s in zip(NAMES, SEEDS, strict=True)],
    )
    game_id = created["id"]
    player = SpadesPlayer(client, redis_client, game_id, tokens(created))
    monkeypatch.setenv("REDIS_URL", redis_url)
    runner = CliRunner()

    # A seat dealt face down looks at its cards out of turn (a move at any time), so
    # its next bid is an open one.
    assert player.state.hand.turn == 1 and player.state.hand.unseen[3]
    player.send(3, {"type": "look"})

    # Hand 1 in play, past the bidding: a spectator is refused, a seat sees its own cards.
    player.play(until=lambda p: sum(c["type"] == "play" for c in p.commands) >= 6)
    assert player.state.hand.number == 1 and player.state.hand.phase == "playing"
    refused = runner.invoke(main, ["replay", game_id])
    assert refused.exit_code == 1 and "hand_in_play" in refused.output
    mine = runner.invoke(main, ["replay", game_id, "--hand", "1", "--token", player.toks[0]])
    assert mine.exit_code == 0, mine.output
    assert f"Game {game_id}, hand 1: {len(player.raw) - 3} steps\n" in mine.output
    hand = player.state.hand
    own = SPADES.view(player.state, 0)["you"]["hand"]  # the seat's cards, in the view's order
    assert sorted(own) == sorted(hand.hands[0])
    assert f"ann: {' '.join(pretty(card) for card in own)}   " in mine.output
    for seat in (1, 2, 3):
        assert f"{NAMES[seat]}: {len(hand.hands[seat])} cards   " in mine.output

    # Finished: hand 1 face up, every step the engine's sentence for the stored event.
    player.play()
    assert SPADES.is_finished(player.state)
    spans = client.get(f"/games/{game_id}/hands").get_json()["hands"]
    assert [span["number"] for span in spans] == [1, 2]
    first, steps = spans[0]["first_version"], spans[0]["steps"]
    assert first == 3 and steps > 52
    done = runner.invoke(main, ["replay", game_id, "--hand", "1"])
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert lines[0] == f"Game {game_id}, hand 1: {steps} steps (face up)"
    expected = [
        f"{k:>4}  {table.describe(SPADES, player.raw[first + k - 1], NAMES)}"
        for k in range(steps + 1)
    ]
    assert lines[1 : steps + 2] == expected
    kinds = {player.raw[first + k - 1]["type"] for k in range(steps + 1)}
    assert kinds >= {"hand_dealt", "bid_made", "cards_seen", "card_played", "trick_won"}
    assert "hand_ended" in kinds
    bids = [e for e in player.raw if e["type"] == "bid_made"]
    assert any(bid["blind"] for bid in bids) and any(not bid["blind"] for bid in bids)
    ended = player.raw[spans[0]["last_version"] - 1]
    for seat, name in enumerate(NAMES):  # every card played: empty hands, the hand's scores
        assert f"  {name}: —   score {ended['scores'][seat]}" in lines
    last = runner.invoke(main, ["replay", game_id])  # default: the last hand
    assert last.exit_code == 0 and f"hand 2: {spans[1]['steps']} steps (face up)" in last.output

    # The export audits clean offline, by the API and by `cardtrail audit`, and is the
    # very bytes the offline builder writes for the same seeds and moves.
    export = client.get(f"/games/{game_id}/export")
    assert export.status_code == 200
    body = export.get_data(as_text=True)
    verdict = audit_export(io.BytesIO(export.get_data()))
    assert verdict.ok and verdict.game == "spades" and verdict.hands == 2, verdict.as_dict()
    assert verdict.events == len(player.raw)
    assert client.get(f"/games/{game_id}/audit").get_json()["ok"] is True
    batches = build_batches(
        game="spades",
        server_seed=SERVER_SEED,
        players=4,
        moves=player.commands,
        preset="pairs",
        options=OPTIONS,
        client_seeds=SEEDS,
        seed_source="client",  # the test chose the server seed
        seats=[{"name": name} for name in ("ann", "bob", "cid", "dee")],
    )
    assert body == text(game_id, chain(game_id, batches), "spades", keys_of(body))
    path = tmp_path / "spades.jsonl"
    path.write_bytes(export.get_data())
    audited = runner.invoke(main, ["audit", str(path)])
    assert audited.exit_code == 0, audited.output
    passed = f"AUDIT PASSED, BUT NOT PROVABLY FAIR: game {game_id}, {len(player.raw)} events"
    assert audited.output.startswith(passed)  # the test chose the server seed
