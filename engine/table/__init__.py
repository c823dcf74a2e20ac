"""The table: what every game shares, written once.

`protocol` is how a game is created, seated, dealt, played, closed or abandoned (the service
records it, the audit replays it); `dealing` deals from a key; `rules` holds the checks
every decider starts with; `clock` the turn clocks; `folding` folds a log and shows
its events. Games, the service, workers, `simulate` and the audit all go through here,
so a game is played the same way everywhere.
"""

from engine.shuffle import seed_key
from engine.table.clock import clocked, split_options, timed_out, turn_started, turns_begun
from engine.table.dealing import deal_command, dealer_for, first_dealer, new_game, play
from engine.table.folding import describe, evolve, fold, redact
from engine.table.protocol import (
    ABANDON,
    CREATE,
    START,
    Seeds,
    Setup,
    Step,
    abandon,
    create,
    game_abandoned,
    move,
    players_seated,
    recorded_setup,
    rematch_setup,
    seat,
    seed_revealed,
    setup,
)
from engine.table.rules import dealt_event, dispatch

__all__ = [
    "ABANDON",
    "CREATE",
    "START",
    "Seeds",
    "Setup",
    "Step",
    "abandon",
    "clocked",
    "create",
    "deal_command",
    "dealer_for",
    "dealt_event",
    "describe",
    "dispatch",
    "evolve",
    "first_dealer",
    "fold",
    "game_abandoned",
    "move",
    "new_game",
    "play",
    "players_seated",
    "recorded_setup",
    "redact",
    "rematch_setup",
    "seat",
    "seed_key",
    "seed_revealed",
    "setup",
    "split_options",
    "timed_out",
    "turn_started",
    "turns_begun",
]
