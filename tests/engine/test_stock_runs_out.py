"""When the stock runs out: at the next draw from it (Pagat) or the moment its last card
is drawn (the online site of `classic-online`).

The online site's rules (shared/rules/004_…): "If the deck is depleted before a player
has won, then the discard pile is shuffled and used as a new deck. If the deck is
depleted for a second time then the hand is considered a stalemate and finishes with no
one getting any points." Pagat's (000_…): "If the stock pile has run out and the next
player does not want to take the discard, the discard pile is turned over …".
"""

import io
import json
import random

import pytest

from engine import shuffle, table
from engine.rummy.options import resolve
from replays.audit import audit_export
from tests.engine.rummy_helpers import GAME, Table
from tests.replays.exports import build_export


def online_table(**options):
    """classic-online for two: hands of 20 leave the upcard QD and a stock of 11."""
    return Table(upcard="QD", preset="classic-online", options={"hand_size": 20, **options})


def draw_and_throw_back(t, times):
    """`times` turns of drawing from the stock and discarding the card just drawn."""
    for _ in range(times):
        seat = t.hand.turn
        t.draw(seat)
        t.discard(seat, t.cards(seat)[-1])


def test_classic_online_deals_with_the_stock_the_moment_it_runs_out():
    options = resolve("classic-online", None, 2)
    assert options.stock_exhausted_at == "last_card"
    assert (options.stock_exhausted, options.max_stock_reuses) == ("shuffle", 1)
    assert options.no_winner == "stalemate"
    for preset in ("pagat", "block", "penalty", "wrotham"):
        assert resolve(preset, None, 2).stock_exhausted_at == "next_draw"


def test_the_first_time_the_deck_is_depleted_the_discard_pile_is_shuffled_at_once():
    t = online_table()
    draw_and_throw_back(t, 10)
    assert len(t.hand.stock) == 1
    pile = t.hand.discard_pile
    seat = t.hand.turn
    last = t.hand.stock[0]
    events = t.draw(seat)  # the deck is depleted by this draw
    assert [e["type"] for e in events] == ["card_drawn", "stock_replenished"]
    assert events[0] == {
        "type": "card_drawn",
        "v": 1,
        "seat": seat,
        "source": "stock",
        "card": last,
    }
    replenished = events[1]
    assert replenished["v"] == 1 and replenished["seat"] == seat and replenished["reuse"] == 1
    assert replenished["shuffled"] is True
    key = bytes.fromhex(t.hand.shuffle_key)
    assert replenished["stock"] == list(shuffle.shuffle(pile, key, "reuse:1"))
    assert sorted(replenished["stock"]) == sorted(pile) and replenished["stock"] != list(pile)
    # ... and used as a new deck: the player who emptied it finishes the turn as usual
    assert t.hand.stock == tuple(replenished["stock"]) and t.hand.discard_pile == ()
    assert t.hand.stock_reuses == 1 and t.hand.phase == "play" and last in t.cards(seat)
    t.discard(seat, last)
    assert t.hand.discard_pile == (last,)
    following = t.hand.turn
    assert {"type": "draw", "source": "stock"} in GAME.legal_moves(t.state, following)
    assert t.draw(following)[0]["card"] == replenished["stock"][0]


def test_the_second_time_the_deck_is_depleted_the_hand_is_a_stalemate_at_once():
    t = online_table()
    draw_and_throw_back(t, 11)  # the eleventh draw depletes the deck: reshuffled (11 cards)
    assert t.hand.stock_reuses == 1 and len(t.hand.stock) == 11
    draw_and_throw_back(t, 10)
    seat = t.hand.turn
    last = t.hand.stock[0]
    held = t.cards(seat)
    other = t.cards(1 - seat)
    events = t.draw(seat)  # depleted for a second time
    assert [e["type"] for e in events[:2]] == ["card_drawn", "hand_ended"]
    ended = events[1]
    assert ended["reason"] == "stock_exhausted" and ended["winner"] is None
    assert ended["rummy"] is False
    assert ended["deltas"] == [0, 0] and ended["scores"] == [0, 0]  # no one gets any points
    hands = [None, None]
    hands[seat], hands[1 - seat] = [*held, last], list(other)
    assert ended["hands"] == hands  # the last card drawn is held when the hand ends
    # nobody may take the discard (or do anything else) in that hand any more
    assert t.state.hand.number == 2 and t.state.hands_played == 1
    assert not GAME.is_finished(t.state)


def test_taking_the_discard_never_empties_the_stock():
    """Taking the discard leaves the stock as it is; only the draw of its last card
    depletes it, so taking the discard cannot keep a depleted hand going."""
    t = online_table()
    draw_and_throw_back(t, 10)
    for _ in range(6):  # each player takes the other's discard and throws another card
        seat = t.hand.turn
        t.draw(seat, "discard")
        t.discard(seat, next(c for c in t.cards(seat) if c != t.hand.drawn_from_discard))
    assert len(t.hand.stock) == 1 and t.hand.stock_reuses == 0
    assert t.draw(t.hand.turn)[1]["type"] == "stock_replenished"


def test_at_the_next_draw_players_may_keep_taking_the_discard_from_an_empty_stock():
    """Pagat's timing, an option of classic-online too: the stock counts as run out only
    when the next player does not want the discard."""
    t = online_table(stock_exhausted_at="next_draw")
    draw_and_throw_back(t, 11)
    assert t.hand.stock == () and t.hand.stock_reuses == 0
    for _ in range(6):
        seat = t.hand.turn
        assert [e["type"] for e in t.draw(seat, "discard")] == ["card_drawn"]
        t.discard(seat, next(c for c in t.cards(seat) if c != t.hand.drawn_from_discard))
    assert t.hand.stock == () and t.state.hands_played == 0
    events = t.draw(t.hand.turn)
    assert [e["type"] for e in events] == ["stock_replenished", "card_drawn"]


@pytest.mark.parametrize(
    ("stock_exhausted", "after"),
    [("turn_over", "stock_replenished"), ("end", "hand_ended")],
)
def test_the_moment_of_the_last_card_with_the_other_ways_of_reusing_the_pile(
    stock_exhausted, after
):
    t = Table(
        upcard="QD",
        options={
            "hand_size": 20,
            "stock_exhausted": stock_exhausted,
            "stock_exhausted_at": "last_card",
        },
    )
    draw_and_throw_back(t, 10)
    pile = t.hand.discard_pile
    events = t.draw(t.hand.turn)
    assert [e["type"] for e in events[:2]] == ["card_drawn", after]
    if after == "stock_replenished":
        assert events[1]["stock"] == list(pile) and events[1]["shuffled"] is False
    else:  # Block Rummy at the moment the stock runs out: everyone scores their cards
        assert events[1]["winner"] is None and t.state.hands_played == 1


def test_pagats_limit_at_the_last_card_counts_depletions_the_same_way():
    t = Table(upcard="QD", options={"hand_size": 20, "stock_exhausted_at": "last_card"})
    assert t.state.options.max_stock_reuses == 2
    draw_and_throw_back(t, 11)  # 11 cards: the first depletion turns the pile over
    draw_and_throw_back(t, 11)  # the 11 again: the second
    assert t.hand.stock_reuses == 2 and len(t.hand.stock) == 11
    draw_and_throw_back(t, 10)
    assert t.draw(t.hand.turn)[1]["type"] == "hand_ended"  # the third ends the hand


def test_a_game_played_with_stock_exhausted_at_last_card_passes_the_audit():
    """The audit re-runs the engine on the recorded log: the reshuffle made at once and
    the stalemate must come out the same from the seed."""
    options = {"hand_size": 20, "game_end": "deals", "deals": 2}
    export = build_export(
        "online-audit",
        server_seed="online audit",
        players=2,
        rng=random.Random(7),
        preset="classic-online",
        options=options,
    )
    kinds = [json.loads(line)["event"]["type"] for line in export.splitlines()[1:]]
    at_once = [kinds[i] for i in range(1, len(kinds)) if kinds[i - 1] == "card_drawn"]
    assert "stock_replenished" in at_once and "hand_ended" in at_once
    verdict = audit_export(io.BytesIO(export.encode()))
    assert verdict.ok, verdict.as_dict()
    assert verdict.finished and verdict.hands == 2


def test_the_option_is_recorded_only_when_set_otherwise():
    """Games recorded before the option existed played by "next_draw"; their first
    event holds no such field, and re-creating them must give that very event."""
    _, events = table.new_game("rummy", 2, table.seed_key("x"), preset="pagat")
    assert "stock_exhausted_at" not in events[0]["options"]
    state, _ = table.new_game("rummy", 2, table.seed_key("x"))
    assert GAME.view(state, 0)["options"]["stock_exhausted_at"] == "next_draw"  # views: all
    _, events = table.new_game("rummy", 2, table.seed_key("x"), preset="classic-online")
    assert events[0]["options"]["stock_exhausted_at"] == "last_card"
    recorded = dict(events[0]["options"])
    assert resolve(None, recorded, 2).recorded() == recorded
