"""Re-running a game's log through the table's protocol, batch by batch.

Each batch the service appended opens with its command: {"type": "create"}, {"type":
"start"}, a seat's move, or {"type": "abandon"} (a waiting table that nobody filled in
time: the log ends there, before any deal). The audit produces each batch again with the
very functions the service used (`engine.table`) from that command, the seeds, the
recorded times and the recorded inputs that are not the rules' to judge (who sits in each
seat; the dealer a rematch passes the deal on from), and requires exactly the recorded
events.
"""

import json
from typing import Any

from engine import IllegalMove, InvalidOptions, games, ledger
from engine import table as protocol
from engine.contract import Event, Game
from engine.events import GAME_ABANDONED, PLAYERS_SEATED, TURN_STARTED, TURN_TIMED_OUT
from replays.verdict import Entry, Verdict


def rerun(game_name: str, entries: list[Entry], server_seed: str, verdict: Verdict) -> None:
    """Every batch of `entries` produced again; the first that differs fails `verdict`."""
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
    if replay.abandoned:
        verdict.notes.append(
            "the game was abandoned before it was dealt: its open seats stayed empty too "
            "long, and no card was ever dealt"
        )
    elif not verdict.finished:
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
        self.abandoned = False  # the table gave up waiting: nothing may follow

    def batch(self, batch: list[Entry]) -> bool:
        """Produce the batch again from its command and compare; False once one fails."""
        command = batch[0].command or {}
        recorded = [entry.event for entry in batch]
        before = self.state
        if self.abandoned:
            self._fail(batch[0].version, "events were recorded after the game was abandoned")
            return False
        if command == protocol.CREATE:
            produced = self._created(recorded)
        elif command == protocol.START:
            produced = self._seated(batch[0], recorded, self.state)
        elif command == protocol.ABANDON:
            produced = self._abandoned(batch[0])
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
            setup = protocol.recorded_setup(self.game, created)
            made = protocol.create(
                setup,
                self.server_seed,
                created["deck_source"],
                created.get("seed_source"),
                created.get("dealer_after"),
            )
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
        encoding = recorded[0].get("v")
        if encoding not in (1, 2):
            self._fail(where, f"the seats were recorded in an unknown format (v {encoding!r})")
            return None
        identities = recorded[0].get("seats")  # who sits where: fed back as recorded
        if identities is not None and not isinstance(identities, list):
            self._fail(where, "the seats' identities are not a list")
            return None
        self.seeds = protocol.Seeds(self.server_seed, tuple(seeds), encoding)
        deck = None
        if self.verdict.deck_source == "explicit":
            deck = recorded[1].get("deck") if len(recorded) > 1 else None
            self.verdict.notes.append(
                "hand 1 was dealt from an explicit deck (testing only), not from the seeds"
            )
        try:
            seated = protocol.seat(self.game, state, self.seeds, deck, identities)
        except IllegalMove as error:
            self._fail(where, f"the first deal is not a valid deck: {error.message}")
            return None
        except (ValueError, TypeError, AttributeError) as error:
            self._fail(where, f"the seats' identities are not one per seat ({error})")
            return None
        self.state = state
        return seated.events

    def _abandoned(self, first: Entry) -> list[Event] | None:
        """A waiting table closed, at the time the log says: only before any seating."""
        at = first.event.get("at")
        if first.event.get("type") != GAME_ABANDONED or not isinstance(at, int | float):
            self._fail(first.version, "an abandonment was recorded without its time")
            return None
        if self.seeds is not None:
            self._fail(first.version, "the game was abandoned after its players were seated")
            return None
        try:
            step = protocol.abandon(self.game, self.state, self.server_seed, at)
        except IllegalMove as error:
            self._fail(first.version, f"the game could not be abandoned: {error.message}")
            return None
        self.abandoned = True
        return step.events

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
