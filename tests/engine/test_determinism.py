"""Deals are a function of the seed and the hand number only, on any machine.

The golden values were computed once with the engine; if they change, every
recorded game would re-deal differently, so a change here is a breaking change.
"""

import hashlib
import hmac
import random
import struct

import pytest

from engine import shuffle, table
from engine.cards import standard_pack
from tests.engine.rummy_helpers import GAME

GOLDEN = [
    (
        "cardtrail golden 1",
        2,
        "pagat",
        1,
        [
            "7D",
            "8C",
            "8H",
            "2H",
            "9D",
            "AC",
            "10H",
            "6D",
            "5H",
            "7C",
            "QD",
            "10S",
            "2S",
            "QS",
            "10D",
        ],
    ),
    (
        "cardtrail golden 2",
        4,
        "wrotham",
        3,
        ["4S", "AS", "3C", "9H", "5H", "10D", "KC", "JH", "5S", "9S", "6H", "JC", "JD", "5D", "2S"],
    ),
]


@pytest.mark.parametrize(("seed", "players", "preset", "dealer", "first_cards"), GOLDEN)
def test_golden_first_deal(seed, players, preset, dealer, first_cards):
    key = table.seed_key(seed)
    _, events = table.new_game("rummy", players, key, preset=preset)
    dealt = events[1]
    assert dealt["type"] == "hand_dealt" and dealt["hand"] == 1
    assert dealt["dealer"] == dealer
    assert dealt["deck"][:15] == first_cards
    assert events[0]["deck_source"] == "seed"


def test_the_seed_key_is_sha256_of_the_seed():
    assert table.seed_key("cardtrail golden 1").hex() == (
        "77e9b3fed493468dfe343ce9a58c2cd3a7ae20334f5c943ca0c09b97f45ee72f"
    )
    assert table.seed_key("x") == hashlib.sha256(b"x").digest()


def reference_shuffle(items, key, label):
    """docs/dealing.md, written again from the text: HMAC-SHA256 stream, rejection, Fisher-Yates."""

    def words():
        block = 0
        while True:
            digest = hmac.new(key, f"{label}:{block}".encode(), hashlib.sha256).digest()
            yield from struct.unpack(">8I", digest)
            block += 1

    stream = words()

    def uniform(n):
        limit = 2**32 - (2**32 % n)
        while True:
            x = next(stream)
            if x < limit:
                return x % n

    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j = uniform(i + 1)
        result[i], result[j] = result[j], result[i]
    return result


@pytest.mark.parametrize(("seed", "players", "preset", "dealer", "first_cards"), GOLDEN)
def test_deals_follow_the_documented_algorithm(seed, players, preset, dealer, first_cards):
    key = table.seed_key(seed)
    _, events = table.new_game("rummy", players, key, preset=preset)
    jokers = 3 if preset == "wrotham" else 0
    assert events[1]["deck"] == reference_shuffle(standard_pack(jokers), key, "deal:1")
    assert events[1]["shuffle_key"] == hmac.new(key, b"reshuffle:1", hashlib.sha256).hexdigest()
    assert shuffle.KeyedStream(key, "first_dealer").uniform(players) == dealer


def test_the_same_seed_deals_the_same_game_twice():
    key = table.seed_key("twice")
    first = table.new_game("rummy", 3, key)
    second = table.new_game("rummy", 3, key)
    assert first == second
    other = table.new_game("rummy", 3, table.seed_key("thrice"))
    assert other[1][1]["deck"] != first[1][1]["deck"]


def second_deal(key, **kwargs):
    rng = random.Random(0)
    state, events = table.new_game("rummy", 2, key, **kwargs)
    while state.hands_played == 0:
        seat = GAME.to_act(state)[0]
        command = dict(rng.choice(GAME.legal_moves(state, seat)), seat=seat)
        state, new = table.play(GAME, state, command, key)
        events += new
    return [e for e in events if e["type"] == "hand_dealt"][1]


def test_later_deals_depend_on_the_seed_and_hand_number_only():
    key = table.seed_key("later")
    dealt = second_deal(key)
    assert dealt["hand"] == 2
    assert dealt["deck"] == reference_shuffle(standard_pack(), key, "deal:2")
    # however the first hand went (another deck, another dealer), hand 2 deals the same
    explicit = list(reversed(standard_pack()))
    other = second_deal(key, options={"first_dealer": 1}, deck=explicit)
    assert other["deck"] == dealt["deck"]


def test_a_shuffle_is_a_permutation_and_reproducible():
    pack = standard_pack(3)
    key = table.seed_key("perm")
    once = shuffle.shuffle(pack, key, "label")
    assert sorted(once) == sorted(pack) and once != pack
    assert shuffle.shuffle(pack, key, "label") == once
    assert shuffle.shuffle(pack, key, "other") != once
    assert shuffle.shuffle(list(range(10)), b"k", "label") == (9, 5, 8, 4, 2, 6, 7, 0, 3, 1)
    with pytest.raises(ValueError):
        shuffle.KeyedStream(key, "x").uniform(0)
