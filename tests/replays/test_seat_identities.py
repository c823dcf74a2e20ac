"""Who sat where, and the dealer a rematch passes the deal on from: inputs the table
records as given, which the audit feeds back and requires exactly as recorded."""

import json
import random

import pytest

from engine import games, table
from replays.audit import audit_export
from tests.replays.exports import Line, build_batches, chain, rechain, text

GAME_ID = "offline-identities"
SEED = "identities"
OPTIONS = {"game_end": "deals", "deals": 1}
SEATS = [{"player": "p_ann", "name": "Ann"}, {"bot": "strong"}, {"name": "cid"}]


def lines_of(**kwargs) -> list[Line]:
    batches = build_batches(SEED, 3, rng=random.Random(3), options=OPTIONS, **kwargs)
    return chain(GAME_ID, json.loads(json.dumps(batches)))


def verdict_of(lines: list[Line]):
    return audit_export(text(GAME_ID, lines).splitlines())


def seated(lines: list[Line]) -> Line:
    return next(line for line in lines if line.event["type"] == "players_seated")


def test_the_seats_identities_are_recorded_and_audit():
    lines = lines_of(seats=SEATS)
    assert seated(lines).event["seats"] == SEATS
    verdict = verdict_of(lines)
    assert verdict.ok, verdict.first_bad


def test_a_log_without_identities_still_audits():
    lines = lines_of()
    assert "seats" not in seated(lines).event
    assert verdict_of(lines).ok


def test_identities_seated_by_a_join_audit():
    lines = lines_of(seats=SEATS, waiting=True)
    assert seated(lines).command == table.START
    assert verdict_of(lines).ok


@pytest.mark.parametrize(
    "seats, reason",
    [
        (SEATS[:2], "not one per seat"),
        ([*SEATS[:2], {"name": "cid", "token": "secret"}], "not one per seat"),
        ([*SEATS[:2], {"name": 7}], "not one per seat"),
        ([*SEATS[:2], "cid"], "not one per seat"),
        ({"0": SEATS[0]}, "not a list"),
    ],
)
def test_identities_that_are_not_one_identity_per_seat_fail_the_audit(seats, reason):
    lines = lines_of(seats=SEATS)
    forged = [
        Line(line.version, {**line.event, "seats": seats}, line.command, line.hash)
        if line.event["type"] == "players_seated"
        else line
        for line in lines
    ]
    verdict = verdict_of(rechain(GAME_ID, forged))
    assert not verdict.ok
    assert verdict.first_bad["version"] == seated(lines).version
    assert reason in verdict.first_bad["reason"]


def test_the_table_refuses_identities_that_are_not_one_per_seat():
    rules = games.get("rummy")
    made = table.create(table.setup(rules, None, OPTIONS, 2), SEED)
    seeds = table.Seeds(SEED, (None, None))
    with pytest.raises(ValueError, match="2 seats"):
        table.seat(rules, made.state, seeds, seats=[{"name": "ann"}])
    with pytest.raises(ValueError, match="player, name and bot only"):
        table.seat(rules, made.state, seeds, seats=[{"name": "ann"}, {"seat": "1"}])


# -- the dealer passes on ---------------------------------------------------------------


def created_after(name: str, players: int, dealer_after: int | None, options=None):
    setup = table.setup(games.get(name), None, options or {}, players)
    return table.create(setup, SEED, dealer_after=dealer_after).events[0]


@pytest.mark.parametrize("name, players", [("rummy", 3), ("spades", 4)])
def test_a_game_that_follows_another_is_dealt_first_by_the_next_seat(name, players):
    for before in range(players):
        created = created_after(name, players, before)
        assert created["first_dealer"] == (before + 1) % players
        assert created["dealer_after"] == before
    assert "dealer_after" not in created_after(name, players, None)


def test_the_dealer_passes_on_even_when_the_first_game_chose_its_dealer():
    """A rematch copies the options but not a chosen first dealer: the deal passes on."""
    rules = games.get("rummy")
    first = created_after("rummy", 3, None, {"first_dealer": 2})
    setup = table.rematch_setup(rules, first)
    again = table.create(setup, "another seed", dealer_after=first["first_dealer"]).events[0]
    assert again["first_dealer"] == 0 and again["dealer_after"] == 2
    same = {k: v for k, v in first["options"].items() if k != "first_dealer"}
    assert {k: v for k, v in again["options"].items() if k != "first_dealer"} == same
    assert again["options"].get("first_dealer") is None


def test_a_dealer_after_a_seat_the_table_lacks_is_refused():
    with pytest.raises(ValueError, match="not a seat"):
        created_after("rummy", 2, 2)


def rematch_lines(dealer_after: int) -> list[Line]:
    rules = games.get("rummy")
    setup = table.setup(rules, None, OPTIONS, 2)
    made = table.create(setup, SEED, dealer_after=dealer_after)
    seats = [{"name": "ann"}, {"name": "bob"}]
    dealt = table.seat(rules, made.state, table.Seeds(SEED, (None, None)), seats=seats)
    batches = [(table.CREATE, [*made.events, *dealt.events])]
    state, rng = dealt.state, random.Random(5)
    while not rules.is_finished(state):
        seat = rules.to_act(state)[0]
        command = {**rng.choice(rules.legal_moves(state, seat)), "seat": seat}
        step = table.move(rules, state, command, table.Seeds(SEED, (None, None)))
        batches.append((command, step.events))
        state = step.state
    return chain(GAME_ID, json.loads(json.dumps(batches)))


def test_the_audit_replays_the_rotation_and_catches_a_forged_one():
    lines = rematch_lines(1)
    assert lines[0].event["first_dealer"] == 0
    assert verdict_of(lines).ok
    forged = [Line(1, {**lines[0].event, "dealer_after": 0}, lines[0].command, ""), *lines[1:]]
    verdict = verdict_of(rechain(GAME_ID, forged))
    assert not verdict.ok and verdict.first_bad["version"] == 1
    assert "first dealer" in verdict.first_bad["reason"]
    nonsense = [Line(1, {**lines[0].event, "dealer_after": 5}, lines[0].command, ""), *lines[1:]]
    verdict = verdict_of(rechain(GAME_ID, nonsense))
    assert not verdict.ok and "malformed" in verdict.first_bad["reason"]
