"""An audit's verdict, and the log entries it judges."""

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Entry:
    """One entry of a game's log: the event, the command that opened its batch, its hash."""

    version: int
    event: dict[str, Any]
    command: dict[str, Any] | None
    hash: str


@dataclass
class Verdict:
    """`ok`: the log is intact and every event follows from the rules and the seeds (and
    matches every receipt presented). `provably_fair` says more: nobody but the server
    chose the seed that dealt every card, and the server could not choose it knowing the
    players' seeds. A consistent log can be `ok` and still not provably fair (a seed or a
    deck chosen on a testing server); the notes then say why."""

    ok: bool = True
    game_id: str | None = None
    game: str | None = None
    events: int = 0
    hands: int = 0
    finished: bool = False
    deck_source: str | None = None
    seed_source: str | None = None
    provably_fair: bool = False
    receipts: int = 0  # receipts presented and checked
    checks: dict[str, bool] = field(default_factory=dict)
    first_bad: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)

    def fail(self, version: int | None, reason: str) -> "Verdict":
        self.ok = False
        self.provably_fair = False
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
            "seed_source": self.seed_source,
            "provably_fair": self.provably_fair,
            "receipts": self.receipts,
            "checks": self.checks,
            "first_bad": self.first_bad,
            "notes": self.notes,
        }

    def summary(self) -> str:
        if not self.ok:
            bad = self.first_bad or {}
            text = f"AUDIT FAILED at event {bad.get('version')}: {bad.get('reason')}"
        elif self.provably_fair:
            text = (
                f"AUDIT PASSED: game {self.game_id}, {self.events} events, {self.hands} hands; "
                "hash chain intact, seed matches its commitment, every deal fair, every move "
                "legal"
                + (f", every one of {self.receipts} receipts matched." if self.receipts else ".")
            )
        else:
            text = (
                f"AUDIT PASSED, BUT NOT PROVABLY FAIR: game {self.game_id}, {self.events} "
                f"events, {self.hands} hands; the log is intact and every move legal, but see "
                "the notes."
            )
        return "\n".join([text, *(f"note: {note}" for note in self.notes)])
