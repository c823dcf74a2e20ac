"""The audit, offline, from export text alone (no server, no Redis).

Exports come from `tests.replays.exports`, which writes a game exactly as the
service does (tests/service/test_replays.py checks that byte for byte against a
game played over HTTP). Every tampering here works on the export: either raw
bytes (the hash chain must catch it and name the line), or a forger who edits
events and then recomputes the whole chain with `engine.ledger` (the seed, deck
and move checks must catch it).
"""

import copy
import io
import json
import random

import pytest
from click.testing import CliRunner

from cardtrail.cli import main
from engine import ledger, table
from replays.audit import audit_export
from tests.replays.exports import (
    GAME,
    Line,
    build_batches,
    build_export,
    chain,
    parse,
    rechain,
    text,
)

OPTIONS = {"game_end": "deals", "deals": 2}
GAME_ID = "offline-audit"


def audit_bytes(data: bytes):
    """What `cardtrail audit FILE` does: the file's bytes, split at b"\\n" only."""
    return audit_export(io.BytesIO(data))


def audit_text(export_text: str):
    return audit_bytes(export_text.encode("utf-8"))


def forged(lines: list[Line]) -> str:
    """An export whose lines were edited and whose whole chain was then recomputed."""
    return text(GAME_ID, rechain(GAME_ID, lines))


def versions_of(lines: list[Line], kind: str) -> list[int]:
    return [line.version for line in lines if line.event["type"] == kind]


@pytest.fixture(scope="module")
def exports() -> dict[str, str]:
    """Clean games for each preset; client seeds with multi-byte UTF-8 in one of them."""
    return {
        "block": build_export(
            GAME_ID,
            server_seed="audit block",
            players=3,
            rng=random.Random(11),
            preset="block",
            options=OPTIONS,
            client_seeds=["ännä 🂡", None, "cid"],
        ),
        "pagat": build_export(
            GAME_ID,
            server_seed="audit pagat",
            players=2,
            rng=random.Random(12),
            preset="pagat",
            options={**OPTIONS, "max_stock_reuses": 1, "hand_size": 15},
            client_seeds=["ann", "bob"],
        ),
        "wrotham": build_export(
            GAME_ID,
            server_seed="audit wrotham",
            players=3,
            rng=random.Random(13),
            preset="wrotham",
            options={**OPTIONS, "first_dealer": 0, "hand_size": 14},
        ),
    }


@pytest.fixture(scope="module")
def block(exports) -> list[Line]:
    return parse(exports["block"])[1]


# -- a clean game -------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["block", "pagat", "wrotham"])
def test_a_clean_game_passes_every_check(exports, preset):
    verdict = audit_text(exports[preset])
    assert verdict.ok, verdict.as_dict()
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
    assert verdict.summary().startswith("AUDIT PASSED")


def test_the_export_is_canonical_and_the_chain_starts_from_the_game_id(exports):
    """What docs/export-format.md promises a third-party verifier, re-derived here."""
    header, *rows = exports["block"].splitlines()
    assert json.loads(header) == {
        "format": "cardtrail-export",
        "format_version": 1,
        "game_id": GAME_ID,
        "game": "rummy",
    }
    previous = ledger.chain_start(GAME_ID)
    for version, row in enumerate(rows, start=1):
        data = json.loads(row)
        assert row == ledger.canonical_json(data)
        assert data["version"] == version
        record = {
            "event": data["event"],
            **({"command": data["command"]} if "command" in data else {}),
        }
        previous = ledger.chain(previous, ledger.canonical_json(record).encode())
        assert data["hash"] == previous
    first, last = json.loads(rows[0])["event"], json.loads(rows[-1])["event"]
    assert first["type"] == "game_created" and last["type"] == "seed_revealed"
    assert ledger.commitment(last["server_seed"]) == first["seed_commitment"]


# -- any single byte flipped ----------------------------------------------------------


def line_spans(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of every line, end being the index of its b"\\n"."""
    spans, start = [], 0
    while start < len(data):
        end = data.index(b"\n", start)
        spans.append((start, end))
        start = end + 1
    return spans


def unchanged(data: bytes, position: int, new_byte: int) -> bool:
    """Whether the flip leaves every line's JSON value as it was.

    The lines are compact canonical JSON with no whitespace outside strings, so a
    single byte can keep the values only by turning the file's very last b"\\n" into
    other whitespace; this says so for any flip, so that the test can skip exactly
    those (they change no stored event) and check that no other kind exists.
    """
    if data[position] == 0x0A or new_byte == 0x0A:  # lines split or merged
        return position == len(data) - 1 and chr(new_byte) in " \t\r"
    start = data.rfind(b"\n", 0, position) + 1
    end = data.index(b"\n", position)
    before = data[start:end]
    after = before[: position - start] + bytes([new_byte]) + before[position - start + 1 :]
    try:
        return json.loads(after.decode("utf-8")) == json.loads(before.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return False


def check_flip(data: bytes, position: int, new_byte: int, line: int) -> bool:
    """Flip one byte of event line `line`; the audit must fail naming version `line`.

    Returns False for a flip that changes no stored value (see `unchanged`), skipped.
    """
    if unchanged(data, position, new_byte):
        assert position == len(data) - 1, (line, position, new_byte)
        return False
    flipped = data[:position] + bytes([new_byte]) + data[position + 1 :]
    verdict = audit_bytes(flipped)
    where = (line, position, data[position : position + 1], bytes([new_byte]))
    assert not verdict.ok, where
    assert verdict.first_bad["version"] == line, (where, verdict.first_bad)
    return True


def sweep_flips(data: bytes, seed: str, flips: int, edge_lines: int) -> tuple[int, int]:
    """`flips` random single-byte flips, each checked alone; then edge cases: the first
    and last bytes of about `edge_lines` lines and of the last line, turned into a newline
    (splits the line), a non-UTF-8 byte, a space and a brace. Returns (checked, skipped)."""
    spans = line_spans(data)
    rng = random.Random(seed)
    checked = skipped = 0
    for _ in range(flips):
        line = rng.randrange(1, len(spans))  # line i of the file holds version i
        start, end = spans[line]
        position = rng.randint(start, end)  # the line's bytes and its b"\n"
        new_byte = data[position] ^ rng.randrange(1, 256)
        if check_flip(data, position, new_byte, line):
            checked += 1
        else:
            skipped += 1
    for line in [*range(1, len(spans), len(spans) // edge_lines), len(spans) - 1]:
        start, end = spans[line]
        for position in (start, end - 1, end):
            for new_byte in (0x0A, 0xFF, 0x20, 0x7B):
                if new_byte != data[position]:
                    check_flip(data, position, new_byte, line)
    return checked, skipped


@pytest.mark.parametrize("preset", ["block", "pagat", "wrotham"])
def test_flipping_any_single_byte_of_any_event_is_caught_and_names_that_event(exports, preset):
    """Property over 300 random (line, byte, new value) per game, plus the edge cases."""
    checked, skipped = sweep_flips(exports[preset].encode("utf-8"), f"flip {preset}", 300, 8)
    assert checked >= 295 and skipped <= 5


def test_a_flip_inside_the_hash_or_the_version_names_that_event(exports):
    data = exports["pagat"].encode("utf-8")
    spans = line_spans(data)
    rng = random.Random(5)
    hexdigits = b"0123456789abcdef"
    for line in rng.sample(range(1, len(spans)), 40):
        start, end = spans[line]
        row = data[start:end]
        # A hash digit changed to another hex digit: the line still parses.
        hash_at = start + row.index(b'"hash":"') + len(b'"hash":"') + rng.randrange(64)
        other = rng.choice([d for d in hexdigits if d != data[hash_at]])
        assert check_flip(data, hash_at, other, line)
        # A version digit changed: the line claims another place in the log.
        version_at = start + row.index(b'"version":') + len(b'"version":')
        digit = rng.choice([d for d in b"0123456789" if d != data[version_at]])
        assert check_flip(data, version_at, digit, line)


def test_unparseable_lines_name_their_own_version(exports):
    data = exports["block"].encode("utf-8")
    spans = line_spans(data)
    for line in (1, 2, len(spans) // 2, len(spans) - 1):
        start, end = spans[line]
        broken = data[:start] + b"{not json" + data[end:]
        verdict = audit_bytes(broken)
        assert verdict.first_bad["version"] == line and "unreadable" in verdict.first_bad["reason"]
        invalid = data[:start] + b"\xff" + data[start + 1 :]
        verdict = audit_bytes(invalid)
        assert verdict.first_bad["version"] == line and "UTF-8" in verdict.first_bad["reason"]


def test_a_tampered_header_fails(exports):
    """The header is not an event: its game id starts the chain, its format is checked."""
    header, _, rest = exports["block"].partition("\n")
    values = json.loads(header)
    for change in (
        {"game_id": GAME_ID + "x"},
        {"format": "other"},
        {"format_version": 2},
        {"game": "poker"},
    ):
        verdict = audit_text(json.dumps({**values, **change}) + "\n" + rest)
        assert not verdict.ok, change
    wrong_id = json.dumps({**values, "game_id": "another game"}) + "\n" + rest
    assert audit_text(wrong_id).first_bad["version"] == 1
    assert not audit_text("").ok and not audit_text(header + "\n").ok


# -- forgeries that recompute the whole chain ----------------------------------------------


@pytest.mark.parametrize("which", [0, 1])
def test_a_changed_deck_is_caught_even_with_the_chain_recomputed(block, which):
    lines = copy.deepcopy(block)
    version = versions_of(lines, "hand_dealt")[which]
    deck = lines[version - 1].event["deck"]
    deck[0], deck[5] = deck[5], deck[0]
    verdict = audit_text(forged(lines))
    assert verdict.checks["hash_chain"] and verdict.checks["seed_commitment"]
    assert not verdict.ok
    assert verdict.first_bad == {
        "version": version,
        "reason": "this deck is not the one the seeds give",
    }


def test_a_whole_game_played_from_a_chosen_deck_but_claimed_fair_is_caught():
    """A lying server: deals a deck it picked, plays on consistently, says "seed"."""
    options = GAME.resolve_options("block", OPTIONS, 2)
    deck = sorted(GAME.pack(options))
    forgery = build_export(
        GAME_ID,
        server_seed="liar",
        players=2,
        rng=random.Random(3),
        preset="block",
        options=OPTIONS,
        deck=deck,
        deck_source="seed",
    )
    verdict = audit_text(forgery)
    assert verdict.checks["hash_chain"] and verdict.checks["seed_commitment"]
    assert verdict.first_bad["version"] == 3  # game_created, players_seated, hand_dealt
    assert "deck" in verdict.first_bad["reason"]


def test_an_explicit_deck_passes_and_the_audit_says_so():
    options = GAME.resolve_options("block", OPTIONS, 2)
    deck = list(GAME.pack(options))
    random.Random(9).shuffle(deck)
    export = build_export(
        GAME_ID,
        server_seed="explicit",
        players=2,
        rng=random.Random(4),
        preset="block",
        options=OPTIONS,
        deck=deck,
    )
    verdict = audit_text(export)
    assert verdict.ok, verdict.as_dict()
    assert verdict.deck_source == "explicit"
    assert any("explicit deck" in note for note in verdict.notes)
    assert "note: hand 1 was dealt from an explicit deck" in verdict.summary()
    # Only hand 1 may come from it: hand 2 is still checked against the seeds.
    _, lines = parse(export)
    second = versions_of(lines, "hand_dealt")[1]
    lines[second - 1].event["deck"] = deck
    assert audit_text(forged(lines)).first_bad["version"] == second


def test_every_removed_event_is_caught(block):
    last = len(block)
    rechained = {1, 2, 3, 4, last, *random.Random(2).sample(range(5, last), 30)}
    for index in range(last):
        version = index + 1
        kept = block[:index] + block[index + 1 :]
        # Without touching the hashes: the version numbers skip it.
        verdict = audit_text(text(GAME_ID, kept))
        assert not verdict.ok, version
        if version == last:  # a cut log: nothing after it to notice the gap
            assert "never revealed" in verdict.first_bad["reason"]
        else:
            assert verdict.first_bad["version"] == version, (version, verdict.first_bad)
        if version not in rechained:
            continue
        # Renumbered and rechained: the rules notice, at the gap or (when a whole move
        # was cut out and the game still made sense without it) at a later event.
        verdict = audit_text(forged(kept))
        assert not verdict.ok, version
        assert verdict.checks["hash_chain"]
        if version == last:
            assert "never revealed" in verdict.first_bad["reason"]
        else:
            assert verdict.first_bad["version"] >= version, (version, verdict.first_bad)


def test_an_inserted_illegal_move_is_caught_and_named(block):
    """A fabricated move and its event, slipped in before a real move, chain recomputed."""
    rng = random.Random(21)
    moves = [i for i, line in enumerate(block) if line.command and "seat" in line.command]
    for index in rng.sample(moves, 25):
        state = table.fold(GAME, [line.event for line in block[:index]])
        seat = state.hand.turn
        other = (seat + 1) % 3
        card = state.hand.hands[other][0]  # a card the seat in turn does not hold
        if rng.random() < 0.5:  # a seat out of turn draws
            command = {"type": "draw", "source": "stock", "seat": other}
            event = {"type": "card_drawn", "v": 1, "seat": other, "source": "stock", "card": card}
        else:  # the seat in turn discards another seat's card
            command = {"type": "discard", "card": card, "seat": seat}
            event = {"type": "discarded", "v": 1, "seat": seat, "card": card}
        lines = copy.deepcopy(block)
        lines.insert(index, Line(0, event, command, ""))
        verdict = audit_text(forged(lines))
        assert verdict.checks["hash_chain"]
        assert verdict.first_bad["version"] == index + 1, (index, verdict.first_bad)
        assert verdict.first_bad["reason"].startswith("illegal move"), verdict.first_bad


def test_an_inserted_event_without_a_move_is_caught(block):
    index = versions_of(block, "discarded")[3]  # just after a discard, before the next draw
    lines = copy.deepcopy(block)
    extra = {"type": "discarded", "v": 1, "seat": block[index - 1].event["seat"], "card": "QS"}
    lines.insert(index, Line(0, extra, None, ""))
    verdict = audit_text(forged(lines))
    assert verdict.first_bad["version"] == index + 1
    assert "not what the rules produce" in verdict.first_bad["reason"]


def test_a_wrong_revealed_seed_is_caught(block):
    lines = copy.deepcopy(block)
    assert lines[-1].event["type"] == "seed_revealed"
    lines[-1].event["server_seed"] = "a seed that was never committed"
    verdict = audit_text(forged(lines))
    assert verdict.checks["hash_chain"] and not verdict.ok
    assert verdict.first_bad["version"] == len(lines)
    assert "commitment" in verdict.first_bad["reason"]


def test_a_new_seed_with_a_matching_new_commitment_still_fails_on_the_decks(exports):
    """The forger rewrites the commitment too: the decks no longer follow from the seed."""
    _, lines = parse(exports["wrotham"])  # first dealer fixed, so the deck check is first
    lines[0].event["seed_commitment"] = ledger.commitment("forged seed")
    lines[-1].event["server_seed"] = "forged seed"
    verdict = audit_text(forged(lines))
    assert verdict.checks["seed_commitment"]
    assert verdict.first_bad == {"version": 3, "reason": "this deck is not the one the seeds give"}


def test_changed_cards_or_scores_are_caught_with_the_chain_recomputed(block):
    drawn = next(
        v for v in versions_of(block, "card_drawn") if block[v - 1].event["source"] == "stock"
    )
    ended = versions_of(block, "hand_ended")[0]
    for version, edit in (
        (drawn, lambda e: e.update(card="JK" if e["card"] != "JK" else "2C")),
        (ended, lambda e: e.update(scores=[s + 1 for s in e["scores"]])),
        (ended, lambda e: e.update(winner=None if e["winner"] is not None else 0)),
    ):
        lines = copy.deepcopy(block)
        edit(lines[version - 1].event)
        verdict = audit_text(forged(lines))
        assert verdict.first_bad["version"] == version, verdict.first_bad
        assert "not what the rules produce" in verdict.first_bad["reason"]


def test_a_forged_log_never_crashes_the_audit(block):
    """Any value of any event or command replaced, chain recomputed: a verdict, never a crash."""
    rng = random.Random(8)
    values = [None, 0, -1, 7, "", "zz", "5H", [], {}, True, ["5H"], 2.5]

    def paths(value, prefix=()):
        if prefix:
            yield prefix
        if isinstance(value, dict):
            for key in value:
                yield from paths(value[key], (*prefix, key))
        elif isinstance(value, list):
            for position, item in enumerate(value):
                yield from paths(item, (*prefix, position))

    for _ in range(50):
        lines = copy.deepcopy(block)
        line = rng.choice(lines)
        root = line.command if line.command and rng.random() < 0.4 else line.event
        path = rng.choice(list(paths(root)))
        parent = root
        for step in path[:-1]:
            parent = parent[step]
        if isinstance(parent, dict) and rng.random() < 0.3:
            del parent[path[-1]]
        else:
            parent[path[-1]] = rng.choice(values)
        if lines == block:
            continue
        verdict = audit_text(forged(lines))
        # Two edits change nothing the rules depend on: None and "" are the same
        # (absent) client seed. Everything else must be caught.
        if verdict.ok:
            assert line.event["type"] == "players_seated", (line.version, path)
            continue
        assert verdict.first_bad["version"] is None or verdict.first_bad["version"] >= 1


def test_batches_chain_like_the_rechain_helper():
    """The helpers agree: chaining fresh batches equals rechaining the same lines."""
    batches = build_batches(server_seed="x", players=2, rng=random.Random(1), options=OPTIONS)
    lines = chain(GAME_ID, batches)
    assert rechain(GAME_ID, lines) == lines


# -- the command line -------------------------------------------------------------------


def test_cardtrail_audit_passes_a_clean_file_and_fails_a_tampered_one(exports, tmp_path):
    runner = CliRunner()
    clean = tmp_path / "clean.jsonl"
    clean.write_text(exports["block"], encoding="utf-8")
    result = runner.invoke(main, ["audit", str(clean)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("AUDIT PASSED")

    data = bytearray(clean.read_bytes())
    start, end = line_spans(bytes(data))[40]
    data[start + (end - start) // 2] ^= 0x01
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_bytes(bytes(data))
    result = runner.invoke(main, ["audit", str(tampered)])
    assert result.exit_code == 1, result.output
    assert result.output.startswith("AUDIT FAILED at event 40:")
    result = runner.invoke(main, ["audit", "--json", str(tampered)])
    assert result.exit_code == 1
    assert json.loads(result.output)["first_bad"]["version"] == 40

    data = bytearray(clean.read_bytes())
    data[line_spans(bytes(data))[7][0] + 3] = 0xFF  # not UTF-8
    tampered.write_bytes(bytes(data))
    result = runner.invoke(main, ["audit", str(tampered)])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)  # a verdict, not a UnicodeDecodeError
    assert result.output.startswith("AUDIT FAILED at event 7:"), result.output
