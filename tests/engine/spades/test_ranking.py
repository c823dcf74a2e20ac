"""The pack and the order of the trumps in every variation."""

from collections import Counter

from engine import cards
from engine.spades.options import resolve
from engine.spades.ranking import ranking
from tests.engine.spades.helpers import suit_cards


def order(trumps="standard", players=4, **extra):
    preset = "pairs" if players == 4 else "solo"
    return ranking(resolve(preset, {"trumps": trumps, **extra}, players))


def test_standard_pack_and_trumps():
    rank = order()
    assert Counter(rank.pack) == Counter(cards.standard_pack())
    assert rank.tricks_per_hand == 13
    assert rank.trump_order == tuple(suit_cards("S"))
    assert rank.power["AH"] > rank.power["KH"] > rank.power["2H"]
    assert rank.power["2S"] > rank.power["AH"]  # every trump beats every plain card
    assert rank.suit["JC"] == "C" and rank.suit["2D"] == "D"


def test_trick_winner_highest_trump_else_highest_of_suit_led():
    rank = order()
    assert rank.trick_winner([(0, "10H"), (1, "AH"), (2, "KD"), (3, "2H")]) == 1
    assert rank.trick_winner([(0, "10H"), (1, "AH"), (2, "2S"), (3, "3S")]) == 3
    assert rank.trick_winner([(0, "4C"), (1, "AD"), (2, "AH"), (3, "3C")]) == 0
    assert rank.trick_winner([(0, "4S"), (1, "AD"), (2, "3S"), (3, "AC")]) == 0


def test_bauers_are_the_two_highest_trumps_and_the_left_bauer_is_a_spade():
    rank = order("bauers")
    assert rank.trump_order[:4] == ("JS", "JC", "AS", "KS")
    assert "JS" not in rank.trump_order[2:]
    assert rank.suit["JC"] == "S" and len(rank.trump_order) == 14
    assert "JC" not in rank.by_suit["C"] and len(rank.by_suit["C"]) == 12
    assert rank.trick_winner([(0, "AS"), (1, "JC"), (2, "KS"), (3, "JS")]) == 3
    assert rank.trick_winner([(0, "AC"), (1, "JC"), (2, "KC"), (3, "2C")]) == 1  # a trump


def test_deuces_high_default_order():
    rank = order("deuces_high")
    assert rank.trump_order[:6] == ("2S", "2H", "2D", "2C", "AS", "KS")
    assert rank.trump_order[-1] == "3S" and len(rank.trump_order) == 16
    assert all(rank.suit[d] == "S" for d in ("2C", "2D", "2H", "2S"))
    assert rank.by_suit["H"][-1] == "3H"  # the lowest heart is now the three
    assert rank.trick_winner([(0, "AH"), (1, "2H"), (2, "KH"), (3, "QH")]) == 1


def test_deuce_order_is_an_option():
    rank = order("deuces_high", deuce_order="HCDS")
    assert rank.trump_order[:5] == ("2H", "2C", "2D", "2S", "AS")


def test_jokers_high_pack_and_order():
    rank = order("jokers_high")
    assert "2C" not in rank.pack and "2D" not in rank.pack
    assert rank.pack.count("JK") == 1 and rank.pack.count("JL") == 1 and len(rank.pack) == 52
    assert rank.trump_order[:3] == ("JK", "JL", "AS") and len(rank.trump_order) == 15
    assert rank.trick_winner([(0, "AS"), (1, "JL"), (2, "JK"), (3, "KS")]) == 2
    assert rank.trick_winner([(0, "AH"), (1, "JL"), (2, "KH"), (3, "2S")]) == 1


def test_spades_for_three():
    rank = order(players=3)
    assert "2C" not in rank.pack and len(rank.pack) == 51 and rank.tricks_per_hand == 17
    jokers = order("jokers_high", players=3)
    assert not {"2C", "2D", "2H"} & set(jokers.pack) and len(jokers.pack) == 51
    deuces = order("deuces_high", players=3)
    assert deuces.trump_order[:4] == ("2S", "2H", "2D", "AS")


def test_two_jokers_in_the_notation():
    assert cards.parse_card("jl") == "JL" and cards.parse_card("JK") == "JK"
    assert cards.is_joker("JL") and cards.pretty("JL") != cards.pretty("JK")
    assert cards.sort_cards(["JL", "AS", "JK"]) == ("AS", "JK", "JL")
    assert "JL" not in cards.standard_pack(3)  # interchangeable jokers stay "JK"
