"""The audit: re-run a whole exported game and prove it fair and legal, or name the first bad event.

Works offline from the export alone (no server, no Redis). Checks, in order of the log:
  1. the hash chain, from SHA-256(game id) through every record;
  2. the revealed server seed against the commitment in the first event;
  3. every deck against the one the seeds give (or notes an explicit, testing-only deck);
  4. every move: re-deciding each recorded command through the engine must reproduce
     exactly the recorded events — which also re-derives every score.
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engine import IllegalMove, InvalidOptions, games, ledger, table
from engine.games import Game

EXPORT_FORMAT = "cardtrail-export"
EXPORT_FORMAT_VERSION = 1


@dataclass
class Verdict:
    ok: bool = True
    game_id: str | None = None
    game: str | None = None
    events: int = 0
    hands: int = 0
    finished: bool = False
    deck_source: str | None = None
    checks: dict[str, bool] = field(default_factory=dict)
    first_bad: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)

    def fail(self, version: int | None, reason: str) -> "Verdict":
        self.ok = False
        if self.first_bad is None:
            self.first_bad = {"version": version, "reason": reason}
        return self

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "game_id": self.game_id,
            "game": self.game,
            "events": self.events,
            "hands": self.hands,
            "finished": self.finished,
            "deck_source": self.deck_source,
            "checks": self.checks,
            "first_bad": self.first_bad,
            "notes": self.notes,
        }

    def summary(self) -> str:
        if self.ok:
            text = (
                f"AUDIT PASSED: game {self.game_id}, {self.events} events, {self.hands} hands; "
                "hash chain intact, seed matches its commitment, every deal fair, every move legal."
            )
        else:
            bad = self.first_bad or {}
            text = f"AUDIT FAILED at event {bad.get('version')}: {bad.get('reason')}"
        return "\n".join([text, *(f"note: {note}" for note in self.notes)])


@dataclass(frozen=True)
class Entry:
    version: int
    event: dict[str, Any]
    command: dict[str, Any] | None
    hash: str


def parse_export(lines: Iterable[str | bytes]) -> tuple[dict[str, Any], list[Entry], Verdict]:
    """Read an export; unreadable lines are reported by the version they should hold.

    Lines may be bytes (a file opened in binary mode, split at b"\\n" only): each is
    decoded on its own, so a byte that is not UTF-8 names its own line. Blank lines
    are allowed only at the end; a blank line inside the log is itself a bad line,
    so that a byte turned into a newline is blamed on the line it was in.
    """
    verdict = Verdict()
    header: dict[str, Any] = {}
    entries: list[Entry] = []
    blank: int | None = None
    for number, line in enumerate(lines):
        where = "the header" if number == 0 else f"line {number + 1}"
        try:
            text = line.decode("utf-8") if isinstance(line, bytes) else line
        except UnicodeDecodeError as error:
            verdict.fail(number or None, f"{where} is not UTF-8 ({error})")
            break
        if not text.strip():
            if blank is None:
                blank = number
            continue
        if blank is not None:
            verdict.fail(blank or None, f"line {blank + 1} is empty, inside the log")
            break
        try:
            data = json.loads(text)
            if number == 0:
                header = data
                if data.get("format") != EXPORT_FORMAT:
                    raise ValueError("not a cardtrail export")
                if data.get("format_version") != EXPORT_FORMAT_VERSION:
                    raise ValueError(f"format_version {data.get('format_version')!r} is unknown")
                continue
            event, command = data["event"], data.get("command")
            if not isinstance(event, dict) or not isinstance(command, dict | None):
                raise TypeError("an event and its command must be JSON objects")
            entries.append(Entry(int(data["version"]), event, command, str(data["hash"])))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            verdict.fail(number or None, f"{where} is unreadable ({error})")
            break
    return header, entries, verdict


def audit_export(lines: Iterable[str | bytes]) -> Verdict:
    header, entries, verdict = parse_export(lines)
    if not verdict.ok:
        return verdict
    return audit(header.get("game_id", ""), header.get("game", ""), entries)


def audit(game_id: str, game_name: str, entries: list[Entry]) -> Verdict:
    verdict = Verdict(game_id=game_id, game=game_name, events=len(entries))
    if not _check_chain(game_id, entries, verdict):
        return verdict
    verdict.checks["hash_chain"] = True
    for entry in entries:
        if not isinstance(entry.event.get("type"), str):
            return verdict.fail(entry.version, "this event has no type")
    server_seed = _check_seed(entries, verdict)
    if server_seed is None:
        return verdict
    _replay(game_name, entries, server_seed, verdict)
    return verdict


def _check_chain(game_id: str, entries: list[Entry], verdict: Verdict) -> bool:
    previous = ledger.chain_start(game_id)
    for expected_version, entry in enumerate(entries, start=1):
        if entry.version != expected_version:
            verdict.fail(
                expected_version, f"event {expected_version} is missing (found {entry.version})"
            )
            return False
        try:
            computed = ledger.chain(previous, ledger.record_bytes(entry.event, entry.command))
        except (TypeError, ValueError) as error:  # e.g. a lone surrogate, not UTF-8-encodable
            verdict.fail(entry.version, f"this event cannot be hashed ({error})")
            return False
        if computed != entry.hash:
            verdict.fail(
                entry.version,
                "the hash does not match: this event, its command or its "
                "hash was altered, or an event before it was removed",
            )
            return False
        previous = entry.hash
    verdict.checks["hash_chain"] = True
    return True


def _check_seed(entries: list[Entry], verdict: Verdict) -> str | None:
    if not entries or entries[0].event.get("type") != "game_created":
        verdict.fail(1, "the log does not start with the game's creation")
        return None
    committed = entries[0].event.get("seed_commitment")
    revealed = [e for e in entries if e.event["type"] == "seed_revealed"]
    if not revealed:
        verdict.fail(None, "the server seed was never revealed: the game is not finished")
        return None
    seed = revealed[-1].event.get("server_seed", "")
    if not isinstance(seed, str) or ledger.commitment(seed) != committed:
        verdict.fail(
            revealed[-1].version,
            "the revealed server seed does not match the commitment made when the game was created",
        )
        return None
    verdict.checks["seed_commitment"] = True
    return seed


def _replay(game_name: str, entries: list[Entry], server_seed: str, verdict: Verdict) -> None:
    try:
        game = games.get(game_name)
    except InvalidOptions as error:
        verdict.fail(None, f"the header names no game this auditor knows ({error.reason})")
        return
    created = entries[0].event
    verdict.deck_source = created.get("deck_source")
    if entries[0].command != {"type": "create"}:
        verdict.fail(1, 'the game\'s creation is not recorded with the command {"type": "create"}')
        return
    if not _check_created(game, created, server_seed, verdict):
        return
    _replay_batches(game, entries, server_seed, verdict)


def _check_created(game: Game, created: dict[str, Any], server_seed: str, verdict: Verdict) -> bool:
    """The first event must be exactly what the table writes for its options and seats."""
    try:
        players = created["players"]
        options = game.resolve_options(None, created["options"], players)
        dealer = getattr(options, "first_dealer", None)
        if dealer is None:
            dealer = table.first_dealer(table.seed_key(server_seed), players)
        if created.get("first_dealer") != dealer:
            verdict.fail(1, "the first dealer is not the one the server seed gives")
            return False
        source = created.get("deck_source")
        if source not in ("seed", "explicit"):
            raise ValueError(f"unknown deck source {source!r}")
        expected = game.created_event(options, players, dealer, source)
        expected["seed_commitment"] = created.get("seed_commitment")
        if "clock" in created:  # a table option (turn clocks), recorded for the audit
            expected["clock"] = created["clock"]
    except (InvalidOptions, KeyError, TypeError, ValueError, AttributeError) as error:
        verdict.fail(1, f"the game's creation is malformed ({getattr(error, 'reason', error)})")
        return False
    if ledger.canonical_json(expected) != ledger.canonical_json(created):
        verdict.fail(1, "the game's creation is not what the table writes for these options")
        return False
    return True


def _replay_batches(game: Game, entries: list[Entry], server_seed: str, verdict: Verdict) -> None:
    created = entries[0].event
    state = game.evolve(None, created)
    key: bytes | None = None
    deadlines: dict[int, float] = {}
    index = 1
    while index < len(entries):
        entry = entries[index]
        batch_end = index + 1
        while batch_end < len(entries) and entries[batch_end].command is None:
            batch_end += 1
        kept = []
        for item in entries[index:batch_end]:
            kind = item.event.get("type")
            if kind == "turn_started":
                deadlines[item.event.get("seat")] = item.event.get("deadline")
            elif kind == "turn_timed_out":
                due = deadlines.get(item.event.get("seat"))
                at = item.event.get("at")
                numbers = isinstance(due, int | float) and isinstance(at, int | float)
                if not numbers or at < due:
                    verdict.fail(item.version, "a time-out was recorded before the turn's deadline")
                    return
            if kind not in table.CLOCK_EVENTS:
                kept.append(item)
        if not kept:
            verdict.fail(entry.version, "a batch holds only clock events")
            return
        entry = (
            kept[0]
            if entry.command is None
            else Entry(kept[0].version, kept[0].event, entry.command, kept[0].hash)
        )
        stored = [e.event for e in kept]
        try:
            if (
                stored[0]["type"] == "players_seated"
                or (entry.command or {}).get("type") == "start"
            ):
                if key is not None:
                    verdict.fail(entry.version, "the players were seated twice")
                    return
                seeds = stored[0].get("client_seeds")
                if (
                    not isinstance(seeds, list)
                    or len(seeds) != created["players"]
                    or not all(seed is None or isinstance(seed, str) for seed in seeds)
                ):
                    verdict.fail(entry.version, "the client seeds are not one per seat")
                    return
                key = ledger.deal_key(server_seed, seeds)
                produced = [table.players_seated(seeds)]
                deal = table.deal_command(game, state, key)
                if verdict.deck_source == "explicit":
                    deal["deck"] = stored[1].get("deck") if len(stored) > 1 else None
                    verdict.notes.append(
                        "hand 1 was dealt from an explicit deck (testing only), not from the seeds"
                    )
                try:
                    produced += game.decide(state, deal)
                except IllegalMove as error:
                    verdict.fail(
                        entry.version, f"the first deal is not a valid deck: {error.message}"
                    )
                    return
            else:
                if key is None:
                    verdict.fail(
                        entry.version, "a move was recorded before the players were seated"
                    )
                    return
                command = entry.command
                if command is None:
                    verdict.fail(
                        entry.version, "an event was recorded without the move that made it"
                    )
                    return
                try:
                    after, produced = table.play(game, state, command, key)
                except IllegalMove as error:
                    verdict.fail(
                        entry.version, f"illegal move {json.dumps(command)}: {error.message}"
                    )
                    return
                if game.is_finished(after):
                    produced = [*produced, table.seed_revealed(server_seed)]
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
            # Only a forged log whose chain was recomputed gets here.
            verdict.fail(entry.version, f"this event or its command is malformed ({error!r})")
            return
        if not _same(produced, stored, [e.version for e in kept], verdict):
            return
        state = table.fold(game, stored, state)
        index = batch_end
    verdict.checks["deals"] = True
    verdict.checks["moves"] = True
    verdict.hands = state.hands_played
    verdict.finished = game.is_finished(state)
    if not verdict.finished:
        verdict.fail(None, "the log ends before the game does")


def _same(produced, stored, versions, verdict) -> bool:
    for offset in range(max(len(produced), len(stored))):
        want = produced[offset] if offset < len(produced) else None
        got = stored[offset] if offset < len(stored) else None
        if want is None or got is None or ledger.canonical_json(want) != ledger.canonical_json(got):
            version = versions[min(offset, len(versions) - 1)] + max(0, offset - len(versions) + 1)
            if got is None:
                reason = "the rules produce more events here than were recorded"
            elif want is None:
                reason = f"event {version} ({got['type']}) is not what the rules produce"
            elif got["type"] == "hand_dealt":
                reason = "this deck is not the one the seeds give"
            else:
                reason = f"event {version} ({got['type']}) is not what the rules produce"
            verdict.fail(version, reason)
            return False
    return True
