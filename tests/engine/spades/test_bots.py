"""Bots: only legal moves in every mode, from one seat's view; the strong bot's models."""

import random

import pytest

from engine import table
from engine.errors import InvalidOptions
from engine.simulation.tournament import run_match, run_pairs_match, seating
from engine.spades.bots import BOTS, estimate_tricks, nil_risk
from engine.spades.bots import Play as _Play
from engine.spades.bots import deck_for as _deck
from engine.spades.options import resolve
from tests.engine.spades.helpers import GAME, Table, suit_cards

CONFIGS = [
    ("pairs", 4, {}),
    ("solo", 3, {"trumps": "jokers_high"}),
    ("suicide", 4, {"trumps": "bauers"}),
    ("whiz", 4, {"trumps": "deuces_high"}),
    ("mirror", 4, {"boston": True}),
    ("solo", 4, {}),
    ("pairs", 4, {"bags_past_limit": "reset"}),
]


def play_bots(names, preset, players, options, seed, hands=1):
    """A game cut after `hands` hands; each bot sees its view and redacted history only.
    `table.play` runs `decide`, so an illegal move would raise."""
    key = table.seed_key(seed)
    options = {**options, "max_hands": hands}
    state, events = table.new_game("spades", players, key, preset=preset, options=options)
    rngs = [random.Random(f"{seed}:{seat}") for seat in range(players)]
    history = [[GAME.redact(e, s, state) for e in events[1:]] for s in range(players)]
    commands = []
    while not GAME.is_finished(state):
        seat = GAME.to_act(state)[0]
        view = GAME.view(state, seat)
        command = BOTS[names[seat]](view, history[seat], rngs[seat])
        assert "seat" not in command
        listed = view["you"]["legal_moves"]
        assert command in listed
        commands.append(command)
        state, new = table.play(GAME, state, {**command, "seat": seat}, key)
        for s in range(players):
            history[s] += [GAME.redact(e, s, state) for e in new]
    return state, commands


@pytest.mark.parametrize(("preset", "players", "options"), CONFIGS)
def test_every_bot_makes_only_legal_moves(preset, players, options):
    names = ["strong", "greedy", "random", "strong"][:players]
    state, commands = play_bots(names, preset, players, options, f"bots {preset}")
    assert state.hands_played == 1 and commands


def test_bots_replay_exactly_from_their_rng():
    first = play_bots(["strong", "greedy"] * 2, "pairs", 4, {}, "replay")
    second = play_bots(["strong", "greedy"] * 2, "pairs", 4, {}, "replay")
    assert first[1] == second[1]


def test_the_bots_look_before_bidding_when_they_may_bid_blind():
    t = Table()
    view = GAME.view(t.state, 0)
    for name in ("greedy", "strong"):
        assert BOTS[name](view, [], random.Random(0)) == {"type": "look"}


def test_greedy_plays_the_lowest_winning_card_or_its_lowest():
    hands = {
        0: suit_cards("H", "9 5 4 3 2") + suit_cards("D", "A K Q J 10 9 8 7"),
        1: suit_cards("H", "A K 10 6") + suit_cards("C", "A K Q J 10 9 8 7 6"),
    }
    t = Table(hands, options={"blind_nil": False, "blind_bids": False})
    t.bids(3, 3, 3, 3)
    t.card(0, "9H")
    move = BOTS["greedy"](GAME.view(t.state, 1), [], random.Random(0))
    assert move == {"type": "play", "card": "10H"}
    t.card(1, "AH")
    move = BOTS["greedy"](GAME.view(t.state, 2), [], random.Random(0))
    hearts = [c for c in t.cards(2) if c.endswith("H")]
    assert move["card"] in hearts  # cannot beat the ace: its lowest heart
    assert move["card"] == min(hearts, key=lambda c: "2345678910JQKA".index(c[:-1]))


def test_the_bidding_model():
    deck = _deck(resolve("pairs", None, 4))
    ids = lambda cards: [deck.id[c] for c in cards]  # noqa: E731
    strong = ids(
        suit_cards("S", "A K Q J 10") + suit_cards("H", "A K Q") + ["AC", "KC", "AD"] + ["2D", "3D"]
    )
    weak = ids(
        suit_cards("S", "3 2")
        + suit_cards("H", "7 5 3 2")
        + suit_cards("D", "6 4 2")
        + suit_cards("C", "8 5 3 2")
    )
    assert estimate_tricks(deck, strong) > 9 and estimate_tricks(deck, weak) < 1
    assert nil_risk(deck, weak) < 0.55 < nil_risk(deck, strong)


def test_the_strong_bot_bids_nil_with_a_safe_hand_and_a_partner_to_carry_it():
    weak = (
        suit_cards("S", "3 2")
        + suit_cards("H", "7 5 3 2")
        + suit_cards("D", "6 4 2")
        + suit_cards("C", "8 5 3 2")
    )
    t = Table({2: weak}, options={"blind_nil": False, "blind_bids": False})
    t.bids(5, 3)
    move = BOTS["strong"](GAME.view(t.state, 2), [], random.Random(0))
    assert move == {"type": "bid", "tricks": 0}


def test_the_strong_bots_deals_respect_the_voids_it_has_seen():
    hands = {
        0: suit_cards("H", "A K Q J 10 9 8") + suit_cards("D", "A K Q J 10 9"),
        1: suit_cards("C", "A K Q J 10 9 8") + suit_cards("S", "A K Q J 10 9"),
    }
    t = Table(hands, options={"blind_nil": False, "blind_bids": False})
    t.bids(3, 3, 3, 3)
    t.card(0, "AH")
    t.card(1, "AC")  # seat 1 shows it has no hearts
    view = GAME.view(t.state, 2)
    play = _Play(view, resolve("pairs", None, 4), random.Random(1))
    assert 2 in play.voids[1]  # hearts
    hearts = set(play.deck.by_suit[2])
    for _ in range(30):
        dealt = play.sample()
        assert not set(dealt[1][2]) & hearts
        assert [sum(len(s) for s in seat) for seat in dealt] == view["hand_counts"]


def test_a_pairs_match_mirrors_the_sides():
    options = {"max_hands": 2}
    summary = run_pairs_match("greedy", "random", 1, "match test", "spades", "pairs", options)
    assert summary["games"] == 2 and summary["mirrored"] == 2
    greedy, rand = summary["bots"]["greedy"], summary["bots"]["random"]
    assert greedy["games"] == rand["games"] == 2
    assert greedy["wins"] + rand["wins"] == 2
    assert 0 <= greedy["win_rate_ci95"][0] <= greedy["win_rate"] <= greedy["win_rate_ci95"][1]


def test_the_golden_deal():
    """The deal for a fixed seed never changes (docs/dealing.md; a change breaks audits)."""
    state, events = table.new_game("spades", 4, table.seed_key("golden spades"), preset="pairs")
    assert state.first_dealer == 2 and state.hand.dealer == 2 and state.hand.turn == 3
    assert events[1]["shuffle_key"].startswith("d895cddd31d73c5d")
    assert [list(h) for h in state.hand.hands] == [
        ["4C", "4S", "7D", "7H", "4D", "5H", "6C", "3D", "9C", "5C", "8S", "KH", "QS"],
        ["AD", "8D", "QD", "AC", "3C", "AS", "AH", "KD", "2H", "10C", "2S", "JD", "KS"],
        ["9S", "8C", "10S", "2C", "5D", "3S", "JC", "JS", "KC", "9H", "4H", "5S", "QC"],
        ["JH", "6D", "10D", "QH", "7C", "3H", "8H", "7S", "6S", "6H", "10H", "9D", "2D"],
    ]
    assert events[1]["unseen"] == [0, 1, 2, 3]


def test_two_names_sit_by_sides_only_in_partnership_modes():
    assert seating(2, "spades", "pairs") == ((0, 2), (1, 3))
    assert seating(2, "spades", "mirror") == ((0, 2), (1, 3))
    assert seating(4, "spades", "pairs") is None  # one name per seat
    assert seating(4, "spades", "solo") is None
    assert seating(2, "rummy") is None
    with pytest.raises(InvalidOptions, match="3 or 4 bot names, one per seat"):
        seating(2, "spades", "solo")


def test_run_match_is_the_pairs_match_for_two_names():
    options = {"max_hands": 2}
    match = run_match(["greedy", "random"], 2, "same", "spades", "pairs", options)
    pairs = run_pairs_match("greedy", "random", 2, "same", "spades", "pairs", options)
    assert match["sides"] == [[0, 2], [1, 3]]
    for name in ("greedy", "random"):
        for key in ("games", "wins", "hands", "points_per_hand", "decisions"):
            assert match["bots"][name][key] == pairs["bots"][name][key]


def _first_bidder_view(scores: list[int], partner_bid: dict | None = None) -> dict:
    """Seat 0 to bid first, its cards unseen (pairs: blind bids allowed); the side scores
    as given (a bot decides from the view alone, so the view is all it needs)."""
    state, _ = table.new_game("spades", 4, b"blind nil" * 4, "pairs", {"first_dealer": 3})
    view = GAME.view(state, 0)
    view["side_scores"] = scores
    view["scores"] = [scores[seat % 2] for seat in range(4)]
    if partner_bid is not None:
        view["bids"][2] = partner_bid
    return view


def test_the_strong_bot_bids_blind_nil_only_when_far_behind_a_leader_near_the_target():
    strong = BOTS["strong"]
    blind_nil = {"type": "bid", "tricks": 0, "blind": True}
    assert strong(_first_bidder_view([120, 410]), [], random.Random(0)) == blind_nil
    assert strong(_first_bidder_view([120, 250]), [], random.Random(0)) == {"type": "look"}
    assert strong(_first_bidder_view([300, 410]), [], random.Random(0)) == {"type": "look"}
    assert strong(_first_bidder_view([0, 0]), [], random.Random(0)) == {"type": "look"}
    # Never two nils on one side.
    partner_nil = {"tricks": 0, "blind": False}
    view = _first_bidder_view([120, 410], partner_nil)
    assert strong(view, [], random.Random(0)) == {"type": "look"}
