import random

from engine import games, table


def test_random_game_reaches_its_end():
    game = games.get("rummy")
    key = table.seed_key("smoke")
    state, _ = table.new_game("rummy", 3, key, preset="pagat")
    rng = random.Random(0)
    while not game.is_finished(state):
        seat = game.to_act(state)[0]
        command = dict(rng.choice(game.legal_moves(state, seat)), seat=seat)
        state, _ = table.play(game, state, command, key)
    assert state.result["winners"]
