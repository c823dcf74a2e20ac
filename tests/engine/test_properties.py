"""Property tests: random legal play of whole games keeps every card, ends, folds
back to the same state, and never shows a seat a card it may not see; and
`legal_moves` lists exactly the commands `decide` accepts."""

import itertools
import json
import random
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import IllegalMove, table
from engine.cards import JOKER, sort_cards, standard_pack
from engine.rummy.options import resolve
from tests.engine.rummy_helpers import GAME, canonical

PRESET_PLAYERS = [
    (preset, players)
    for preset in ("pagat", "block", "penalty", "wrotham", "classic-online")
    for players in range(2, 5 if preset == "classic-online" else 7)
]
PRODUCTIVE = {"meld", "lay_off", "swap_joker", "go_down"}
MAX_STEPS = 100_000  # generous: the longest random games here take under 10,000 steps


def choose(rng, moves, eagerness):
    """A random legal move; with probability `eagerness`, a meld-like one when there is one."""
    if rng.random() < eagerness:
        productive = [m for m in moves if m["type"] in PRODUCTIVE]
        if productive:
            return rng.choice(productive)
    return rng.choice(moves)


# -- what a seat may know ---------------------------------------------------------


_CARD_TOKEN = re.compile(r'"(10[CDHS]|[A2-9JQK][CDHS]|JK)"')


def cards_in(value):
    """Every card string anywhere inside a JSON-like value (dict keys are never cards)."""
    return set(_CARD_TOKEN.findall(json.dumps(value)))


class Knowledge:
    """Tracks, within a hand, which cards each seat is publicly known to hold:
    those it took from the discard pile, and jokers it took back by a swap."""

    def __init__(self, players):
        self.taken = [Counter() for _ in range(players)]

    def see(self, event):
        kind = event["type"]
        if kind == "hand_dealt":
            self.taken = [Counter() for _ in self.taken]
        elif kind == "card_drawn" and event["source"] == "discard":
            self.taken[event["seat"]][event["card"]] += 1
        elif kind == "joker_swapped":
            self.taken[event["seat"]][JOKER] += 1

    def allowed(self, state, seat):
        """Cards `seat` may legitimately see now (None: a spectator)."""
        hand = state.hand
        known = set(hand.discard_pile)
        for meld in hand.melds:
            known.update(meld.cards)
        for other, taken in enumerate(self.taken):
            if taken:
                known.update(card for card in taken if card in hand.hands[other])
        if seat is not None:
            known.update(hand.hands[seat])
        return known


PUBLIC_EVENTS = {"hand_ended", "game_ended", "game_created"}


def check_redacted(event, state_after, knowledge):
    for seat in [None, *range(state_after.players)]:
        shown = GAME.redact(event, seat, state_after)
        assert "shuffle_key" not in shown and "deck" not in shown
        if event["type"] in PUBLIC_EVENTS:
            assert shown == event
            continue
        leaked = cards_in(shown) - knowledge.allowed(state_after, seat)
        assert not leaked, (seat, event, shown)
        if event["type"] == "hand_dealt":
            assert shown["hand"] == event["hand"]  # the hand number
            if seat is None:
                assert "cards" not in shown
            else:
                assert shown["cards"] == list(state_after.hand.hands[seat])
        if event["type"] == "card_drawn" and event["source"] == "stock":
            assert ("card" in shown) is (seat == event["seat"])


def check_views(state, knowledge):
    if state.hand is None:
        return
    for seat in [None, *range(state.players)]:
        shown = GAME.view(state, seat)
        hidden = {k: v for k, v in shown.items() if k not in ("last_hand", "result", "options")}
        text = json.dumps(hidden)
        assert state.hand.shuffle_key not in text
        leaked = set(_CARD_TOKEN.findall(text)) - knowledge.allowed(state, seat)
        assert not leaked, (seat, shown)
        assert shown["last_hand"] == (state.hand_results[-1] if state.hand_results else None)
        assert shown["hand_counts"] == [len(h) for h in state.hand.hands]
        assert shown["stock_count"] == len(state.hand.stock)
        assert shown["discard_pile"] == list(state.hand.discard_pile)
        if seat is None:
            assert "you" not in shown
        else:
            assert shown["you"]["hand"] == list(state.hand.hands[seat])
            assert shown["you"]["legal_moves"] == GAME.legal_moves(state, seat)


def check_conservation(state, pack):
    hand = state.hand
    everything = list(hand.stock) + list(hand.discard_pile)
    for cards in hand.hands:
        everything += cards
    for meld in hand.melds:
        everything += meld.cards
    assert sorted(everything) == pack


def play_checked_game(preset, players, seed, eagerness, view_every=1, options=None):
    """Play a whole game at random, checking every invariant after every step
    (the views of every seat after every `view_every`-th step and every deal)."""
    rng = random.Random(seed)
    key = table.seed_key(f"property {seed}")
    state, events = table.new_game("rummy", players, key, preset=preset, options=options)
    knowledge = Knowledge(players)
    pack = sorted(GAME.pack(state.options))
    folded = None
    for event in events:
        folded = GAME.evolve(folded, event)
        knowledge.see(event)
        check_redacted(event, folded, knowledge)
    assert folded == state
    check_views(state, knowledge)
    all_events = list(events)
    snapshot = None
    for step in range(MAX_STEPS):
        if GAME.is_finished(state):
            break
        check_conservation(state, pack)
        (seat,) = GAME.to_act(state)
        assert seat == state.hand.turn
        moves = GAME.legal_moves(state, seat)
        assert moves
        for other in range(players):
            if other != seat:
                assert GAME.legal_moves(state, other) == []
        command = dict(choose(rng, moves, eagerness), seat=seat)
        state, events = table.play(GAME, state, command, key)
        assert events
        for event in events:
            assert event["v"] == 1 and json.loads(json.dumps(event)) == event
            folded = GAME.evolve(folded, event)
            knowledge.see(event)
            check_redacted(event, folded, knowledge)
        assert folded == state  # applying the events one by one gives the same state
        if step % view_every == 0 or events[-1]["type"] in ("hand_dealt", "game_ended"):
            check_views(state, knowledge)
        all_events += events
        if snapshot is None and rng.random() < 0.01:
            snapshot = (len(all_events), state)
    else:
        raise AssertionError(f"{preset} with {players} players did not finish in {MAX_STEPS} steps")
    assert GAME.to_act(state) == [] and state.result is not None
    assert state.result["hands_played"] == state.hands_played
    assert table.fold(GAME, all_events) == state
    if snapshot is not None:
        assert table.fold(GAME, all_events[: snapshot[0]]) == snapshot[1]
    return state, all_events


@pytest.mark.parametrize(("preset", "players"), PRESET_PLAYERS)
def test_every_preset_and_player_count_plays_a_whole_game(preset, players):
    state, events = play_checked_game(preset, players, seed=players, eagerness=0.5, view_every=7)
    assert events[0]["type"] == "game_created" and events[-1]["type"] == "game_ended"
    if state.options.game_end == "deals":
        assert state.hands_played == state.options.deals


def resolve_option_set(option_set):
    options = dict(option_set)
    if options.get("aces") == "corner":
        options["aces"] = "high_or_low"
        options["round_the_corner"] = True
    return options


HOUSE_RULES = st.fixed_dictionaries(
    {},
    optional={
        "melds_per_turn": st.sampled_from(["one", "any"]),
        "going_rummy": st.sampled_from(["none", "double", "bonus"]),
        "lay_off_after_meld": st.booleans(),
        "must_discard_to_go_out": st.booleans(),
        "stock_exhausted": st.sampled_from(["turn_over", "shuffle", "end"]),
        "stock_exhausted_at": st.sampled_from(["next_draw", "last_card"]),
        "no_winner": st.sampled_from(["lowest_wins", "stalemate"]),
        "scoring": st.sampled_from(["winner", "penalty", "pay"]),
        "aces": st.sampled_from(["low", "high_or_low", "corner"]),
    },
)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset_players=st.sampled_from(PRESET_PLAYERS),
    house_rules=HOUSE_RULES,
    seed=st.integers(0, 2**32 - 1),
    eagerness=st.sampled_from([0.2, 0.5, 0.9]),
)
def test_random_games_keep_cards_end_fold_and_hide_cards(
    preset_players, house_rules, seed, eagerness
):
    preset, players = preset_players
    options = resolve_option_set(house_rules)
    if resolve(preset, options, players).max_stock_reuses is None:
        # Pagat: with endless reuse of the discard pile a hand need never end
        options["max_stock_reuses"] = 2
    play_checked_game(preset, players, seed, eagerness, view_every=4, options=options)


# -- legal moves are exactly what decide accepts ------------------------------------


def accepts(state, command):
    try:
        GAME.decide(state, command)
    except IllegalMove:
        return False
    return True


def candidate_commands(state, seat, listed, rng):
    """Listed moves plus many unlisted ones around them, all with the seat filled in."""
    hand = state.hand
    cards = list(hand.hands[seat])
    pack = sorted(set(GAME.pack(state.options)))
    found = [dict(move) for move in listed]
    found += [{"type": "draw", "source": source} for source in ("stock", "discard", "deck")]
    found += [{"type": "discard", "card": card} for card in pack]
    meld_ids = [meld.id for meld in hand.melds] + [len(hand.melds) + 1]
    for card in sorted(set(cards)) + rng.sample(pack, 3):
        for meld_id in meld_ids:
            found.append({"type": "lay_off", "card": card, "meld": meld_id})
            found.append({"type": "swap_joker", "card": card, "meld": meld_id})
    subsets = []
    for size in (3, 4):
        subsets += list(itertools.combinations(cards, size))
    for _ in range(30 if len(cards) >= 2 else 0):
        size = rng.randint(2, min(len(cards), 13))
        subsets.append(tuple(rng.sample(cards, size)))
    for move in listed:
        if move["type"] == "meld":
            meld = move["cards"]
            for card in cards:  # one card more, and one card swapped for another
                subsets.append((*meld, card))
                subsets.append((*meld[1:], card))
            subsets.append((*meld, rng.choice(pack)))
    found += [{"type": "meld", "cards": list(subset)} for subset in set(subsets)]
    found += go_down_candidates(state, cards, listed, rng)
    return [dict(command, seat=seat) for command in found]


def go_down_candidates(state, cards, listed, rng):
    found = []
    for move in listed:
        if move["type"] != "go_down":
            continue
        for discard in [None, *sorted(set(cards))]:
            found.append({"type": "go_down", "melds": move["melds"], "discard": discard})
        if len(move["melds"]) > 1:  # two melds run together
            merged = [move["melds"][0] + move["melds"][1], *move["melds"][2:]]
            found.append({"type": "go_down", "melds": merged, "discard": move["discard"]})
    for _ in range(20):  # random cuts of the hand into melds, maybe keeping a discard
        shuffled = rng.sample(cards, len(cards))
        discard = shuffled.pop() if rng.random() < 0.7 else None
        melds = []
        while shuffled:
            size = rng.choice([3, 3, 4, 5])
            melds.append(shuffled[:size])
            shuffled = shuffled[size:]
        found.append({"type": "go_down", "melds": melds, "discard": discard})
    return found


def check_legal_moves(state, rng):
    seat = state.hand.turn
    listed = GAME.legal_moves(state, seat)
    listed_keys = [canonical(move) for move in listed]
    assert len(listed_keys) == len(set(listed_keys)), "a move is listed twice"
    for move in listed:
        if move["type"] == "meld":
            assert tuple(move["cards"]) == sort_cards(move["cards"])
    listed_keys = set(listed_keys)
    for command in candidate_commands(state, seat, listed, rng):
        key = canonical(command)
        assert accepts(state, command) is (key in listed_keys), (command, key in listed_keys)
    other = (seat + 1) % state.players
    assert GAME.legal_moves(state, other) == []
    for move in listed[:3]:
        assert not accepts(state, dict(move, seat=other))


OPTION_SETS = st.fixed_dictionaries(
    {
        "melds_per_turn": st.sampled_from(["one", "any"]),
        "lay_off_after_meld": st.booleans(),
        "must_discard_to_go_out": st.booleans(),
        "aces": st.sampled_from(["low", "high_or_low", "corner"]),
        "jokers": st.sampled_from([0, 0, 2, 3]),
    }
)


def check_legal_moves_through_a_game(preset, players, options, seed, max_checks):
    rng = random.Random(seed)
    key = table.seed_key(f"legal {seed}")
    state, _ = table.new_game("rummy", players, key, preset=preset, options=options)
    checks = 0
    for _ in range(5_000):
        if GAME.is_finished(state) or checks >= max_checks:
            break
        if state.hand.phase == "play" or rng.random() < 0.2:
            check_legal_moves(state, rng)
            checks += 1
        seat = state.hand.turn
        command = dict(choose(rng, GAME.legal_moves(state, seat), 0.7), seat=seat)
        state, _ = table.play(GAME, state, command, key)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset_players=st.sampled_from(PRESET_PLAYERS),
    option_set=OPTION_SETS,
    seed=st.integers(0, 2**32 - 1),
)
def test_legal_moves_are_exactly_the_accepted_commands(preset_players, option_set, seed):
    preset, players = preset_players
    options = resolve_option_set(option_set)
    if preset == "wrotham" or players > 4:
        options.pop("jokers")  # keep the pack big enough for the hands
    check_legal_moves_through_a_game(preset, players, options, seed, max_checks=40)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"all_at_once_from_deal": 1},
        {"all_at_once_from_deal": 1, "must_discard_to_go_out": True},
        {"aces": "high_or_low", "round_the_corner": True},
        {"lay_off_after_meld": True, "melds_per_turn": "any"},
    ],
)
def test_legal_moves_with_jokers(options):
    """Wrotham's jokers in every kind of meld, and going down all at once."""
    for seed in range(3):
        check_legal_moves_through_a_game("wrotham", 2, options, seed, max_checks=40)


def test_legal_moves_with_a_hand_full_of_jokers():
    pack = list(standard_pack(3))
    # seat 0 (the starter, 8 cards) gets three jokers and a scattering of hearts
    mine = ["JK", "JK", "JK", "2H", "4H", "5H", "9H", "QH"]
    rest = list(pack)
    for card in mine:
        rest.remove(card)
    deck = [None] * 15
    deck[0:15:2] = mine
    deck[1:15:2] = rest[:7]
    deck += rest[7:]
    for options in ({}, {"all_at_once_from_deal": 1}, {"aces": "high_or_low"}):
        options = dict(options, first_dealer=1)
        state, _ = table.new_game(
            "rummy", 2, table.seed_key("jokers"), preset="wrotham", options=options, deck=deck
        )
        assert sorted(state.hand.hands[0]) == sorted(mine)
        check_legal_moves(state, random.Random(0))


# -- malformed commands ---------------------------------------------------------------


def fuzz_states():
    key = table.seed_key("fuzz")
    created = table.new_game("rummy", 2, key)[1][:1]
    dealing = table.fold(GAME, created)
    drawing, _ = table.new_game("rummy", 3, key, options={"first_dealer": 2})
    playing, _ = table.play(GAME, drawing, {"type": "draw", "source": "discard", "seat": 0}, key)
    wrotham, _ = table.new_game("rummy", 2, key, preset="wrotham", options={"first_dealer": 1})
    last_deals, _ = table.new_game(
        "rummy", 2, key, preset="wrotham", options={"first_dealer": 1, "all_at_once_from_deal": 1}
    )
    return [dealing, drawing, playing, wrotham, last_deals]


FUZZ_STATES = fuzz_states()
ATOMS = st.sampled_from(
    [None, True, 0, 1, 2, -1, 99, 1.5, "", "x", "stock", "discard", "JK", "AS", "10H", "7C", "1H"]
)
JSONISH = (
    ATOMS
    | st.lists(ATOMS, max_size=4)
    | st.lists(st.lists(ATOMS, max_size=4), max_size=3)
    | st.dictionaries(st.sampled_from(["a", "card"]), ATOMS, max_size=2)
)


@settings(max_examples=300, deadline=None)
@given(
    which=st.integers(0, len(FUZZ_STATES) - 1),
    kind=st.sampled_from(["draw", "meld", "lay_off", "swap_joker", "discard", "go_down", "deal"])
    | JSONISH,
    seat=st.sampled_from([0, 1, 2]) | JSONISH,
    fields=st.dictionaries(
        st.sampled_from(
            ["source", "card", "cards", "meld", "melds", "discard", "deck", "shuffle_key"]
        ),
        JSONISH,
    ),
)
def test_malformed_commands_are_refused_not_crashed_on(which, kind, seat, fields):
    state = FUZZ_STATES[which]
    command = {**fields, "type": kind, "seat": seat}
    try:
        events = GAME.decide(state, command)
    except IllegalMove as refusal:
        assert refusal.code and refusal.message
        return
    # accepted: then it must have been a legal move
    legal = {canonical(m) for m in GAME.legal_moves(state, seat)} if seat in (0, 1, 2) else set()
    if kind != "deal":
        assert canonical(command) in legal
    assert events and all(json.loads(json.dumps(e)) == e for e in events)
