"""Melds against a brute-force reference written from the rules' text.

A meld is three or more cards, at least two of them natural: a group (three or
four cards of one rank, different suits) or a run (cards of one suit on
consecutive positions; aces low, or also high, or round the corner). Jokers
stand for any card.
"""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import CARD_RANK, CARD_SUIT, JOKER, RANKS, sort_cards, standard_pack
from engine.rummy.melds import arrange, candidate_melds, lay_off, swap_joker
from engine.rummy.options import resolve

ACES = {
    "low": resolve("pagat", None, 2),
    "high_or_low": resolve("pagat", {"aces": "high_or_low"}, 2),
    "corner": resolve("pagat", {"aces": "high_or_low", "round_the_corner": True}, 2),
}


def make(rank, suit):
    return RANKS[rank - 1] + suit


def windows(length, aces):
    """Every run window as a list of ranks, for runs of `length` cards."""
    if aces == "corner":
        return [[(start + i - 1) % 13 + 1 for i in range(length)] for start in range(1, 14)]
    top = 13 if aces == "low" else 14
    return [
        [((start + i) - 1) % 13 + 1 for i in range(length)] for start in range(1, top - length + 2)
    ]


def is_meld(cards, aces):
    naturals = [c for c in cards if c != JOKER]
    if len(cards) < 3 or len(naturals) < 2:
        return False
    ranks = [CARD_RANK[c] for c in naturals]
    suits = [CARD_SUIT[c] for c in naturals]
    if len(set(ranks)) == 1:
        return len(cards) <= 4 and len(set(suits)) == len(suits)
    if len(set(suits)) != 1 or len(set(ranks)) != len(ranks) or len(cards) > 13:
        return False
    return any(set(ranks) <= set(window) for window in windows(len(cards), aces))


def check_layout(meld, cards):
    """An accepted meld holds the same cards, each natural where it belongs."""
    assert sorted(meld.cards) == sorted(cards)
    stands_for = meld.represents()
    for held, meant in zip(meld.cards, stands_for, strict=True):
        if held != JOKER:
            assert held == meant
    if meld.kind == "run":
        assert len(set(stands_for)) == len(stands_for)


@settings(max_examples=400, deadline=None)
@given(
    naturals=st.lists(st.sampled_from(standard_pack()), max_size=6, unique=True),
    jokers=st.integers(0, 3),
    aces=st.sampled_from(sorted(ACES)),
)
def test_arrange_agrees_with_the_reference(naturals, jokers, aces):
    cards = naturals + [JOKER] * jokers
    meld = arrange(cards, 0, 1, ACES[aces])
    assert (meld is not None) is is_meld(cards, aces), cards
    if meld is not None:
        check_layout(meld, cards)


@settings(max_examples=200, deadline=None)
@given(
    suit=st.sampled_from("CDHS"),
    ranks=st.sets(st.integers(1, 13), min_size=2, max_size=13),
    jokers=st.integers(0, 3),
    aces=st.sampled_from(sorted(ACES)),
)
def test_runs_agree_with_the_reference(suit, ranks, jokers, aces):
    cards = [make(rank, suit) for rank in ranks]
    cards += [JOKER] * jokers
    meld = arrange(cards, 0, 1, ACES[aces])
    assert (meld is not None) is is_meld(cards, aces), cards
    if meld is not None:
        check_layout(meld, cards)


def all_melds(hand, aces):
    found = set()
    for size in range(3, len(hand) + 1):
        for chosen in itertools.combinations(hand, size):
            if is_meld(chosen, aces):
                found.add(sort_cards(chosen))
    return found


hands = st.lists(st.sampled_from(standard_pack()), min_size=0, max_size=11, unique=True)


@settings(max_examples=150, deadline=None)
@given(hand=hands, jokers=st.integers(0, 3), aces=st.sampled_from(sorted(ACES)))
def test_candidate_melds_are_every_meld_in_the_hand(hand, jokers, aces):
    hand = hand[: 11 - jokers] + [JOKER] * jokers
    listed = candidate_melds(hand, ACES[aces])
    assert len(listed) == len(set(listed))
    assert set(listed) == all_melds(hand, aces)


@settings(max_examples=40, deadline=None)
@given(
    suit=st.sampled_from("CDHS"),
    low=st.integers(1, 13),
    jokers=st.integers(0, 2),
    aces=st.sampled_from(sorted(ACES)),
)
def test_long_suits_list_every_run(suit, low, jokers, aces):
    """A hand holding a long stretch of one suit (with the hard cases at the ace)."""
    ranks = [(low + i - 1) % 13 + 1 for i in range(9)]
    hand = [make(r, suit) for r in ranks] + [JOKER] * jokers
    assert set(candidate_melds(hand, ACES[aces])) == all_melds(hand, aces)


@settings(max_examples=300, deadline=None)
@given(
    cards=st.lists(st.sampled_from(standard_pack()), min_size=3, max_size=6, unique=True),
    extra=st.sampled_from(standard_pack(1)),
    jokers=st.integers(0, 2),
    aces=st.sampled_from(sorted(ACES)),
)
def test_lay_off_agrees_with_the_reference(cards, extra, jokers, aces):
    options = ACES[aces]
    cards = cards[: len(cards) - jokers] + [JOKER] * jokers
    meld = arrange(cards, 0, 1, options)
    if meld is None or (extra in cards and extra != JOKER):
        return
    result = lay_off(meld, extra, options)
    if result is not None:
        # the new meld is a meld, and nothing already on the table moved
        assert is_meld(list(meld.cards) + [extra], aces)
        check_layout(result, list(meld.cards) + [extra])
        before = meld.represents()
        after = result.represents()
        if meld.kind == "run":
            assert after[: len(before)] == before or after[1:] == before
        assert result.id == meld.id and result.owner == meld.owner
    elif JOKER not in meld.cards:
        # without jokers, any card that makes a bigger meld can be laid off
        assert not is_meld(list(meld.cards) + [extra], aces), (meld.cards, extra)


@settings(max_examples=200, deadline=None)
@given(
    cards=st.lists(st.sampled_from(standard_pack()), min_size=2, max_size=5, unique=True),
    jokers=st.integers(1, 3),
    card=st.sampled_from(standard_pack()),
    aces=st.sampled_from(sorted(ACES)),
)
def test_swap_joker_puts_the_real_card_in_the_jokers_place(cards, jokers, card, aces):
    options = ACES[aces]
    meld = arrange(cards + [JOKER] * jokers, 0, 1, options)
    if meld is None or card in cards:
        return
    result = swap_joker(meld, card)
    if meld.kind == "run":
        meant = [m for held, m in zip(meld.cards, meld.represents(), strict=True) if held == JOKER]
        assert (result is not None) is (card in meant)
    else:
        present = {CARD_SUIT[c] for c in cards}
        fits = CARD_RANK[card] == meld.rank and CARD_SUIT[card] not in present
        assert (result is not None) is fits
    if result is not None:
        assert result.cards.count(JOKER) == meld.cards.count(JOKER) - 1
        assert card in result.cards and is_meld(list(result.cards), aces)
        if meld.kind == "run":
            assert result.represents() == meld.represents()
