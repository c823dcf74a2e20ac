"""Spades through the very audit and command line that judge Rummy, offline.

The exports are written by `tests.replays.exports` (with `game="spades"`), which
tests/service/test_spades_replays.py checks byte for byte against a Spades game
played over HTTP. Tampering works on the export, as in test_audit.py: raw bytes
(the hash chain names the line), or a forger who edits events and recomputes the
whole chain with `engine.ledger` (then only the seed, deck and rules checks can
catch it).
"""

import copy
import random

import pytest
from click.testing import CliRunner

from cardtrail.cli import main
from engine import games, table
from tests.replays.exports import Line, build_export, parse, rechain, text
from tests.replays.test_audit import audit_bytes, line_spans, sweep_flips

SPADES = games.get("spades")
GAME_ID = "offline-spades"
SHORT = {"max_hands": 2}
PRESETS = ["pairs", "suicide", "whiz", "mirror", "solo"]
# Seeds of the random players, chosen so that the pairs game has both looks and blind bids.
PLAYERS_RNG = {"pairs": 0, "suicide": 5, "whiz": 6, "mirror": 7, "solo": 8}


def audit_text(export_text: str):
    return audit_bytes(export_text.encode("utf-8"))


def forged(lines: list[Line]) -> str:
    """An export whose lines were edited and whose whole chain was then recomputed."""
    return text(GAME_ID, rechain(GAME_ID, lines), "spades")


def versions_of(lines: list[Line], kind: str) -> list[int]:
    return [line.version for line in lines if line.event["type"] == kind]


def seated(lines: list[Line], kind: str) -> list[int]:
    """Indexes (0-based) of the lines that open a batch with a seated `kind` command."""
    return [
        i
        for i, line in enumerate(lines)
        if line.command and "seat" in line.command and line.command["type"] == kind
    ]


def state_before(lines: list[Line], index: int):
    return table.fold(SPADES, [line.event for line in lines[:index]])


@pytest.fixture(scope="module")
def exports() -> dict[str, str]:
    """A clean two-hand game per mode; client seeds (one multi-byte) in the pairs game."""
    return {
        preset: build_export(
            GAME_ID,
            game="spades",
            server_seed=f"audit spades {preset}",
            players=4,
            rng=random.Random(PLAYERS_RNG[preset]),
            preset=preset,
            options=SHORT,
            client_seeds=["ännä 🂡", None, "cid", "dee"] if preset == "pairs" else None,
        )
        for preset in PRESETS
    }


@pytest.fixture(scope="module")
def pairs(exports) -> list[Line]:
    return parse(exports["pairs"])[1]


# -- a clean game -------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_a_clean_spades_game_passes_every_check(exports, preset):
    verdict = audit_text(exports[preset])
    assert verdict.ok, verdict.as_dict()
    assert verdict.game == "spades" and verdict.game_id == GAME_ID
    assert verdict.first_bad is None
    assert verdict.checks == {
        "hash_chain": True,
        "seed_commitment": True,
        "deals": True,
        "moves": True,
    }
    assert verdict.finished and verdict.hands == 2
    assert verdict.deck_source == "seed" and verdict.notes == []
    assert verdict.events == len(exports[preset].splitlines()) - 1
    assert verdict.summary().startswith(f"AUDIT PASSED: game {GAME_ID}")
    _, lines = parse(exports[preset])
    assert lines[0].event["game"] == "spades" and lines[0].event["options"]["mode"] == preset
    kinds = {line.event["type"] for line in lines}
    assert {"bid_made", "card_played", "trick_won", "hand_ended", "game_ended"} <= kinds
    assert len(versions_of(lines, "trick_won")) == 26  # two whole hands of 13 tricks


def test_the_pairs_game_holds_looks_and_blind_bids(pairs):
    """So that the checks above audited blind bidding, not only open bids."""
    bids = [line.event for line in pairs if line.event["type"] == "bid_made"]
    assert any(bid["blind"] for bid in bids) and any(not bid["blind"] for bid in bids)
    assert seated(pairs, "look")
    dealt = [line.event for line in pairs if line.event["type"] == "hand_dealt"]
    assert [event["unseen"] for event in dealt] == [[0, 1, 2, 3]] * 2


# -- any single byte flipped ----------------------------------------------------------


@pytest.mark.parametrize("preset", ["pairs", "suicide"])
def test_flipping_a_single_byte_of_any_event_is_caught_and_names_that_event(exports, preset):
    """Property over 150 random (line, byte, new value) per game, plus the edge cases."""
    data = exports[preset].encode("utf-8")
    checked, skipped = sweep_flips(data, f"spades flip {preset}", 150, 6)
    assert checked >= 146 and skipped <= 4


# -- forgeries that recompute the whole chain ----------------------------------------------


def caught_at(lines: list[Line], index: int, event, command) -> dict:
    """Insert (event, command) before line `index`, rechain; the audit's first bad event."""
    forgery = copy.deepcopy(lines)
    forgery.insert(index, Line(0, event, command, ""))
    verdict = audit_text(forged(forgery))
    assert verdict.checks["hash_chain"] and verdict.checks["seed_commitment"]
    assert not verdict.ok
    return verdict.first_bad


def test_an_inserted_card_the_seat_does_not_hold_is_caught_and_named(pairs):
    rng = random.Random(31)
    for index in rng.sample(seated(pairs, "play"), 20):
        state = state_before(pairs, index)
        seat = state.hand.turn
        card = state.hand.hands[(seat + 1) % 4][0]  # the next seat's card
        event = {"type": "card_played", "v": 1, "seat": seat, "card": card}
        bad = caught_at(pairs, index, event, {"type": "play", "card": card, "seat": seat})
        assert bad["version"] == index + 1, (index, bad)
        assert bad["reason"].startswith("illegal move") and "You do not hold" in bad["reason"]


def test_an_inserted_card_that_breaks_the_lead_rules_is_caught_and_named(exports):
    """A card the seat holds but may not play: a revoke, or spades led before they broke."""
    reasons = set()
    for preset in ("pairs", "solo"):
        _, lines = parse(exports[preset])
        for index in seated(lines, "play"):
            state = state_before(lines, index)
            seat = state.hand.turn
            legal = {move["card"] for move in SPADES.legal_moves(state, seat)}
            illegal = [card for card in state.hand.hands[seat] if card not in legal]
            if not illegal:
                continue
            card = illegal[0]
            event = {"type": "card_played", "v": 1, "seat": seat, "card": card}
            bad = caught_at(lines, index, event, {"type": "play", "card": card, "seat": seat})
            assert bad["version"] == index + 1, (preset, index, bad)
            assert bad["reason"].startswith("illegal move"), bad
            reasons.add(bad["reason"].split("}: ", 1)[1].split(":")[0])  # after the command
    assert reasons == {"Follow suit", "Spades are not broken yet"}, reasons


def test_an_inserted_play_out_of_turn_is_caught_and_named(pairs):
    index = seated(pairs, "play")[7]
    state = state_before(pairs, index)
    other = (state.hand.turn + 1) % 4
    card = state.hand.hands[other][0]
    event = {"type": "card_played", "v": 1, "seat": other, "card": card}
    bad = caught_at(pairs, index, event, {"type": "play", "card": card, "seat": other})
    assert bad["version"] == index + 1 and "turn" in bad["reason"], bad


@pytest.mark.parametrize(
    ("preset", "words"),
    [("suicide", "in suicide"), ("whiz", "in whiz"), ("mirror", "in mirror")],
)
def test_an_inserted_bid_the_mode_forbids_is_caught_and_named(exports, preset, words):
    """Every bid the mode refuses, before every recorded bid: each one named by the audit."""
    _, lines = parse(exports[preset])
    tried = 0
    for index in seated(lines, "bid"):
        state = state_before(lines, index)
        seat = state.hand.turn
        allowed = {move["tricks"] for move in SPADES.legal_moves(state, seat)}
        for tricks in sorted(set(range(14)) - allowed)[:3]:
            event = {"type": "bid_made", "v": 1, "seat": seat, "tricks": tricks, "blind": False}
            command = {"type": "bid", "tricks": tricks, "seat": seat}
            bad = caught_at(lines, index, event, command)
            assert bad["version"] == index + 1, (index, tricks, bad)
            assert bad["reason"].startswith("illegal move"), bad
            assert words in bad["reason"].lower(), bad
            tried += 1
    assert tried >= 16  # 8 bids, each refusing several numbers of tricks


def test_an_inserted_bid_without_looking_is_caught(pairs):
    """A seat dealt face down must look or bid blind; an open bid is illegal."""
    for index in seated(pairs, "bid"):
        state = state_before(pairs, index)
        seat = state.hand.turn
        if state.hand.unseen[seat]:
            break
    else:
        pytest.fail("no seat bid without having looked")
    event = {"type": "bid_made", "v": 1, "seat": seat, "tricks": 3, "blind": False}
    bad = caught_at(pairs, index, event, {"type": "bid", "tricks": 3, "seat": seat})
    assert bad["version"] == index + 1 and "Look at your cards" in bad["reason"], bad


@pytest.mark.parametrize("which", [0, 1])
def test_a_changed_deck_is_caught_even_with_the_chain_recomputed(pairs, which):
    lines = copy.deepcopy(pairs)
    version = versions_of(lines, "hand_dealt")[which]
    deck = lines[version - 1].event["deck"]
    deck[0], deck[5] = deck[5], deck[0]
    verdict = audit_text(forged(lines))
    assert verdict.checks["hash_chain"] and verdict.checks["seed_commitment"]
    assert verdict.first_bad == {
        "version": version,
        "reason": "this deck is not the one the seeds give",
    }


def test_a_whole_spades_game_from_a_chosen_deck_but_claimed_fair_is_caught():
    """A lying server: deals a deck it picked, plays on consistently, says "seed"."""
    deck = sorted(SPADES.pack(SPADES.resolve_options("whiz", SHORT, 4)))
    forgery = build_export(
        GAME_ID,
        game="spades",
        server_seed="liar",
        players=4,
        rng=random.Random(3),
        preset="whiz",
        options=SHORT,
        deck=deck,
        deck_source="seed",
    )
    verdict = audit_text(forgery)
    assert verdict.checks["hash_chain"] and verdict.checks["seed_commitment"]
    assert verdict.first_bad == {"version": 3, "reason": "this deck is not the one the seeds give"}


def test_changed_scores_or_tricks_are_caught_with_the_chain_recomputed(exports):
    _, lines = parse(exports["suicide"])
    won = versions_of(lines, "trick_won")[4]
    ended = versions_of(lines, "hand_ended")[0]
    finished = versions_of(lines, "game_ended")[0]
    for version, edit in (
        (won, lambda e: e.update(seat=(e["seat"] + 1) % 4)),
        (ended, lambda e: e.update(side_scores=[s + 10 for s in e["side_scores"]])),
        (ended, lambda e: e.update(bags=[b + 1 for b in e["bags"]])),
        (finished, lambda e: e.update(winners=[0, 1, 2, 3])),
    ):
        forgery = copy.deepcopy(lines)
        edit(forgery[version - 1].event)
        verdict = audit_text(forged(forgery))
        assert verdict.first_bad["version"] == version, verdict.first_bad
        assert "not what the rules produce" in verdict.first_bad["reason"]


# -- the command line -------------------------------------------------------------------


def test_cardtrail_audit_passes_a_clean_spades_file_and_fails_a_tampered_one(
    exports, pairs, tmp_path
):
    runner = CliRunner()
    clean = tmp_path / "spades.jsonl"
    clean.write_text(exports["pairs"], encoding="utf-8")
    result = runner.invoke(main, ["audit", str(clean)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"AUDIT PASSED: game {GAME_ID}, {len(pairs)} events, 2 hands")

    # One byte changed in the middle of event 60: the chain names it.
    data = bytearray(clean.read_bytes())
    start, end = line_spans(bytes(data))[60]
    data[start + (end - start) // 2] ^= 0x01
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_bytes(bytes(data))
    result = runner.invoke(main, ["audit", str(tampered)])
    assert result.exit_code == 1, result.output
    assert result.output.startswith("AUDIT FAILED at event 60:"), result.output
    assert "hash does not match" in result.output

    # A revoke slipped in with the chain recomputed: the rules name it.
    for index in seated(pairs, "play"):
        state = state_before(pairs, index)
        seat = state.hand.turn
        legal = {move["card"] for move in SPADES.legal_moves(state, seat)}
        illegal = [c for c in state.hand.hands[seat] if c not in legal]
        if state.hand.trick and illegal:
            break
    lines = copy.deepcopy(pairs)
    event = {"type": "card_played", "v": 1, "seat": seat, "card": illegal[0]}
    lines.insert(index, Line(0, event, {"type": "play", "card": illegal[0], "seat": seat}, ""))
    tampered.write_text(forged(lines), encoding="utf-8")
    result = runner.invoke(main, ["audit", str(tampered)])
    assert result.exit_code == 1, result.output
    assert result.output.startswith(f"AUDIT FAILED at event {index + 1}: illegal move")
    assert "Follow suit" in result.output
