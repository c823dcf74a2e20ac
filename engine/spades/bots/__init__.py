"""Spades bots: three levels of play over one seat's view, never the engine state.

Every bot is a pure function `choose(view, history, rng) -> command` (without the seat).
`view` is `game.view(state, seat)`; `history`, the hand's events as the seat may see
them, adds nothing a Spades bot needs (tricks are public), so the bots read the view
only. Randomness comes only from the `rng` passed in, so a game replays exactly.

`random_bot`, `greedy` and `strong` are the three bots; `deck` is the card encoding they
share, `bidding`, `memory`, `playout` and `evaluation` the strong bot's parts, and
`weights` its tuned numbers.
"""

from engine.spades.bots.bidding import estimate_tricks, nil_risk
from engine.spades.bots.commands import Bot, Command
from engine.spades.bots.deck import Deck, deck_for
from engine.spades.bots.greedy import choose_greedy
from engine.spades.bots.random_bot import choose_random
from engine.spades.bots.strong import Play, choose_strong

__all__ = [
    "BOTS",
    "Bot",
    "Command",
    "Deck",
    "Play",
    "choose_greedy",
    "choose_random",
    "choose_strong",
    "deck_for",
    "estimate_tricks",
    "nil_risk",
]

BOTS: dict[str, Bot] = {
    "random": choose_random,
    "greedy": choose_greedy,
    "strong": choose_strong,
}
