"""The audit: re-run a whole exported game and prove it fair and legal, or name the first bad event.

Works offline from the export alone (no server, no Redis). Checks, in order of the log:
  1. the hash chain, from SHA-256(game id) through every record;
  (with receipts a player kept) every receipt's signature, and the chain's hash at its
  version: a history rewritten and re-chained fails here, naming the receipt;
  2. the revealed server seed against the commitment in the first event;
  3. every batch of the log (the creation, the seating and first deal, each move)
     produced again by the very functions the service used (`engine.table.protocol`)
     from the recorded command must be exactly the recorded events: so every deck is
     the one the seeds give (an explicit, testing-only deck is noted), every move is
     legal and every score is re-derived; clock events must agree with each other.
"""

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine import ledger
from replays import receipts as receipt_checks
from replays.rerun import rerun
from replays.verdict import Entry, Verdict

__all__ = [
    "EXPORT_FORMAT",
    "EXPORT_FORMAT_VERSION",
    "Entry",
    "Verdict",
    "audit",
    "audit_export",
    "parse_export",
]

EXPORT_FORMAT = "cardtrail-export"
EXPORT_FORMAT_VERSION = 1


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


def audit_export(
    lines: Iterable[str | bytes],
    receipts: Sequence[Mapping[str, Any]] = (),
    keys: Mapping[str, bytes] | None = None,
) -> Verdict:
    """Audit an export; with `receipts`, each must match it, verified against `keys`
    (by default the public keys the export carries)."""
    header, entries, verdict = parse_export(lines)
    if not verdict.ok:
        return verdict
    if keys is None:
        try:
            keys = receipt_checks.parse_keys(header.get("keys", []))
        except receipt_checks.BadReceipts as error:
            return verdict.fail(None, f"the header's keys are unreadable ({error})")
    return audit(header.get("game_id", ""), header.get("game", ""), entries, receipts, keys)


def audit(
    game_id: str,
    game_name: str,
    entries: list[Entry],
    receipts: Sequence[Mapping[str, Any]] = (),
    keys: Mapping[str, bytes] | None = None,
) -> Verdict:
    """Chain, receipts, seed, then every batch re-run (module docstring)."""
    verdict = Verdict(game_id=game_id, game=game_name, events=len(entries))
    if not _check_chain(game_id, entries, verdict):
        return verdict
    verdict.checks["hash_chain"] = True
    if receipts and not receipt_checks.check(game_id, entries, receipts, keys or {}, verdict):
        return verdict
    for entry in entries:
        if not isinstance(entry.event.get("type"), str):
            return verdict.fail(entry.version, "this event has no type")
    server_seed = _check_seed(entries, verdict)
    if server_seed is None:
        return verdict
    rerun(game_name, entries, server_seed, verdict)
    _judge_fairness(entries[0].event, verdict)
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


def _judge_fairness(created: dict[str, Any], verdict: Verdict) -> None:
    """Provably fair only when the server alone chose the seed and every deck came of it."""
    verdict.seed_source = created.get("seed_source")
    if not verdict.ok:
        return
    if verdict.seed_source is None:
        verdict.notes.append(
            "this game was created before cardtrail recorded who chose the server seed: it "
            "cannot be shown that the game's creator did not choose it, so it is NOT "
            "provably fair"
        )
    elif verdict.seed_source != "server":
        verdict.notes.append(
            "the server seed was chosen by whoever created the game (a testing server): "
            "they could know every card, so this game is NOT provably fair"
        )
    if verdict.deck_source == "explicit":
        verdict.notes.append("a deck was chosen by hand (a testing server): NOT provably fair")
    verdict.provably_fair = verdict.seed_source == "server" and verdict.deck_source == "seed"
