"""The table's `abandon` step: a waiting game nobody filled closes before any deal."""

import pytest

from engine import IllegalMove, InvalidOptions, games, ledger, table
from engine.events import GAME_ABANDONED, TABLE_EVENTS

SEED = "abandon tests"
NAMES = ["ann", "seat 1"]


def setup_of(name: str) -> table.Setup:
    """The game's default table with the fewest seats it is played with."""
    for players in range(2, 9):
        try:
            return table.setup(games.get(name), None, {}, players)
        except InvalidOptions:
            continue
    raise AssertionError(f"{name} has no default table")


def created(name: str):
    return table.create(setup_of(name), SEED)


@pytest.mark.parametrize("name", games.names())
def test_a_game_not_yet_seated_is_abandoned_with_its_seed_revealed(name):
    game = games.get(name)
    made = created(name)
    step = table.abandon(game, made.state, SEED, 1700000000.12345)
    assert step.events == [
        {"type": "game_abandoned", "v": 1, "at": 1700000000.123},
        {"type": "seed_revealed", "v": 1, "server_seed": SEED},
    ]
    assert ledger.commitment(step.events[1]["server_seed"]) == made.events[0]["seed_commitment"]
    assert step.state is made.state  # table events change no game's state
    assert table.fold(game, step.events, made.state) is made.state
    assert not game.is_finished(step.state)


@pytest.mark.parametrize("name", games.names())
def test_a_seated_game_cannot_be_abandoned(name):
    game = games.get(name)
    made = created(name)
    seeds = table.Seeds(SEED, (None,) * made.state.players)
    seated = table.seat(game, made.state, seeds)
    with pytest.raises(IllegalMove) as refused:
        table.abandon(game, seated.state, SEED, 1700000000.0)
    assert refused.value.code == "game_started"


def test_game_abandoned_is_a_public_table_event_told_in_a_sentence():
    game = games.get("rummy")
    event = table.game_abandoned(1700000000.0)
    assert GAME_ABANDONED in TABLE_EVENTS
    assert table.redact(game, event, None, created("rummy").state) is event
    assert "abandoned" in table.describe(game, event, NAMES)


def test_the_command_it_is_recorded_under():
    assert table.ABANDON == {"type": "abandon"}
