"""The audit: re-run a whole exported game and prove it fair and legal, or name the first bad event.

Works offline from the export alone (no server, no Redis). Checks, in order of the log:
  1. the hash chain, from SHA-256(game id) through every record;
  2. the revealed server seed against the commitment in the first event;
  3. every batch of the log (the creation, the seating and first deal, each move)
     produced again by the very functions the service used (`engine.table.protocol`)
     from the recorded command must be exactly the recorded events: so every deck is
     the one the seeds give (an explicit, testing-only deck is noted), every move is
     legal and every score is re-derived; clock events must agree with each other.
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engine import IllegalMove, InvalidOptions, games, ledger
from engine import table as protocol
from engine.contract import Event, Game
from engine.events import PLAYERS_SEATED, TURN_STARTED, TURN_TIMED_OUT
from engine.table.clock import as_options

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
    verdict.deck_source = entries[0].event.get("deck_source")
    if entries[0].command != protocol.CREATE:
        verdict.fail(1, 'the game\'s creation is not recorded with the command {"type": "create"}')
        return
    replay = _Replay(game, server_seed, verdict)
    for batch in _batches(entries):
        try:
            if not replay.batch(batch):
                return
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
            # Only a forged log whose chain was recomputed gets here.
            verdict.fail(batch[0].version, f"this event or its command is malformed ({error!r})")
            return
    verdict.checks["deals"] = True
    verdict.checks["moves"] = True
    verdict.hands = replay.state.hands_played
    verdict.finished = game.is_finished(replay.state)
    if not verdict.finished:
        verdict.fail(None, "the log ends before the game does")


def _batches(entries: list[Entry]) -> list[list[Entry]]:
    """The log cut into the batches the service appended: each opens with its command."""
    batches: list[list[Entry]] = []
    for entry in entries:
        if entry.command is not None or not batches:
            batches.append([])
        batches[-1].append(entry)
    return batches


class _Replay:
    """The game re-run batch by batch through the table's protocol."""

    def __init__(self, game: Game[Any, Any], server_seed: str, verdict: Verdict) -> None:
        self.game = game
        self.server_seed = server_seed
        self.verdict = verdict
        self.state: Any = None
        self.seeds: protocol.Seeds | None = None
        self.clock: Any = None
        self.deadlines: dict[Any, Any] = {}  # seat -> the deadline of its clocked turn

    def batch(self, batch: list[Entry]) -> bool:
        """Produce the batch again from its command and compare; False once one fails."""
        command = batch[0].command or {}
        recorded = [entry.event for entry in batch]
        before = self.state
        if command == protocol.CREATE:
            produced = self._created(recorded)
        elif command == protocol.START:
            produced = self._seated(batch[0], recorded, self.state)
        else:
            produced = self._moved(batch, command)
        if produced is None:
            return False
        produced = self._clocked(before, produced, recorded)
        if not _same(produced, recorded, [e.version for e in batch], self.verdict):
            return False
        self.state = protocol.fold(self.game, recorded, before)
        return self._times(batch)

    def _fail(self, version: int | None, reason: str) -> None:
        self.verdict.fail(version, reason)

    def _created(self, recorded: list[Event]) -> list[Event] | None:
        """The creation, then (when every seat was filled at once) the seating."""
        created = recorded[0]
        try:
            setup = _setup_of(self.game, created)
            made = protocol.create(setup, self.server_seed, created["deck_source"])
        except (InvalidOptions, KeyError, TypeError, ValueError, AttributeError) as error:
            reason = getattr(error, "reason", error)
            self._fail(1, f"the game's creation is malformed ({reason})")
            return None
        if made.events[0].get("first_dealer") != created.get("first_dealer"):
            self._fail(1, "the first dealer is not the one the server seed gives")
            return None
        self.clock = setup.clock
        if len(recorded) > 1 and recorded[1].get("type") == PLAYERS_SEATED:
            seated = self._seated(None, recorded[1:], made.state, version=2)
            return None if seated is None else [*made.events, *seated]
        self.state = made.state
        return made.events

    def _seated(
        self, entry: Entry | None, recorded: list[Event], state: Any, version: int | None = None
    ) -> list[Event] | None:
        """The client seeds recorded, then the first deal from the deal key."""
        where = version if entry is None else entry.version
        if self.seeds is not None:
            self._fail(where, "the players were seated twice")
            return None
        seeds = (
            recorded[0].get("client_seeds") if recorded[0].get("type") == PLAYERS_SEATED else None
        )
        if (
            not isinstance(seeds, list)
            or len(seeds) != state.players
            or not all(seed is None or isinstance(seed, str) for seed in seeds)
        ):
            self._fail(where, "the client seeds are not one per seat")
            return None
        self.seeds = protocol.Seeds(self.server_seed, tuple(seeds))
        deck = None
        if self.verdict.deck_source == "explicit":
            deck = recorded[1].get("deck") if len(recorded) > 1 else None
            self.verdict.notes.append(
                "hand 1 was dealt from an explicit deck (testing only), not from the seeds"
            )
        try:
            seated = protocol.seat(self.game, state, self.seeds, deck)
        except IllegalMove as error:
            self._fail(where, f"the first deal is not a valid deck: {error.message}")
            return None
        self.state = state
        return seated.events

    def _moved(self, batch: list[Entry], command: dict[str, Any]) -> list[Event] | None:
        """A seat's command (after a time-out, when one opens the batch)."""
        version = batch[0].version
        if self.seeds is None:
            self._fail(version, "a move was recorded before the players were seated")
            return None
        prefix = self._timed_out(batch[0], command)
        if prefix is None:
            return None
        try:
            step = protocol.move(self.game, self.state, command, self.seeds)
        except IllegalMove as error:
            self._fail(version, f"illegal move {json.dumps(command)}: {error.message}")
            return None
        return [*prefix, *step.events]

    def _timed_out(self, first: Entry, command: dict[str, Any]) -> list[Event] | None:
        """The time-out that opens a batch, checked against the turn's deadline."""
        event = first.event
        if event.get("type") != TURN_TIMED_OUT:
            return []
        seat, at = event.get("seat"), event.get("at")
        due = self.deadlines.get(seat)
        if (
            not isinstance(seat, int)
            or not isinstance(due, int | float)
            or not isinstance(at, int | float)
            or seat != command.get("seat")
        ):
            self._fail(first.version, "a time-out was recorded for no clocked turn of that seat")
            return None
        try:
            return [protocol.timed_out(seat, at, due, event.get("action", ""))]
        except IllegalMove:
            self._fail(first.version, "a time-out was recorded before the turn's deadline")
            return None

    def _clocked(self, before: Any, produced: list[Event], recorded: list[Event]) -> list[Event]:
        """The turns the batch began, at the time the log says they began."""
        started = [e for e in recorded if e.get("type") == TURN_STARTED]
        at = started[0].get("at") if started else None
        now = float(at) if isinstance(at, int | float) else 0.0
        after = protocol.fold(self.game, produced, before)
        events, _ = protocol.clocked(self.game, self.clock, before, after, produced, now)
        return events

    def _times(self, batch: list[Entry]) -> bool:
        for entry in batch:
            if entry.event["type"] == TURN_STARTED:
                self.deadlines[entry.event.get("seat")] = entry.event.get("deadline")
        return True


def _setup_of(game: Game[Any, Any], created: Event) -> protocol.Setup:
    """The table setup a recorded creation claims: its options, seats and clock."""
    players = created["players"]
    options = dict(created["options"])
    if "clock" in created:  # a table option, recorded parsed: read back as given
        options.update(as_options(created["clock"]))
    return protocol.setup(game, None, options, players)


def _same(
    produced: list[Event], stored: list[Event], versions: list[int], verdict: Verdict
) -> bool:
    for offset in range(max(len(produced), len(stored))):
        want = produced[offset] if offset < len(produced) else None
        got = stored[offset] if offset < len(stored) else None
        if want is not None and got is not None and _alike(want, got):
            continue
        version = versions[min(offset, len(versions) - 1)] + max(0, offset - len(versions) + 1)
        if got is None:
            reason = "the rules produce more events here than were recorded"
        elif want is not None and got.get("type") == "hand_dealt":
            reason = "this deck is not the one the seeds give"
        else:
            reason = f"event {version} ({got.get('type')}) is not what the rules produce"
        verdict.fail(version, reason)
        return False
    return True


def _alike(want: Event, got: Event) -> bool:
    """The same event; a turn's deadline may differ in its last digit (it was rounded
    from the exact time before `at` was, by earlier versions of the service)."""
    if ledger.canonical_json(want) == ledger.canonical_json(got):
        return True
    if want["type"] != TURN_STARTED or got.get("type") != TURN_STARTED:
        return False
    deadline = got.get("deadline")
    return (
        isinstance(deadline, int | float)
        and abs(deadline - want["deadline"]) <= 0.0011
        and {**got, "deadline": want["deadline"]} == want
    )
