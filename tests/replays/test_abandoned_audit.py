"""The audit of an abandoned game: `[game_created, game_abandoned, seed_revealed]` under
the commands the service records, made by the table's protocol alone."""

import json

from engine import games, table
from replays.audit import audit_export
from replays.replay import hand_spans
from tests.engine.test_abandon import setup_of
from tests.replays.exports import chain, rechain, text

GAME_ID = "offline-abandoned"
SEED = "abandoned audit"


def abandoned_batches(name: str = "rummy", at: float = 1700000000.5):
    rules = games.get(name)
    made = table.create(setup_of(name), SEED)
    step = table.abandon(rules, made.state, SEED, at)
    batches = [(table.CREATE, made.events), (table.ABANDON, step.events)]
    return [(dict(c), json.loads(json.dumps(e))) for c, e in batches]


def audited(batches, name: str = "rummy"):
    return audit_export(text(GAME_ID, chain(GAME_ID, batches), name).splitlines())


def test_an_abandoned_game_audits_ok_unfinished_with_a_note():
    for name in games.names():
        verdict = audited(abandoned_batches(name), name)
        assert verdict.ok, verdict.first_bad
        assert verdict.finished is False
        assert verdict.hands == 0 and verdict.events == 3
        assert verdict.checks["seed_commitment"] is True
        assert any("abandoned before it was dealt" in note for note in verdict.notes)


def test_an_abandoned_game_has_no_hands_to_replay():
    events = [event for _, batch in abandoned_batches() for event in batch]
    assert hand_spans(events) == []


def test_a_game_abandoned_after_its_players_were_seated_fails():
    rules = games.get("rummy")
    made = table.create(setup_of("rummy"), SEED)
    seated = table.seat(rules, made.state, table.Seeds(SEED, (None, None)))
    forged = table.abandon(rules, made.state, SEED, 1700000000.5)  # as if never seated
    batches = [(table.CREATE, made.events), (table.START, seated.events)]
    batches.append((table.ABANDON, forged.events))
    verdict = audited(json.loads(json.dumps(batches)))
    assert not verdict.ok
    assert "seated" in verdict.first_bad["reason"]


def test_nothing_may_follow_the_abandonment():
    batches = abandoned_batches()
    seats = table.players_seated([None, None])
    verdict = audited([*batches, (dict(table.START), [seats])])
    assert not verdict.ok
    assert verdict.first_bad == {
        "version": 4,
        "reason": "events were recorded after the game was abandoned",
    }


def test_a_changed_time_of_abandonment_is_caught_by_the_chain_not_by_the_rules():
    lines = chain(GAME_ID, abandoned_batches())
    lines[1].event["at"] = 1600000000.0
    assert not audit_export(text(GAME_ID, lines).splitlines()).ok  # the hash no longer fits
    rewritten = audit_export(text(GAME_ID, rechain(GAME_ID, lines)).splitlines())
    assert rewritten.ok  # re-chained, a time is only a time: receipts pin the history
