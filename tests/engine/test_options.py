"""Every house rule is an option: each one tested on and off, and every option validated."""

import pytest

from engine import InvalidOptions, shuffle, table
from engine.rummy.melds import arrange, lay_off
from engine.rummy.options import OPTION_NAMES, Options, resolve
from engine.rummy.scoring import card_points, game_winners, score_hand
from tests.engine.rummy_helpers import GAME, Table

LOSER = ["KS", "QD", "AS", "5C"]  # 10 + 10 + 1 + 5 = 26


def opts(players=2, preset="pagat", **options):
    return resolve(preset, options, players)


def rummy_in_one_turn(**options):
    """Seat 0 goes out on its first turn (meld, lay off, discard); seat 1 keeps LOSER."""
    t = Table(
        hands={0: ["4H", "5H", "6H", "7H"], 1: LOSER},
        stock=["KC"],
        options={"hand_size": 4, **options},
    )
    t.draw(0)
    t.meld(0, "4H", "5H", "6H")
    t.lay_off(0, "7H", 1)
    t.discard(0, "KC")
    return t.ended()


def out_over_two_turns(first="meld", **options):
    """Seat 0 melds (or lays off) on its first turn and goes out on its second."""
    if first == "meld":
        hands = {0: ["4H", "5H", "6H", "7H", "8H"], 1: LOSER + ["9S"]}
    else:  # seat 1 melds first; seat 0 only lays off before going out
        hands = {0: ["2D", "7H", "8H", "9H", "10H"], 1: ["3D", "4D", "5D", "KS", "QD"]}
    t = Table(hands=hands, stock=["KC", "JD", "9C", "QC"], options={"hand_size": 5, **options})
    if first == "meld":
        t.draw(0)  # KC
        t.meld(0, "4H", "5H", "6H")
        t.discard(0, "KC")
        t.draw(1)  # JD
        t.discard(1, "JD")
        t.draw(0)  # 9C
        t.lay_off(0, "7H", 1)
        t.lay_off(0, "8H", 1)
        t.discard(0, "9C")
    else:
        t.draw(0)  # KC
        t.discard(0, "KC")
        t.draw(1)  # JD
        t.meld(1, "3D", "4D", "5D")
        t.discard(1, "JD")
        t.draw(0)  # 9C
        t.lay_off(0, "2D", 1)
        t.discard(0, "9C")
        t.draw(1)  # QC
        t.discard(1, "QC")
        t.draw(0)
        t.meld(0, "7H", "8H", "9H")
        t.lay_off(0, "10H", 2)
        t.discard(0, t.cards(0)[0])
    return t.ended()


# -- melds per turn ------------------------------------------------------------


def test_one_meld_per_turn_by_default():
    t = Table(hands={0: ["4H", "5H", "6H", "9C", "9D", "9S", "KD"]}, options={"hand_size": 7})
    t.draw(0)
    t.meld(0, "4H", "5H", "6H")
    t.refuse(0, "one_meld_per_turn", "meld", cards=["9C", "9D", "9S"])
    assert not [m for m in GAME.legal_moves(t.state, 0) if m["type"] == "meld"]
    t.discard(0, "KD")
    # a new turn brings a new meld
    t.draw(1)
    t.discard(1, t.cards(1)[-1])
    t.draw(0)
    t.meld(0, "9C", "9D", "9S")


def test_any_number_of_melds_per_turn():
    t = Table(
        hands={0: ["4H", "5H", "6H", "9C", "9D", "9S", "KD"]},
        options={"hand_size": 7, "melds_per_turn": "any"},
    )
    t.draw(0)
    t.meld(0, "4H", "5H", "6H")
    assert {"type": "meld", "cards": ["9C", "9D", "9S"]} in GAME.legal_moves(t.state, 0)
    t.meld(0, "9C", "9D", "9S")
    assert len(t.hand.melds) == 2


# -- going rummy -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "rummy", "winner_gets"),
    [
        ({"going_rummy": "none"}, False, 26),
        ({"going_rummy": "double"}, True, 52),
        ({"going_rummy": "bonus"}, True, 36),
        ({"going_rummy": "bonus", "rummy_bonus": 25}, True, 51),
    ],
)
def test_going_rummy(options, rummy, winner_gets):
    ended = rummy_in_one_turn(**options)
    assert ended["winner"] == 0 and ended["rummy"] is rummy
    assert ended["deltas"] == [winner_gets, 0]


@pytest.mark.parametrize("first", ["meld", "lay_off"])
@pytest.mark.parametrize("going_rummy", ["double", "bonus"])
def test_no_rummy_after_melding_or_laying_off_in_an_earlier_turn(first, going_rummy):
    ended = out_over_two_turns(first, going_rummy=going_rummy)
    assert ended["winner"] == 0 and ended["rummy"] is False
    assert ended["deltas"][0] == sum(ended["points"])


def test_going_rummy_by_melding_the_whole_hand():
    t = Table(
        hands={0: ["4H", "5H", "6H", "9C", "9D", "9S"], 1: LOSER + ["2S", "3C"]},
        stock=["7H"],
        options={"hand_size": 6, "melds_per_turn": "any", "going_rummy": "double"},
    )
    t.draw(0)
    t.meld(0, "9C", "9D", "9S")
    t.meld(0, "4H", "5H", "6H", "7H")
    ended = t.ended()
    assert ended["rummy"] is True and ended["deltas"] == [2 * (26 + 5), 0]


def test_going_rummy_under_penalty_and_pay_scoring():
    ended = rummy_in_one_turn(going_rummy="bonus", scoring="penalty")
    assert ended["deltas"] == [-10, 26]
    ended = rummy_in_one_turn(going_rummy="double", scoring="penalty")
    assert ended["deltas"] == [0, 52]
    ended = rummy_in_one_turn(going_rummy="double", scoring="pay")
    assert ended["deltas"] == [52, -52]
    ended = rummy_in_one_turn(going_rummy="bonus", scoring="pay")
    assert ended["deltas"] == [36, -36]


# -- laying off only after melding ---------------------------------------------------


def test_lay_off_after_meld():
    t = Table(
        hands={0: ["4H", "5H", "6H", "9C", "AC"], 1: ["7H", "KD", "KC", "KS", "2D", "3S"]},
        stock=["10S", "QH"],
        options={"hand_size": 6, "lay_off_after_meld": True},
    )
    t.draw(0)
    t.meld(0, "4H", "5H", "6H")
    t.discard(0, "10S")
    t.draw(1)  # QH
    t.refuse(1, "must_meld_first", "lay_off", card="7H", meld=1)
    assert not [m for m in GAME.legal_moves(t.state, 1) if m["type"] == "lay_off"]
    t.meld(1, "KD", "KC", "KS")
    assert {"type": "lay_off", "card": "7H", "meld": 1} in GAME.legal_moves(t.state, 1)
    t.lay_off(1, "7H", 1)  # allowed once seat 1 has a meld of its own
    assert t.meld_cards(1) == ("4H", "5H", "6H", "7H")


def test_laying_off_without_melding_is_the_default():
    t = Table(
        hands={0: ["4H", "5H", "6H", "9C", "AC"], 1: ["7H", "KD", "2D", "3S", "8S"]},
        stock=["10S", "QH"],
        options={"hand_size": 5},
    )
    t.draw(0)
    t.meld(0, "4H", "5H", "6H")
    t.discard(0, "10S")
    t.draw(1)
    t.lay_off(1, "7H", 1)


# -- aces ---------------------------------------------------------------------------


HIGH = opts(aces="high_or_low")
CORNER = opts(aces="high_or_low", round_the_corner=True)
LOW = opts()


@pytest.mark.parametrize(
    ("cards", "low", "high", "corner"),
    [
        (("AH", "2H", "3H"), True, True, True),
        (("QH", "KH", "AH"), False, True, True),
        (("JH", "QH", "KH", "AH"), False, True, True),
        (("KH", "AH", "2H"), False, False, True),
        (("QH", "KH", "AH", "2H", "3H"), False, False, True),
        (("JH", "QH", "KH", "2H"), False, False, False),
        (("KH", "2H", "3H"), False, False, False),
    ],
)
def test_ace_runs(cards, low, high, corner):
    assert (arrange(list(cards), 0, 1, LOW) is not None) is low
    assert (arrange(list(cards), 0, 1, HIGH) is not None) is high
    assert (arrange(list(cards), 0, 1, CORNER) is not None) is corner


def test_a_run_through_the_whole_suit_round_the_corner():
    suit = [
        rank + "S" for rank in ("8", "9", "10", "J", "Q", "K", "A", "2", "3", "4", "5", "6", "7")
    ]
    meld = arrange(suit, 0, 1, CORNER)
    assert meld is not None and len(meld.cards) == 13
    assert lay_off(meld, "8S", CORNER) is None


def test_aces_high_or_low_are_worth_15():
    assert card_points("AS", LOW) == 1
    assert card_points("AS", HIGH) == 15
    assert card_points("AS", CORNER) == 15
    assert card_points("KS", HIGH) == 10


def test_laying_off_an_ace_high():
    run = arrange(["JD", "QD", "KD"], 0, 1, HIGH)
    assert lay_off(run, "AD", HIGH).cards == ("JD", "QD", "KD", "AD")
    assert lay_off(arrange(["JD", "QD", "KD"], 0, 1, LOW), "AD", LOW) is None
    top = lay_off(run, "AD", HIGH)
    assert lay_off(top, "2D", HIGH) is None  # no wrapping without round-the-corner
    assert lay_off(arrange(["2D", "3D", "4D"], 0, 1, HIGH), "AD", HIGH).cards[0] == "AD"


def test_laying_off_round_the_corner():
    run = arrange(["KD", "AD", "2D"], 0, 1, CORNER)
    assert run.cards == ("KD", "AD", "2D")
    assert lay_off(run, "QD", CORNER).cards == ("QD", "KD", "AD", "2D")
    assert lay_off(run, "3D", CORNER).cards == ("KD", "AD", "2D", "3D")
    high = arrange(["JD", "QD", "KD"], 0, 1, CORNER)
    assert lay_off(lay_off(high, "AD", CORNER), "2D", CORNER).cards[-2:] == ("AD", "2D")


def test_ace_options_in_play():
    t = Table(
        hands={0: ["QH", "KH", "AH", "9C"], 1: LOSER},
        stock=["KC"],
        options={"hand_size": 4, "aces": "high_or_low"},
    )
    t.draw(0)
    t.meld(0, "QH", "KH", "AH")
    t.discard(0, "KC")
    assert t.hand.melds[0].cards == ("QH", "KH", "AH")
    t2 = Table(
        hands={0: ["KH", "AH", "2H", "9C"], 1: LOSER},
        stock=["KC"],
        options={"hand_size": 4, "aces": "high_or_low", "round_the_corner": True},
    )
    t2.draw(0)
    t2.meld(0, "KH", "AH", "2H")
    t3 = Table(hands={0: ["KH", "AH", "2H", "9C"]}, options={"hand_size": 4, "aces": "high_or_low"})
    t3.draw(0)
    t3.refuse(0, "invalid_meld", "meld", cards=["KH", "AH", "2H"])


def test_an_ace_left_in_hand_scores_15_when_aces_are_high():
    ended = rummy_in_one_turn(aces="high_or_low")
    assert ended["points"] == [0, 10 + 10 + 15 + 5]


def test_round_the_corner_needs_aces_high_or_low():
    with pytest.raises(InvalidOptions) as caught:
        resolve("pagat", {"round_the_corner": True}, 2)
    assert caught.value.field == "options.round_the_corner"


# -- must discard to go out ------------------------------------------------------------


def test_must_discard_to_go_out():
    t = Table(
        hands={0: ["4H", "5H"], 1: ["KS", "QD"]},
        stock=["6H"],
        options={"hand_size": 2, "must_discard_to_go_out": True},
    )
    t.draw(0)
    t.refuse(0, "must_discard_to_go_out", "meld", cards=["4H", "5H", "6H"])
    assert not [m for m in GAME.legal_moves(t.state, 0) if m["type"] == "meld"]


def test_must_discard_to_go_out_forbids_laying_off_the_last_card():
    t = Table(
        hands={0: ["4H", "5H", "6H", "7H"], 1: LOSER},
        stock=["8H", "QC", "3H"],
        options={"hand_size": 4, "must_discard_to_go_out": True},
    )
    t.draw(0)  # 8H
    t.meld(0, "4H", "5H", "6H")
    t.lay_off(0, "7H", 1)
    t.refuse(0, "must_discard_to_go_out", "lay_off", card="8H", meld=1)
    assert {"type": "lay_off", "card": "8H", "meld": 1} not in GAME.legal_moves(t.state, 0)
    events = t.discard(0, "8H")  # going out by discarding is fine
    assert events[1]["type"] == "hand_ended" and events[1]["winner"] == 0


def test_going_out_without_a_discard_is_allowed_by_default():
    t = Table(hands={0: ["4H", "5H"], 1: ["KS", "QD"]}, stock=["6H"], options={"hand_size": 2})
    t.draw(0)
    assert {"type": "meld", "cards": ["4H", "5H", "6H"]} in GAME.legal_moves(t.state, 0)
    t.meld(0, "4H", "5H", "6H")
    assert t.ended()["winner"] == 0


# -- the end of the stock ----------------------------------------------------------------


def exhaust_stock(t):
    """Everyone draws from the stock and throws the card back until the stock is empty."""
    while t.hand.stock:
        seat = t.hand.turn
        t.draw(seat)
        t.discard(seat, t.cards(seat)[-1])


def stock_table(**options):
    # two hands of 20 leave an upcard and a stock of 11
    return Table(upcard="QD", options={"hand_size": 20, **options})


def test_turn_over_without_shuffling_puts_the_bottom_card_on_top():
    t = stock_table(stock_exhausted="turn_over")
    exhaust_stock(t)
    pile = t.hand.discard_pile
    assert pile[0] == "QD" and len(pile) == 12
    seat = t.hand.turn
    events = t.draw(seat)
    assert events[0]["type"] == "stock_replenished"
    assert events[0]["stock"] == list(pile) and events[0]["shuffled"] is False
    assert events[0]["reuse"] == 1
    assert events[1] == {
        "type": "card_drawn",
        "v": 1,
        "seat": seat,
        "source": "stock",
        "card": "QD",
    }
    assert t.hand.stock == pile[1:] and t.hand.discard_pile == ()
    assert t.hand.stock_reuses == 1


def test_when_the_stock_is_empty_the_next_player_may_take_the_discard_instead():
    t = stock_table()
    exhaust_stock(t)
    top = t.hand.discard_pile[-1]
    seat = t.hand.turn
    events = t.draw(seat, "discard")
    assert [e["type"] for e in events] == ["card_drawn"] and events[0]["card"] == top
    assert t.hand.stock == () and t.hand.stock_reuses == 0


def test_shuffled_reuse_is_deterministic_from_the_seed():
    def replenished(seed):
        t = Table(upcard="QD", options={"hand_size": 20, "stock_exhausted": "shuffle"}, seed=seed)
        exhaust_stock(t)
        pile = t.hand.discard_pile
        event = t.draw(t.hand.turn)[0]
        return t, pile, event

    t, pile, event = replenished("one")
    assert event["shuffled"] is True and sorted(event["stock"]) == sorted(pile)
    assert event["stock"] != list(pile)
    expected = shuffle.shuffle(pile, bytes.fromhex(t.hand.shuffle_key), "reuse:1")
    assert event["stock"] == list(expected)
    assert t.hand.shuffle_key == shuffle.derive_hex(t.key, "reshuffle:1")
    assert replenished("one")[2] == event
    assert replenished("two")[2]["stock"] != event["stock"]


def test_block_rummy_ends_the_hand_when_the_stock_runs_out():
    t = Table(upcard="QD", preset="block", options={"hand_size": 20})
    hands = t.hand.hands
    exhaust_stock(t)
    seat = t.hand.turn
    events = t.draw(seat)
    ended = events[0]
    assert ended["type"] == "hand_ended" and ended["reason"] == "stock_exhausted"
    assert ended["winner"] is None and ended["rummy"] is False
    assert ended["hands"] == [list(h) for h in hands]  # nobody changed their hand


@pytest.mark.parametrize(
    ("reuses", "preset"), [(0, "pagat"), (1, "pagat"), (2, "pagat"), (1, "classic-online")]
)
def test_max_stock_reuses(reuses, preset):
    # the reuses counted when the next player draws from the empty stock (see
    # test_stock_runs_out.py for the moment its last card is drawn, classic-online's own)
    options = {"hand_size": 20, "max_stock_reuses": reuses, "stock_exhausted_at": "next_draw"}
    t = Table(upcard="QD", preset=preset, options=options)
    for reuse in range(1, reuses + 1):
        exhaust_stock(t)
        events = t.draw(t.hand.turn)
        assert events[0]["type"] == "stock_replenished" and events[0]["reuse"] == reuse
        t.discard(t.hand.turn, t.cards(t.hand.turn)[-1])
    exhaust_stock(t)
    events = t.draw(t.hand.turn)
    assert events[0]["type"] == "hand_ended" and events[0]["reason"] == "stock_exhausted"


def test_pagats_limit_ends_play_when_the_stock_runs_out_the_third_time():
    assert resolve("pagat", None, 2).max_stock_reuses == 2
    t = stock_table()
    for _ in range(2):
        exhaust_stock(t)
        assert t.draw(t.hand.turn)[0]["type"] == "stock_replenished"
        t.discard(t.hand.turn, t.cards(t.hand.turn)[-1])
    exhaust_stock(t)  # the third time
    assert t.draw(t.hand.turn)[0]["type"] == "hand_ended"


def test_unlimited_reuse():
    t = stock_table(max_stock_reuses=None)
    for reuse in range(1, 6):
        exhaust_stock(t)
        assert t.draw(t.hand.turn)[0]["reuse"] == reuse
        t.discard(t.hand.turn, t.cards(t.hand.turn)[-1])


# -- nobody goes out -----------------------------------------------------------------------


PAGAT_EXAMPLE_HANDS = {
    0: ["AC", "2D", "3S"],  # A: 6
    1: ["10C", "3D", "2S"],  # B: 15
    2: ["AD", "2H", "4C"],  # C: 7
    3: ["KH", "QH", "AS"],  # D: 21
}


def blocked_hand(**options):
    t = Table(
        players=4, hands=PAGAT_EXAMPLE_HANDS, preset="block", options={"hand_size": 3, **options}
    )
    exhaust_stock(t)
    t.draw(t.hand.turn)
    return t.ended()


def test_pagats_example_the_lowest_hand_scores_the_differences():
    assert score_hand(LOW, [6, 15, 7, 21], None, False) == [25, 0, 0, 0]
    ended = blocked_hand()
    assert ended["points"] == [6, 15, 7, 21]
    assert ended["deltas"] == [25, 0, 0, 0]


def test_a_tie_for_lowest_shares_equally():
    assert score_hand(LOW, [6, 6, 10, 20], None, False) == [9, 9, 0, 0]
    assert score_hand(LOW, [5, 5, 5], None, False) == [0, 0, 0]
    # an indivisible remainder is dropped
    assert score_hand(LOW, [6, 6, 7], None, False) == [0, 0, 0]
    assert score_hand(LOW, [3, 9, 3, 3], None, False) == [2, 0, 2, 2]


def test_stalemate_nobody_scores():
    stalemate = opts(no_winner="stalemate")
    assert score_hand(stalemate, [6, 15, 7, 21], None, False) == [0, 0, 0, 0]
    ended = blocked_hand(no_winner="stalemate")
    assert ended["points"] == [6, 15, 7, 21] and ended["deltas"] == [0, 0, 0, 0]


def test_no_winner_under_penalty_and_pay_scoring():
    ended = blocked_hand(scoring="penalty")
    assert ended["deltas"] == [6, 15, 7, 21]
    ended = blocked_hand(scoring="pay")
    assert ended["deltas"] == [25, -9, -1, -15]


# -- scoring systems -----------------------------------------------------------------------


def test_winner_scoring_is_the_default():
    ended = rummy_in_one_turn()
    assert ended["deltas"] == [26, 0] and ended["scores"] == [26, 0]


def test_penalty_scoring():
    ended = rummy_in_one_turn(scoring="penalty")
    assert ended["deltas"] == [0, 26] and ended["scores"] == [0, 26]
    penalty = opts(3, scoring="penalty")
    assert score_hand(penalty, [0, 12, 30], 0, False) == [0, 12, 30]


def test_penalty_game_ends_at_the_limit_and_the_lowest_total_wins():
    t = Table(
        hands={0: ["4H", "5H", "6H", "7H"], 1: LOSER},
        stock=["KC"],
        preset="penalty",
        options={"hand_size": 4, "target_score": 26},
    )
    t.draw(0)
    t.meld(0, "4H", "5H", "6H")
    t.lay_off(0, "7H", 1)
    events = t.discard(0, "KC")
    assert events[-1]["type"] == "game_ended" and events[-1]["winners"] == [0]
    penalty = opts(3, scoring="penalty")
    assert game_winners(penalty, [40, 99, 12], 5) is None
    assert game_winners(penalty, [40, 100, 12], 5) == [2]
    assert game_winners(penalty, [12, 100, 12], 5) == [0, 2]


def test_pay_scoring_is_zero_sum():
    ended = rummy_in_one_turn(scoring="pay")
    assert ended["deltas"] == [26, -26]
    pay = opts(3, scoring="pay")
    assert score_hand(pay, [0, 12, 30], 0, False) == [42, -12, -30]
    assert score_hand(pay, [6, 15, 7, 21], None, False) == [25, -9, -1, -15]


# -- the end of the game -------------------------------------------------------------------


def test_game_end_target_and_deals():
    target = opts(target_score=50)
    assert game_winners(target, [49, 10], 30) is None
    assert game_winners(target, [50, 10], 1) == [0]
    assert game_winners(target, [60, 60], 1) == [0, 1]
    deals = opts(game_end="deals", deals=3)
    assert game_winners(deals, [500, 0], 2) is None
    assert game_winners(deals, [5, 7], 3) == [1]


def test_target_by_player_count():
    online = resolve("classic-online", None, 3)
    assert online.target_for(2) == 100 and online.target_for(3) == 75 and online.target_for(4) == 50
    custom = resolve("pagat", {"target_score_by_players": {"3": 40}, "target_score": 90}, 3)
    assert custom.target_for(3) == 40 and custom.target_for(2) == 90


# -- validation ----------------------------------------------------------------------------


def test_defaults_are_pagats_standard_game():
    defaults = Options()
    assert defaults.melds_per_turn == "one"
    assert defaults.going_rummy == "none"
    assert defaults.lay_off_after_meld is False
    assert defaults.aces == "low" and defaults.round_the_corner is False
    assert defaults.must_discard_to_go_out is False
    assert defaults.stock_exhausted == "turn_over" and defaults.stock_exhausted_at == "next_draw"
    assert defaults.no_winner == "lowest_wins"
    assert defaults.scoring == "winner" and defaults.game_end == "target"
    assert resolve(None, None, 2) == resolve("pagat", None, 2)


def test_explicit_options_override_the_preset():
    assert resolve("classic-online", {"melds_per_turn": "one"}, 2).melds_per_turn == "one"
    assert resolve("block", {"stock_exhausted": "shuffle"}, 2).stock_exhausted == "shuffle"


def test_unknown_option_is_rejected():
    with pytest.raises(InvalidOptions) as caught:
        resolve("pagat", {"jokers_wild": True}, 2)
    assert caught.value.field == "options.jokers_wild"
    assert "unknown" in str(caught.value)


def test_unknown_preset_and_game_are_rejected():
    with pytest.raises(InvalidOptions) as caught:
        resolve("gin", None, 2)
    assert caught.value.field == "preset"
    with pytest.raises(InvalidOptions) as caught:
        table.new_game("canasta", 2, table.seed_key("x"))
    assert caught.value.field == "game"


BAD_VALUES = [
    ("melds_per_turn", "two"),
    ("melds_per_turn", None),
    ("going_rummy", "triple"),
    ("going_rummy", True),
    ("aces", "high"),
    ("stock_exhausted", "reshuffle"),
    ("stock_exhausted_at", "never"),
    ("stock_exhausted_at", None),
    ("no_winner", "draw"),
    ("scoring", "points"),
    ("game_end", "never"),
    ("lay_off_after_meld", "yes"),
    ("lay_off_after_meld", 1),
    ("round_the_corner", None),
    ("must_discard_to_go_out", "false"),
    ("starter_extra_card", 0),
    ("rummy_bonus", -1),
    ("rummy_bonus", "10"),
    ("rummy_bonus", None),
    ("rummy_bonus", 1.5),
    ("max_stock_reuses", -1),
    ("max_stock_reuses", True),
    ("target_score", 0),
    ("target_score", None),
    ("deals", 0),
    ("hand_size", 0),
    ("hand_size", 21),
    ("jokers", 7),
    ("joker_points", -5),
    ("all_at_once_from_deal", 0),
    ("first_dealer", -1),
    ("first_dealer", "0"),
    ("min_players", 1),
    ("max_players", 7),
    ("target_score_by_players", {"7": 50}),
    ("target_score_by_players", {"2": 0}),
    ("target_score_by_players", {"2": "100"}),
    ("target_score_by_players", [100, 75]),
    ("target_score_by_players", {2: 100}),
]


@pytest.mark.parametrize(("name", "value"), BAD_VALUES)
def test_bad_values_are_rejected_naming_the_field(name, value):
    with pytest.raises(InvalidOptions) as caught:
        resolve("pagat", {name: value}, 2)
    assert caught.value.field == f"options.{name}"
    assert caught.value.reason


def test_every_option_has_a_bad_value_test():
    checked = {name for name, _ in BAD_VALUES}
    assert checked == set(OPTION_NAMES)


@pytest.mark.parametrize(
    ("options", "players", "field"),
    [
        ({"first_dealer": 3}, 3, "options.first_dealer"),
        ({"hand_size": 20}, 3, "options.hand_size"),
        ({"hand_size": 10}, 6, "options.hand_size"),
        ({"min_players": 4, "max_players": 3}, 3, "options.min_players"),
        ({}, 1, "seats"),
        ({}, 7, "seats"),
        ({"max_players": 3}, 4, "seats"),
    ],
)
def test_inconsistent_options_are_rejected(options, players, field):
    with pytest.raises(InvalidOptions) as caught:
        resolve("pagat", options, players)
    assert caught.value.field == field


def test_the_resolved_options_are_recorded_in_the_first_event():
    state, events = table.new_game("rummy", 3, table.seed_key("x"), preset="block")
    assert events[0]["type"] == "game_created"
    assert events[0]["options"] == resolve("block", None, 3).recorded()
    assert state.options == resolve("block", None, 3)
    # every field but those added later, which are written when set otherwise
    assert set(events[0]["options"]) == set(OPTION_NAMES) - {"stock_exhausted_at"}
