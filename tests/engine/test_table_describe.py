"""Every event gets a sentence, table events (seating, clocks, the revealed seed) included:
the web table's log and the replay viewer show these and nothing else."""

import pytest

from engine import games, table

NAMES = ["ann", "bob", "cid", "dee"]


@pytest.mark.parametrize("name", games.names())
def test_table_events_are_told_the_same_in_every_game(name):
    game = games.get(name)
    assert table.describe(game, table.players_seated([None] * 4), NAMES) == "Every seat is taken."
    revealed = table.describe(game, table.seed_revealed("ab" * 32), NAMES)
    assert revealed.startswith("The server's seed was revealed")
    started = {"type": "turn_started", "v": 1, "seat": 1, "at": 0.0, "deadline": 60.0}
    assert table.describe(game, started, NAMES).startswith("bob's turn began")
    timed_out = {"type": "turn_timed_out", "v": 1, "seat": 2, "at": 61.0, "action": "bot"}
    assert table.describe(game, timed_out, NAMES) == "cid ran out of time; a bot moves for them."
    forfeited = {**timed_out, "action": "forfeit"}
    assert table.describe(game, forfeited, NAMES) == "cid ran out of time and forfeits."


@pytest.mark.parametrize("name", games.names())
def test_every_event_of_a_whole_game_gets_a_real_sentence(name):
    game = games.get(name)
    players = 4 if name == "spades" else 2
    state, events = table.new_game(name, players, b"describe" * 4)
    for _ in range(3000):
        if game.is_finished(state):
            break
        seat = game.to_act(state)[0]
        command = {**game.legal_moves(state, seat)[0], "seat": seat}
        state, new = table.play(game, state, command, b"describe" * 4)
        events += new
    for event in events:
        sentence = table.describe(game, event, NAMES[:players])
        assert sentence.endswith(".") and len(sentence) > 8, (event["type"], sentence)
        # A generic fallback ("Card played.") would mean the game forgot an event type.
        assert sentence != event["type"].replace("_", " ").capitalize() + ".", event["type"]
