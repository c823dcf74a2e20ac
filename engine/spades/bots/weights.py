"""Every tuned number of the strong Spades bot, with what it does and where it came from.

The figures quoted are in docs/spades.md ("Bots", "Figures") and bench/RESULTS.md. Most
weights were set by hand when the bot was written and judged together, by whole
strong-against-greedy matches (69.5% of 2,000 mirrored pairs games, seed `spades-final`);
no per-weight sweep is on record, and a comment says so where that is the case. A change
to any of them changes the bot's decisions: re-measure with `cardtrail simulate --game
spades --bots strong,greedy` before and after.

Plain names imported directly (`from … import NAME`), so the code reads them as module
globals, as cheap as before they moved here.
"""

# -- trick estimate (bidding.estimate_tricks) --------------------------------------------

# The chance that a plain (non-trump) card takes a trick, by its place among the cards
# of its suit still out (0: the ace, counting the higher cards held as not out) and the
# suit's length in hand. Calibrated from strong-bot self play when the bot was written;
# the calibration runs themselves are not recorded.
PLAIN_TOP = {
    # place: chances for lengths 1, 2, 3, 4, 5, 6+
    0: (0.95, 0.95, 0.92, 0.88, 0.8, 0.6),
    1: (0.15, 0.72, 0.75, 0.7, 0.55, 0.4),
    2: (0.0, 0.15, 0.45, 0.4, 0.3, 0.2),
}
# A trump's chance by the number of higher trumps out against it (0: the top trump),
# counted only while enough trumps are held to guard it. Same origin as PLAIN_TOP.
TRUMP_TOP = (1.0, 0.92, 0.8, 0.6)
# Tricks per spare trump beyond the fourth held: long trumps win once the others are
# drawn. Hand-set; no separate tuning on record.
LONG_TRUMP_TRICKS = 0.85
# Ruffing chances of the spare trumps left: per trump (at most two) with a plain suit
# void, for one trump with a singleton, for one with a doubleton (when two are spare).
# Hand-set; no separate tuning on record.
RUFF_VOID = 0.8
RUFF_SINGLETON = 0.6
RUFF_DOUBLETON = 0.3

# -- nil risk (bidding.nil_risk): 0 safe, 1 or more hopeless ------------------------------
# Hand-set scores, judged through NIL_RISK below (the nils it lets through succeed about
# 85% of the time); no per-weight tuning on record.

# A trump in the top four of the trumps: nearly a sure trick.
NIL_RISK_TOP_TRUMP = 1.0
# A trump in the upper half of the trumps (below the top four).
NIL_RISK_HIGH_TRUMP = 0.35
# A trump above the bottom four.
NIL_RISK_MIDDLE_TRUMP = 0.12
# Per trump beyond the third, once four or more are held: long trumps get forced to win.
NIL_RISK_LONG_TRUMPS = 0.4
# A plain suit's top card still out (the ace, or what is left on top).
NIL_RISK_PLAIN_TOP = 1.0
# The second, third and fourth cards out of a plain suit: bare (fewer than two cards
# held at least three places below), then guarded by two such low cards.
NIL_RISK_SECOND = 0.5
NIL_RISK_SECOND_GUARDED = 0.2
NIL_RISK_THIRD = 0.3
NIL_RISK_THIRD_GUARDED = 0.08
NIL_RISK_FOURTH = 0.12
NIL_RISK_FOURTH_GUARDED = 0.03
# A plain suit of three or more with no card among the suit's six lowest to duck with.
NIL_RISK_NO_DUCK = 0.25

# -- the strong bid (bidding.bid_strong) ---------------------------------------------------

# Bid nil below this risk (measured: about 85% of such nils succeed). The bidding test
# pins a weak hand below it and a strong hand above it.
NIL_RISK = 0.55
# With a partner: nil only if the hand's expected tricks are below this, and only when
# the partner has not bid yet or bid at least NIL_PARTNER_MIN_BID (a partner who bid nil,
# or too little to carry the side, rules nil out). Hand-set; no separate tuning on record.
NIL_MAX_TRICKS = 2.2
NIL_PARTNER_MIN_BID = 3
# Without a partner (solo), nothing covers a failed nil: a lower risk and fewer expected
# tricks. Hand-set; no separate tuning on record.
SOLO_NIL_RISK = NIL_RISK * 0.8
SOLO_NIL_MAX_TRICKS = 1.8
# In Suicide one partner must bid nil: the first takes it more readily, at this risk or
# with fewer expected tricks than SUICIDE_NIL_MAX_TRICKS. Hand-set; no separate tuning on
# record.
SUICIDE_NIL_RISK = 1.2
SUICIDE_NIL_MAX_TRICKS = 2.5
# Tricks added to the bid beside a nil partner: covering a nil takes tricks of its own.
# Hand-set; no separate tuning on record.
NIL_COVER_TRICKS = 0.6
# The last bidder adds LAST_BIDDER_TRICKS when all bids together stay more than
# LAST_BIDDER_SLACK below the tricks of the hand: the table underbids, the spare tricks
# come anyway. Hand-set; no separate tuning on record.
LAST_BIDDER_SLACK = 3
LAST_BIDDER_TRICKS = 0.5

# -- the desperation blind nil (bidding.before_looking) ------------------------------------

# A blind nil (±200, cards unseen) is a losing bet on average; the strong bot makes it
# only when its side is BLIND_NIL_DEFICIT or more behind the leader and the leader within
# BLIND_NIL_DANGER of the target: the game is likely lost anyway, and 200 points is the way
# back. Set by that reasoning, not swept. Measured on 1,000 mirrored pairs games (seed
# `spades-blind`): strong won 71.7% (CI 68.8-74.4%) with it against 71.0% (68.1-73.7%)
# on the same deals without it (it seldom fires), 42.1 against 44.0 points per hand.
BLIND_NIL_DEFICIT = 200
BLIND_NIL_DANGER = 150

# -- card play (strong) ---------------------------------------------------------------------

# Simulated card plays per decision, split into sampled deals × candidate cards × cards
# left, with at least MIN_SAMPLES and at most MAX_SAMPLES deals. Sized for decision time,
# not strength: CPU mean 3.2 ms, p99 8.3 ms over 6,000 decisions (docs/spades.md), wall
# p99 2.5 ms in bench/RESULTS.md, against a 20 ms goal.
PLAY_BUDGET = 1200
MIN_SAMPLES = 4
MAX_SAMPLES = 40
# Tries at dealing the unseen cards so that every void seen is honoured, before dealing
# ignoring the voids (which should not happen). Not tuned.
DEAL_TRIES = 6
