"""How a Rummy game ends: a target score or a set number of deals, and pay scoring's
set number of hands.

Pagat (shared/rules/000_…): "Either a fixed number of deals are played, or the game is
played to a target score. The number of deals or the target score needs to be agreed
before beginning to play." And of pay scoring: "Some play that each loser pays the
winner according to the number of points in their hand … The session would last for a
set number of hands rather than be played to a target score."
"""

import pytest

from engine import InvalidOptions, table
from engine.rummy.options import Options, resolve
from tests.engine.rummy_helpers import GAME, Table
from tests.engine.test_rules import play_out_hand

# Seat 0 goes out on its first turn with three melds; seat 1 is left with 110 points.
WINNER = ["4H", "5H", "6H", "7H", "8H", "9H", "2C", "2D", "2S", "3C", "3D"]
LOSER = ["KS", "KD", "QS", "QD", "JS", "JD", "10S", "10D", "KC", "QC", "JC"]


def pay_table(**options):
    return Table(
        hands={0: WINNER, 1: LOSER},
        stock=["3S"],
        options={"scoring": "pay", "melds_per_turn": "any", "hand_size": 11, **options},
    )


def go_out(t):
    t.draw(0)  # 3S
    t.meld(0, "4H", "5H", "6H", "7H", "8H", "9H")
    t.meld(0, "2C", "2D", "2S")
    return t.meld(0, "3C", "3D", "3S")


def test_pay_scoring_plays_a_set_number_of_deals():
    options = resolve("pagat", {"scoring": "pay"}, 2)
    assert options.game_end == "deals" and options.deals == 10
    for scoring in ("winner", "penalty"):
        assert resolve("pagat", {"scoring": scoring}, 2).game_end == "target"


def test_a_pay_session_is_not_ended_by_a_score_and_lasts_its_deals():
    t = pay_table()
    events = go_out(t)
    ended = next(e for e in events if e["type"] == "hand_ended")
    assert ended["deltas"] == [110, -110]  # the loser pays the winner the 110 in hand
    # 110 would have passed the target of 100; a pay session goes on to its deals
    assert not any(e["type"] == "game_ended" for e in events)
    assert t.state.hand.number == 2 and not GAME.is_finished(t.state)
    for number in range(2, 11):
        assert t.state.hand.number == number and not GAME.is_finished(t.state)
        play_out_hand(t, seed=number)
    assert GAME.is_finished(t.state) and t.state.hands_played == 10
    result = t.state.result
    assert result["hands_played"] == 10 and sum(result["scores"]) == 0  # money changes hands
    best = max(result["scores"])
    assert result["winners"] == [s for s in range(2) if result["scores"][s] == best]


def test_the_number_of_deals_is_an_option():
    t = pay_table(deals=1)
    events = go_out(t)
    assert events[-1]["type"] == "game_ended"
    assert events[-1]["winners"] == [0] and events[-1]["hands_played"] == 1


def test_pay_scoring_to_a_target_score_when_asked():
    by_target = resolve("pagat", {"scoring": "pay", "target_score": 200}, 2)
    assert (by_target.game_end, by_target.target_score) == ("target", 200)
    explicit = resolve("pagat", {"scoring": "pay", "game_end": "target"}, 2)
    assert explicit.game_end == "target" and explicit.target_score == 100
    t = pay_table(game_end="target")
    assert go_out(t)[-1]["type"] == "game_ended"  # 110 reached the target of 100


@pytest.mark.parametrize(
    ("preset", "options", "game_end"),
    [
        ("pagat", {}, "target"),
        ("pagat", {"deals": 4}, "deals"),  # a number of deals given: the game lasts them
        ("pagat", {"target_score": 50}, "target"),
        ("pagat", {"target_score_by_players": {"2": 50}}, "target"),
        ("pagat", {"scoring": "pay", "target_score_by_players": None}, "deals"),
        ("penalty", {}, "target"),
        ("penalty", {"scoring": "pay"}, "deals"),
        ("wrotham", {}, "deals"),
        ("wrotham", {"scoring": "pay"}, "deals"),
        ("wrotham", {"target_score": 200}, "target"),
        ("classic-online", {"scoring": "pay"}, "deals"),
        ("classic-online", {"game_end": "deals"}, "deals"),
    ],
)
def test_how_the_game_ends_when_game_end_is_not_given(preset, options, game_end):
    assert resolve(preset, options, 2).game_end == game_end


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"scoring": "pay", "target_score": 200, "deals": 4}, "options.game_end"),
        ({"target_score_by_players": {"2": 50}, "deals": 4}, "options.game_end"),
        ({"game_end": "target", "deals": 4}, "options.deals"),
        ({"scoring": "pay", "game_end": "target", "deals": 4}, "options.deals"),
        ({"game_end": "deals", "target_score": 50}, "options.target_score"),
        (
            {"game_end": "deals", "target_score_by_players": {"2": 50}},
            "options.target_score_by_players",
        ),
    ],
)
def test_a_target_and_a_number_of_deals_that_contradict_are_refused(options, field):
    with pytest.raises(InvalidOptions) as caught:
        resolve("pagat", options, 2)
    assert caught.value.field == field and caught.value.reason
    with pytest.raises(InvalidOptions):  # as a table would be created over HTTP
        table.new_game("rummy", 2, table.seed_key("x"), preset="pagat", options=options)


def test_a_recorded_game_is_re_created_as_it_was_recorded():
    """A game's first event holds every option; the audit re-creates the game from it.
    Games recorded before contradictions were refused (a target beside a number of deals)
    must still come out the same."""
    recorded = Options(game_end="deals", deals=3, target_score=1).recorded()
    assert resolve(None, recorded, 2).recorded() == recorded
    recorded = Options(scoring="pay").recorded()  # a pay game to 100, as before
    assert resolve(None, recorded, 2).game_end == "target"
