"""Every tuned constant of the strong bot, and how it was tuned.

The weights were set with mirrored games against the greedy bot (`engine.tournament`:
each deal played once per seat rotation, so the luck of the deal cancels out), the
strong bot's win rate and its points per hand the measure. With these values strong beat
greedy in 74.7% of 4,000 mirrored games (the message of the final tuning commit; see
`git log -- engine/rummy/bots.py`, the module these constants lived in before the
package). Where no figure for a single constant was recorded, the comment says so rather
than invent one. A smaller check anyone can rerun:
`cardtrail simulate --bots strong,greedy --games 300 --seed ref` plays 600 games, of
which strong wins 442 (73.7%, 95% interval 70.0–77.0%).

Switches tried during tuning and removed, each kept at the setting that played better:
shortening the horizon near the end (DECAY_*), valuing a hand as a race
(`Evaluator.race`) rather than as deadwood less the weighted chance of going out, a
multiplier on the worth of going out (kept at 1), and remembering a turned-over stock's
order.

The modules that use these import the names, so the hot loops read a module global, not
an attribute. A tuning run that patches a weight must therefore patch it where it is
read (`engine.rummy.bots.evaluation` or `engine.rummy.bots.strong`), not here.
"""

from __future__ import annotations

# -- the value of a hand (engine.rummy.bots.evaluation) ------------------------------

HORIZON = 2.0
"""How many future draws the live cards' promise is counted for: a hand is worth its
deadwood less HORIZON × the mean gain of one draw. No per-value figure was recorded."""

DECAY_FROM = 6
"""Once an opponent holds this many cards or fewer, shorten the horizon (tomorrow's draws
are worth less when the hand may end first). Raised from 4 to 6 during tuning; no figure
for the change was recorded."""

DECAY_MID = 0.5
"""The horizon's factor while the shortest opponent hand holds 3 to DECAY_FROM cards."""

DECAY_END = 0.125
"""The horizon's factor when an opponent holds 1 or 2 cards (a horizon of 0.25 draws).
The tuning note on it reads "no decay: edge +1.2 → −0.6 a hand": without the decay, the
strong bot's edge over greedy went from +1.2 points a hand to −0.6."""

THREAT = (0.5, 0.3, 0.15, 0.08, 0.05, 0.03, 0.015)
"""The chance that an opponent holding n cards (n = 0 … 6, 6 standing for 6 or more)
goes out on its next turn: a rough model; greedy was measured at 0.23, 0.09, 0.09 and
0.02 for 1 to 4 cards."""

THREAT_SCALE = 2.0
"""THREAT's multiplier: counting the opponents as twice as quick as the model played
better (it weighs the points at risk more). Raised from 1.0 to 2.0 during tuning."""

MELD_DANGER = 10.0
"""Points a discard that completes an opponent's meld is worth to them (scaled by the
chance that they hold the other two cards), and what a thrown joker is worth. No per-value
figure was recorded."""

LAYOFF_DANGER = 8.0
"""Points a discard that the next player can lay off on the table is worth to them. No
per-value figure was recorded."""

# -- the decisions (engine.rummy.bots.strong) ---------------------------------------

TAKE_MARGIN = 1.0
"""Taking the discard shows a card to the table, so take it only when the best hand it
leaves beats the stock's expectation by more than this many points. No per-value figure
was recorded."""

RUMMY_HOLD_POINTS = 40
"""Hold melds back to go rummy (when the options reward it and the opponents hold 5 cards
or more) only while the points at risk in the hand stay at or below this. No per-value
figure was recorded."""

MAX_DISCARDS = 7
"""How many discards (the lowest deadwood after throwing) are evaluated in full; the rest
lose on deadwood alone. A bound on the decision time more than a weight. No per-value
figure was recorded."""
