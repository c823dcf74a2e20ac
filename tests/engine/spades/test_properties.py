"""Property tests: random legal play of whole games in every mode and variation keeps
every card, ends, folds back to the same state, and never shows a seat a card it may
not see; `legal_moves` lists exactly the commands `decide` accepts."""

import json
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import IllegalMove, table
from engine.spades.ranking import ranking
from tests.engine.spades.helpers import GAME

CONFIGS = [
    ("pairs", 4, {}),
    ("pairs", 4, {"trumps": "bauers", "boston": True, "set_scoring": "minus"}),
    ("pairs", 4, {"trumps": "jokers_high", "blind_deficit": 50}),
    ("pairs", 4, {"blind_bids": False, "nil_tricks": "bid"}),
    ("solo", 4, {}),
    ("solo", 4, {"bags_past_limit": "reset"}),
    ("solo", 3, {}),
    ("solo", 3, {"trumps": "jokers_high"}),
    ("solo", 4, {"trumps": "deuces_high", "boston": True}),
    ("suicide", 4, {}),
    ("whiz", 4, {"trumps": "bauers"}),
    ("mirror", 4, {"trumps": "deuces_high"}),
]
HANDS = 3  # every game is cut at three hands (random bids rarely reach 500)

_CARD_TOKEN = re.compile(r'"(10[CDHS]|[A2-9JQK][CDHS]|JK|JL)"')


def cards_in(value):
    return set(_CARD_TOKEN.findall(json.dumps(value)))


def played(hand):
    cards = {card for trick in hand.tricks for _, card in trick["cards"]}
    return cards | {card for _, card in hand.trick}


def allowed(state, seat):
    """Cards `seat` may see now: every card played this hand, and its own once seen."""
    hand = state.hand
    known = played(hand)
    if hand.phase == "over":
        return None  # the hand is public
    if seat is not None and not hand.unseen[seat]:
        known |= set(hand.hands[seat])
    return known


def check_redacted(event, state_after):
    for seat in [None, *range(state_after.players)]:
        shown = GAME.redact(event, seat, state_after)
        assert "shuffle_key" not in shown and "deck" not in shown
        if event["type"] in ("hand_ended", "game_ended", "game_created"):
            assert shown == event
            continue
        known = allowed(state_after, seat)
        if known is not None:
            leaked = cards_in(shown) - known
            assert not leaked, (seat, event, shown)
        if event["type"] == "hand_dealt":
            if seat is None or seat in event["unseen"]:
                assert "cards" not in shown
            else:
                assert sorted(shown["cards"]) == sorted(state_after.hand.hands[seat])
        if event["type"] == "cards_seen":
            assert ("cards" in shown) is (seat == event["seat"])


def check_views(state):
    for seat in [None, *range(state.players)]:
        shown = GAME.view(state, seat)
        private = {
            k: v for k, v in shown.items() if k not in ("last_hand", "result", "trump_order")
        }
        known = allowed(state, seat)
        if known is not None:
            leaked = cards_in(private) - known
            assert not leaked, (seat, shown)
        assert shown["hand_counts"] == [len(h) for h in state.hand.hands]
        assert shown["tricks_won"] == list(state.hand.tricks_won)
        assert shown["scores"] == state.seat_scores()
        if seat is None:
            assert "you" not in shown
        else:
            you = shown["you"]
            assert you["hand_hidden"] is state.hand.unseen[seat]
            if not state.hand.unseen[seat]:
                assert sorted(you["hand"]) == sorted(state.hand.hands[seat])
            assert you["legal_moves"] == GAME.legal_moves(state, seat)


def check_conservation(state, pack):
    hand = state.hand
    everything = [card for cards in hand.hands for card in cards]
    everything += [card for trick in hand.tricks for _, card in trick["cards"]]
    everything += [card for _, card in hand.trick]
    assert sorted(everything) == pack
    assert sum(hand.tricks_won) == len(hand.tricks)


def canonical(command):
    kind = command["type"]
    if kind == "bid":
        return ("bid", command["tricks"], bool(command.get("blind", False)))
    if kind == "play":
        return ("play", command["card"])
    return (kind,)


def candidates(state):
    most = ranking(state.options).tricks_per_hand
    yield {"type": "look"}
    for tricks in range(-1, most + 2):
        yield {"type": "bid", "tricks": tricks}
        yield {"type": "bid", "tricks": tricks, "blind": True}
        yield {"type": "bid", "tricks": tricks, "blind": False}
    for card in ranking(state.options).pack:
        yield {"type": "play", "card": card}
    yield {"type": "play", "card": "ZZ"}
    yield {"type": "pass"}


def check_exact(state):
    """Every candidate command from every seat: accepted if and only if listed."""
    for seat in range(state.players):
        listed = {canonical(m) for m in GAME.legal_moves(state, seat)}
        accepted = set()
        for command in candidates(state):
            try:
                GAME.decide(state, {**command, "seat": seat})
            except IllegalMove:
                continue
            accepted.add(canonical(command))
        assert accepted == listed, (seat, accepted ^ listed)


def play_checked_game(preset, players, options, seed, exact_every=0, view_every=1):
    rng = random.Random(seed)
    key = table.seed_key(f"spades property {seed}")
    options = {**options, "max_hands": HANDS}
    state, events = table.new_game("spades", players, key, preset=preset, options=options)
    pack = sorted(GAME.pack(state.options))
    folded = None
    for event in events:
        folded = GAME.evolve(folded, event)
        check_redacted(event, folded)
    assert folded == state
    all_events = list(events)
    for step in range(10_000):
        if GAME.is_finished(state):
            break
        check_conservation(state, pack)
        (seat,) = GAME.to_act(state)
        assert seat == state.hand.turn
        moves = GAME.legal_moves(state, seat)
        assert moves
        for other in range(players):
            if other != seat:
                assert GAME.legal_moves(state, other) in ([], [{"type": "look"}])
        if exact_every and step % exact_every == 0:
            check_exact(state)
        if view_every and step % view_every == 0:
            check_views(state)
        # a seat that has not seen its cards sometimes looks, even out of turn
        if rng.random() < 0.2:
            lookers = [s for s in range(players) if state.hand.unseen[s]]
            if lookers:
                seat, moves = rng.choice(lookers), [{"type": "look"}]
        command = dict(rng.choice(moves), seat=seat)
        state, new = table.play(GAME, state, command, key)
        assert new
        for event in new:
            assert event["v"] == 1 and json.loads(json.dumps(event)) == event
            folded = GAME.evolve(folded, event)
            check_redacted(event, folded)
        assert folded == state
        all_events += new
    else:
        raise AssertionError("the game did not finish")
    assert GAME.to_act(state) == [] and state.result["hands_played"] == state.hands_played
    assert state.hands_played <= HANDS
    assert table.fold(GAME, all_events) == state
    for seat in range(players):
        assert GAME.legal_moves(state, seat) == []
    revealed = GAME.reveal(state)
    assert revealed["hands"] == [[] for _ in range(players)]  # every card was played
    return state, all_events


@pytest.mark.parametrize(("preset", "players", "options"), CONFIGS)
def test_every_mode_and_variation_plays_whole_games(preset, players, options):
    state, events = play_checked_game(preset, players, options, seed=f"{preset}{options}")
    assert events[0]["type"] == "game_created" and events[-1]["type"] == "game_ended"
    ended = [e for e in events if e["type"] == "hand_ended"]
    assert len(ended) == state.hands_played
    total = ranking(state.options).tricks_per_hand
    assert all(sum(e["tricks"]) == total for e in ended)
    # scores are the running sum of each hand's points
    assert [sum(e["side_deltas"][i] for e in ended) for i in range(len(state.sides))] == list(
        state.scores
    )


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 10**6))
def test_legal_moves_are_exactly_what_decide_accepts(config, seed):
    preset, players, options = config
    play_checked_game(preset, players, options, seed, exact_every=9, view_every=0)


def test_folding_events_twice_gives_equal_states():
    state, events = play_checked_game("pairs", 4, {}, seed="twice", view_every=0)
    assert table.fold(GAME, events) == table.fold(GAME, list(events)) == state
    with_table_events = [table.players_seated([None] * 4), *events, table.seed_revealed("s")]
    assert table.fold(GAME, with_table_events) == state


def fuzz_states():
    key = table.seed_key("fuzz")
    created = table.new_game("spades", 4, key)[1][:1]
    dealing = table.fold(GAME, created)
    blind, _ = table.new_game("spades", 4, key, options={"first_dealer": 3})
    seen, _ = table.new_game("spades", 4, key, preset="suicide", options={"first_dealer": 3})
    playing = seen
    for tricks in (0, 4, 5, 0):
        playing, _ = table.play(
            GAME, playing, {"type": "bid", "tricks": tricks, "seat": playing.hand.turn}, key
        )
    return [dealing, blind, seen, playing]


FUZZ_STATES = fuzz_states()
ATOMS = st.sampled_from(
    [None, True, False, 0, 1, 4, -1, 99, 1.5, "", "x", "JK", "JL", "AS", "10H", "7C", "1H"]
)
JSONISH = (
    ATOMS
    | st.lists(ATOMS, max_size=4)
    | st.dictionaries(st.sampled_from(["a", "card"]), ATOMS, max_size=2)
)


@settings(max_examples=300, deadline=None)
@given(
    which=st.integers(0, len(FUZZ_STATES) - 1),
    kind=st.sampled_from(["look", "bid", "play", "forfeit", "deal"]) | JSONISH,
    seat=st.sampled_from([0, 1, 2, 3]) | JSONISH,
    fields=st.dictionaries(
        st.sampled_from(["tricks", "blind", "card", "deck", "shuffle_key"]), JSONISH
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
    assert events and all(json.loads(json.dumps(e)) == e for e in events)
    if kind not in ("deal", "forfeit"):
        assert canonical(command) in {canonical(m) for m in GAME.legal_moves(state, seat)}


def test_a_command_that_is_not_an_object_is_refused():
    with pytest.raises(IllegalMove):
        GAME.decide(FUZZ_STATES[1], ["bid"])


@pytest.mark.parametrize("preset", ["pairs", "solo", "suicide", "whiz", "mirror"])
def test_random_play_ends_with_the_default_options(preset):
    """Random bids seldom reach 500 (pairs tables sink to thousands below zero): the
    default `max_hands` cap still ends every game."""
    from engine.simulation.random_play import play_random_game

    state, events = play_random_game("spades", 4, f"default {preset}", preset=preset)
    assert GAME.is_finished(state) and state.hands_played <= state.options.max_hands
    assert table.fold(GAME, events) == state
