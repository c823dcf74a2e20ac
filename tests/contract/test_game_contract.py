"""The contract every registered game keeps, whatever its rules: each test runs once per
name in the registry (cardtrail's own games and tests/games/minitricks alike), seeded.

What the rest of cardtrail relies on: a random game ends; `legal_moves` lists only moves
`decide` accepts and refusals carry the table's stable codes; a log folds to one state;
no view or redacted event shows a card it should not; every bot plays only accepted
moves; a log made by the table's protocol audits clean and a forged one does not; every
event has a sentence; and the registry entry is complete.
"""

import contextlib
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest

from engine import games, table
from engine.bots import Memories, take_turn
from engine.contract import Event, Game
from engine.errors import IllegalMove, InvalidOptions
from engine.simulation.random_play import play_random_game
from replays.audit import audit_export
from tests.replays.exports import Line, build_batches, build_export, parse, rechain, text
from tests.service.helpers import cards_in

AnyGame = Game[Any, Any]
NAMES = games.names()
SEATS = ["ann", "bob", "cid", "dee", "eve", "fay", "gus", "hal"]
TABLES = 3  # (preset, seats) pairs each game is checked at
RANDOM_GAME_BOUND = 50_000  # commands: far beyond any real game, small enough to fail fast
WALKED_COMMANDS = 400  # commands of a random game whose every step is checked
SAMPLED = 45  # states sampled per table, evenly over its walk
FORGED_WITHIN = 800  # forged events are picked among the first lines (and the last one)
GARBAGE: list[Any] = [
    None, True, False, 0, -1, 7, 2**70, -(2**63), 1.5, -0.0, "", "x", "10H", "10h", "JK", "AS",
    "stock", "discard", "z" * 300, "\u0000", [], [None], ["10H"], ["10H", "10H"], [["QS"]],
    [[[]]], [1, 2], {}, {"card": "AS"}, {"0": []},
]  # fmt: skip


def _tables(name: str) -> list[tuple[str, int]]:
    """(preset, players) for a few tables: a few presets, each with the fewest seats it
    takes; a game with fewer presets fills up with its first preset's other seat counts,
    most first."""
    game = games.get(name)
    seats = {preset: _seat_counts(game, preset) for preset in game.presets[:TABLES]}
    found = [(preset, counts[0]) for preset, counts in seats.items() if counts]
    first = game.presets[0]
    for players in reversed(seats[first][1:]):
        if len(found) < TABLES:
            found.append((first, players))
    assert found, f"{name}: no preset takes 2 to {len(SEATS)} players"
    return found


def _seat_counts(game: AnyGame, preset: str) -> list[int]:
    return [n for n in range(2, len(SEATS) + 1) if _resolves(game, preset, n)]


def _random_walk(
    name: str, preset: str, players: int, seed: str, commands: int
) -> tuple[list[Any], list[Event]]:
    """Up to `commands` random legal moves: the states at each decision and every event."""
    game = games.get(name)
    rng = random.Random(seed)
    key = table.seed_key(seed)
    state, events = table.new_game(name, players, key, preset=preset)
    states = [state]
    for _ in range(commands):
        if game.is_finished(state):
            break
        seat = game.to_act(state)[0]
        command = {**rng.choice(game.legal_moves(state, seat)), "seat": seat}
        state, new = table.play(game, state, command, key)
        events += new
        states.append(state)
    return states, events


def _steps(game: AnyGame, events: list[Event]) -> Iterator[tuple[Any, Event, Any]]:
    """(state before, event, state after) for every event of a log."""
    state = None
    for event in events:
        after = table.evolve(game, state, event)
        yield state, event, after
        state = after


def _refusal(game: AnyGame, state: Any, command: Any) -> str | None:
    """The IllegalMove code `decide` answers with, or None when it accepts the command."""
    try:
        game.decide(state, command)
    except IllegalMove as error:
        assert isinstance(error.code, str) and error.code, command
        return error.code
    return None


@cache
def _sampled_states(name: str) -> tuple[Any, ...]:
    """States a seat must decide at, every few decisions of a random game per table."""
    sampled: list[Any] = []
    for preset, players in _tables(name):
        states, _ = _random_walk(
            name, preset, players, f"sample:{preset}:{players}", WALKED_COMMANDS
        )
        game = games.get(name)
        every = max(1, len(states) // SAMPLED)
        sampled += [s for s in states[::every] if not game.is_finished(s)]
    return tuple(sampled)


def _any_time_types(game: AnyGame, states: tuple[Any, ...]) -> set[str]:
    """Command types a seat may send off its turn: a forfeit, and any type some seat
    lists as legal while another seat is to act (a look at one's cards)."""
    found = {"forfeit"}
    for state in states:
        acting = game.to_act(state)
        for seat in range(state.players):
            if seat not in acting:
                found |= {move["type"] for move in game.legal_moves(state, seat)}
    return found


# -- 1. random play ends -----------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_random_play_ends_within_a_bound(name):
    game = games.get(name)
    for preset, players in _tables(name):
        for index in range(2):
            seed = f"contract:{name}:{preset}:{players}:{index}"
            state, events = play_random_game(
                name, players, seed, preset, max_commands=RANDOM_GAME_BOUND
            )
            assert game.is_finished(state)
            assert events[-1]["type"] == "game_ended"
            winners = events[-1]["winners"]
            assert winners and set(winners) <= set(range(players)), winners


# -- 2. legal moves and refusals ---------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_listed_move_is_accepted_and_the_acting_seat_has_one(name):
    game = games.get(name)
    states = _sampled_states(name)
    assert states
    for state in states:
        for seat in game.to_act(state):
            assert game.legal_moves(state, seat), f"seat {seat} is to act with no legal move"
        for seat in range(state.players):
            for move in game.legal_moves(state, seat):
                command = {**move, "seat": seat}
                assert _refusal(game, state, command) is None, command


@pytest.mark.parametrize("name", NAMES)
def test_refusals_carry_the_tables_codes(name):
    game = games.get(name)
    states = _sampled_states(name)
    any_time = _any_time_types(game, states)
    for state in states:
        acting = game.to_act(state)
        turn = acting[0]
        unknown: list[Any] = [{"type": "no_such_move", "seat": turn}, {"seat": turn}, {"type": 7}]
        for strange in [*unknown, [], "play"]:
            assert _refusal(game, state, strange) == "unknown_command", strange
        for kind in game.commands:
            for seat in (state.players, -1, None, "0", True, 1.5, 10**9):
                command = {"type": kind, "seat": seat}
                assert _refusal(game, state, command) == "unknown_seat", command
        for move in game.legal_moves(state, turn):
            if move["type"] in any_time:
                continue
            for seat in range(state.players):
                if seat not in acting:
                    command = {**move, "seat": seat}
                    assert _refusal(game, state, command) == "not_your_turn", command


@pytest.mark.parametrize("name", NAMES)
def test_a_forfeit_is_accepted_from_any_seat_at_any_time_and_ends_the_game(name):
    game = games.get(name)
    if "forfeit" not in game.commands:
        pytest.skip(f"{name} has no forfeit")
    for state in _sampled_states(name)[::3]:
        for seat in range(state.players):
            events = game.decide(state, {"type": "forfeit", "seat": seat})
            assert events[-1]["type"] == "game_ended"
            assert seat not in events[-1]["winners"]
            assert game.is_finished(table.fold(game, events, state))


@pytest.mark.parametrize("name", NAMES)
def test_every_command_after_the_end_is_game_over(name):
    game = games.get(name)
    for preset, players in _tables(name):
        state, _ = play_random_game(name, players, f"over:{preset}:{players}", preset)
        for seat in range(players):
            assert game.legal_moves(state, seat) == []
            for kind in game.commands:
                assert _refusal(game, state, {"type": kind, "seat": seat}) == "game_over"
        assert game.to_act(state) == []


@pytest.mark.parametrize("name", NAMES)
def test_garbage_field_values_are_refused_as_illegal_moves_only(name):
    """Whatever a field holds, `decide` answers with events or an IllegalMove, never
    another exception (the service turns exactly those into answers)."""
    game = games.get(name)
    rng = random.Random(f"garbage:{name}")
    for state in _sampled_states(name):
        seats = [game.to_act(state)[0], rng.randrange(state.players)]
        for kind, fields in game.commands.items():
            for _ in range(6):
                command: dict[str, Any] = {"type": kind, "seat": rng.choice(seats)}
                for field in [*fields, rng.choice([*game.command_fields, "extra"])]:
                    if rng.random() < 0.8:
                        command[field] = rng.choice(GARBAGE)
                with contextlib.suppress(IllegalMove):
                    game.decide(state, command)


# -- 3. folding ---------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_the_same_events_fold_to_equal_states_also_through_json(name):
    game = games.get(name)
    for preset, players in _tables(name)[:2]:
        played, events = play_random_game(name, players, f"fold:{preset}:{players}", preset)
        once, twice = table.fold(game, events), table.fold(game, events)
        stored = table.fold(game, json.loads(json.dumps(events)))
        assert once is not twice
        assert once == twice == stored == played
        middle = len(events) // 2
        assert table.fold(game, events[middle:], table.fold(game, events[:middle])) == once
        for seat in (None, *range(players)):
            assert game.view(stored, seat) == game.view(played, seat)


# -- 4. hidden information ------------------------------------------------------------


@dataclass(frozen=True)
class _Seen:
    """What one state shows: each hand, the cards nobody but their holder may see, and
    what a spectator sees of the hand in play."""

    hands: tuple[frozenset[str], ...]
    hidden: frozenset[str]
    table: frozenset[str]


NOTHING = _Seen((), frozenset(), frozenset())


def _seen(game: AnyGame, state: Any, rules: set[str]) -> _Seen:
    """Hidden while a hand is in play: what `reveal` shows beyond the spectator's view
    (every hand, and any face-down pile). The spectator's table leaves out the rules'
    cards and the last hand's record (the same pack is dealt again: a finished hand
    names cards that are held now)."""
    if state is None or state.hand is None:
        return NOTHING
    revealed = game.reveal(state)
    hands = tuple(frozenset(cards) for cards in revealed["hands"])
    if state.status != "playing":
        return _Seen(hands, frozenset(), frozenset())
    public = game.view(state, None)
    assert hands, "reveal shows no hands while a hand is in play"
    hidden = cards_in({key: value for key, value in revealed.items() if key not in public})
    shown = cards_in({key: value for key, value in public.items() if key != "last_hand"})
    return _Seen(hands, frozenset(hidden), frozenset(shown - rules))


def _rule_cards(game: AnyGame, events: list[Event]) -> set[str]:
    """Cards a view names before any deal: the rules' (an order of trumps), nobody's."""
    return cards_in(game.view(table.fold(game, events[:1]), None))


def _shown(game: AnyGame, event: Event, seat: int | None, state: Any, names: list[str]) -> set:
    """The cards an event shows `seat`: the redacted event and its sentence."""
    redacted = table.redact(game, event, seat, state)
    return cards_in(redacted) | cards_in(table.describe(game, redacted, names))


def _own(seen: _Seen, seat: int) -> frozenset[str]:
    return seen.hands[seat] if seen.hands else frozenset()


@pytest.mark.parametrize("name", NAMES)
def test_no_view_or_redacted_event_shows_a_card_it_should_not(name):
    """A spectator is shown no held card it had not seen on the table just before (a card
    drawn from a face-up pile); a seat is shown nothing beyond what the spectator is shown
    and its own hand, before or after the event."""
    game = games.get(name)
    for preset, players in _tables(name):
        names = SEATS[:players]
        _, events = _random_walk(
            name, preset, players, f"hidden:{preset}:{players}", WALKED_COMMANDS
        )
        rules = _rule_cards(game, events)
        seen_before = NOTHING
        for _, event, after in _steps(game, events):
            seen = _seen(game, after, rules)
            where = (preset, event["type"])
            public = _shown(game, event, None, after, names)
            assert not (public & seen.hidden) - seen_before.table, where
            for seat in range(players):
                mine = _own(seen_before, seat) | _own(seen, seat)
                assert _shown(game, event, seat, after, names) <= public | mine, (*where, seat)
            seen_before = seen
            if after.status != "playing":
                continue
            assert not seen.table & seen.hidden, where
            spectator = cards_in(game.view(after, None))
            for seat in range(players):
                shown = cards_in(game.view(after, seat))
                assert shown <= spectator | _own(seen, seat), (*where, seat)


# -- 5. bots ---------------------------------------------------------------------------


def _bot_game(name: str, preset: str, players: int, levels: list[str], seed: str) -> int:
    """One whole game of bots, as the tournament plays it: every command must be accepted."""
    game = games.get(name)
    key = table.seed_key(seed)
    state, events = table.new_game(name, players, key, preset=preset)
    memories = Memories(game, players)
    memories.observe(events, state)
    rngs = [random.Random(f"{seed}:{seat}") for seat in range(players)]
    decisions = 0
    while not game.is_finished(state):
        assert decisions < RANDOM_GAME_BOUND, "the bots' game did not finish"
        seat = game.to_act(state)[0]
        level = levels[seat]
        view = game.view(state, seat)
        command = take_turn(game, seat, level, view, memories.of(seat), rngs[seat])
        assert _refusal(game, state, command) is None, (level, command)
        state, new = table.play(game, state, command, key)
        memories.observe(new, state)
        decisions += 1
    return decisions


@pytest.mark.parametrize("name", NAMES)
def test_every_bot_plays_only_accepted_moves(name):
    game = games.get(name)
    levels = list(game.bots)
    assert levels, f"{name} has no bots"
    tables = _tables(name)
    preset, players = tables[0]
    for level in levels:
        assert _bot_game(name, preset, players, [level] * players, f"bots:{level}") > 0
    preset, players = tables[min(1, len(tables) - 1)]
    mixed = [levels[seat % len(levels)] for seat in range(players)]
    assert _bot_game(name, preset, players, mixed, "bots:mixed") > 0


# -- 6. audit ----------------------------------------------------------------------------


def _export(name: str, preset: str, players: int) -> str:
    return build_export(
        game_id=f"contract-{name}",
        game=name,
        server_seed=f"audit:{name}:{preset}",
        players=players,
        rng=random.Random(f"audit:{preset}"),
        preset=preset,
        client_seeds=[f"client {seat}" for seat in range(players)],
        max_moves=RANDOM_GAME_BOUND,
    )


def _forged(event: Event, pack: tuple[str, ...]) -> Event:
    """The event with one value changed: its card, its seat, a deck's order, or its version."""
    if isinstance(event.get("card"), str):
        return {**event, "card": next(card for card in pack if card != event["card"])}
    if isinstance(event.get("seat"), int):
        return {**event, "seat": event["seat"] + 1}
    if isinstance(event.get("deck"), list):
        deck = event["deck"]
        return {**event, "deck": [deck[1], deck[0], *deck[2:]]}
    return {**event, "v": event["v"] + 1}


@pytest.mark.parametrize("name", NAMES)
def test_a_protocol_log_audits_clean_and_one_forged_event_fails_at_that_event(name):
    game = games.get(name)
    exports = [_export(name, preset, players) for preset, players in _tables(name)[:2]]
    for exported in exports:
        verdict = audit_export(exported.splitlines())
        assert verdict.ok, verdict.first_bad
        assert verdict.finished
    preset, players = _tables(name)[0]
    game_id, lines = parse(exports[0])
    pack = game.pack(game.resolve_options(preset, None, players))
    rng = random.Random(f"forge:{name}")
    middle = sorted(rng.sample(range(3, min(len(lines) - 1, FORGED_WITHIN)), 1))
    for index in [0, 1, 2, *middle, len(lines) - 1]:
        forged = list(lines)
        original = forged[index]
        forged[index] = Line(
            original.version, _forged(original.event, pack), original.command, original.hash
        )
        verdict = audit_export(text(game_id, rechain(game_id, forged), name).splitlines())
        assert not verdict.ok, (index, original.event["type"])
        assert verdict.first_bad is not None
        assert verdict.first_bad["version"] == index + 1, (original.event, verdict.first_bad)


# -- 7. sentences --------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_event_table_events_included_gets_a_sentence(name):
    game = games.get(name)
    preset, players = _tables(name)[0]
    names = SEATS[:players]
    batches = build_batches(
        f"describe:{name}",
        players,
        rng=random.Random("describe"),
        preset=preset,
        game=name,
        max_moves=RANDOM_GAME_BOUND,
    )
    events = [event for _, batch in batches for event in batch]
    started = table.turn_started(1, 1000.0, 30)
    clock_events = [started, *(table.timed_out(1, 1031.0, 1030.0, a) for a in ("bot", "forfeit"))]
    kinds = {event["type"] for event in events}
    assert {"players_seated", "seed_revealed", "hand_dealt", "game_ended"} <= kinds
    for _, event, after in _steps(game, [*events, *clock_events]):
        for seat in (None, *range(players)):
            shown = table.redact(game, event, seat, after)
            sentence = table.describe(game, shown, names)
            assert isinstance(sentence, str) and sentence.strip(), (event["type"], seat)


@pytest.mark.parametrize("name", NAMES)
def test_every_seat_has_a_name_of_its_own_at_every_table_size(name):
    """`seat_name` labels bots and open seats: at a table the game takes, no two seats
    read alike, and none reads as a number counted from 0."""
    game = games.get(name)
    sizes = {n for preset in game.presets for n in _seat_counts(game, preset)}
    assert sizes
    for players in sorted(sizes):
        called = [game.seat_name(seat, players) for seat in range(players)]
        assert all(isinstance(it, str) and it.strip() for it in called), called
        assert len(set(called)) == players, called
        assert "Seat 0" not in called, called


# -- 8. the registry entry -------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_the_registry_entry_is_complete(name):
    game = games.get(name)
    assert isinstance(game, Game)
    assert game.name == name
    assert isinstance(game.rules_version, str) and game.rules_version
    assert game.presets and all(isinstance(preset, str) for preset in game.presets)
    assert game.display_name
    for preset in game.presets:
        assert any(_resolves(game, preset, players) for players in range(1, len(SEATS) + 1))
    assert game.bots and all(callable(bot) for bot in game.bots.values())
    for level in game.bots:
        assert game.bot(level) is game.bots[level]
    state = _sampled_states(name)[0]
    for kind, fields in game.commands.items():
        assert kind != "deal" and isinstance(fields, dict)
        command = {"type": kind, "seat": game.to_act(state)[0]}
        assert _refusal(game, state, command) != "unknown_command", kind


def _resolves(game: AnyGame, preset: str, players: int) -> bool:
    try:
        game.resolve_options(preset, None, players)
    except InvalidOptions:
        return False
    return True
