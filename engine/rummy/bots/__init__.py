"""Rummy bots: three levels of play over one seat's view, never the engine state.

Every bot is a pure function `choose(view, history, rng) -> command` (without the
seat). `view` is `game.view(state, seat)`; `history` is the current hand's events as
that seat may see them (`game.redact`). Nothing else is read, so a bot cannot peek at
another hand or the stock order, and the same bot runs in a worker, in `simulate` and
in tests. Randomness comes only from the `rng` passed in, so a game replays exactly.

* `random` (`random_bot`) picks a uniformly random legal move: the floor any bot must beat.
* `greedy` (`greedy`) plays the obvious moves, the yardstick for the other two.
* `strong` (`strong`) plans: an exact minimum-deadwood partition of its hand
  (`meld_search`, on the card masks of `encoding`), hands valued as a race to go out
  (`evaluation`, with the tuned `weights`), card tracking (`memory`) and the table's
  lay-off chains (`layoffs`).
"""

from __future__ import annotations

from engine.rummy.bots.commands import Bot
from engine.rummy.bots.greedy import choose_greedy
from engine.rummy.bots.meld_search import Partition, best_partition
from engine.rummy.bots.random_bot import choose_random
from engine.rummy.bots.strong import choose_strong

__all__ = [
    "BOTS",
    "Bot",
    "Partition",
    "best_partition",
    "choose_greedy",
    "choose_random",
    "choose_strong",
]

BOTS: dict[str, Bot] = {
    "random": choose_random,
    "greedy": choose_greedy,
    "strong": choose_strong,
}
