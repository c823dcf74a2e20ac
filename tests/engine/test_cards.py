"""Card notation: one module parses, lists and orders cards."""

import pytest

from engine import InvalidCard, cards
from engine.cards import parse_card, sort_cards, standard_pack


@pytest.mark.parametrize("text", ["AC", "2D", "9H", "10H", "JS", "QC", "KD", "10S", "JK"])
def test_valid_cards_parse_to_themselves(text):
    assert parse_card(text) == text


@pytest.mark.parametrize(
    ("text", "card"), [("10h", "10H"), (" qs ", "QS"), ("ad", "AD"), ("jk", "JK")]
)
def test_parsing_normalises_case_and_spaces(text, card):
    assert parse_card(text) == card


@pytest.mark.parametrize(
    "junk",
    ["", "1H", "11H", "10", "H", "KX", "ZZ", "JOKER", "10HH", "A H", "0S", "1OH", "♥7"],
)
def test_junk_is_rejected_with_a_clear_error(junk):
    with pytest.raises(InvalidCard) as caught:
        parse_card(junk)
    message = str(caught.value)
    assert repr(junk) in message
    assert "10H" in message  # the error shows the notation to use


@pytest.mark.parametrize("value", [None, 10, ["AH"], b"AH", 1.5])
def test_non_strings_are_rejected(value):
    with pytest.raises(InvalidCard, match="must be a string"):
        parse_card(value)


def test_invalid_card_is_a_value_error():
    assert issubclass(InvalidCard, ValueError)


def test_standard_pack():
    pack = standard_pack()
    assert len(pack) == 52 and len(set(pack)) == 52
    assert pack[:13] == tuple(rank + "C" for rank in cards.RANKS)
    assert cards.RANKS == ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    assert {card[-1] for card in pack} == {"C", "D", "H", "S"}
    with_jokers = standard_pack(3)
    assert len(with_jokers) == 55 and with_jokers[52:] == ("JK", "JK", "JK")
    assert all(parse_card(card) == card for card in with_jokers)


def test_ranks_suits_and_helpers():
    assert cards.rank_of("AS") == 1 and cards.rank_of("10D") == 10 and cards.rank_of("KC") == 13
    assert cards.suit_of("10D") == "D"
    assert cards.make_card(10, "H") == "10H" and cards.make_card(1, "S") == "AS"
    assert cards.is_joker("JK") and not cards.is_joker("JS")
    assert cards.pretty("10H") == "10♥" and cards.pretty("JK") == "🃏"


def test_sort_cards_is_by_suit_then_rank_with_jokers_last():
    assert sort_cards(["JK", "KS", "10C", "AC", "2H"]) == ("AC", "10C", "2H", "KS", "JK")
