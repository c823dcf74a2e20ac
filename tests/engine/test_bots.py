"""Rummy bots: legal moves only, the seat's view only, and the strong bot's core.

No timings here (decision times are measured with `engine.simulation.tournament`, not asserted).
"""

import json
import random
from collections import Counter

import pytest

from engine import table
from engine.cards import JOKER, standard_pack
from engine.rummy.bots import BOTS, best_partition, choose_greedy, choose_strong
from engine.rummy.melds import arrange, candidate_melds
from engine.rummy.options import resolve
from engine.rummy.scoring import card_points
from engine.rummy.state import deal_hands
from engine.simulation.tournament import play_game, run_tournament, wilson
from tests.engine.rummy_helpers import GAME, Table, canonical

PRESETS = ["pagat", "block", "penalty", "wrotham", "classic-online"]
LINEUPS = {
    2: ["strong", "greedy"],
    3: ["strong", "greedy", "random"],
    4: ["random", "strong", "greedy", "strong"],
}


def seat_history(events, seat, state):
    return [GAME.redact(e, seat, state) for e in events if e["type"] != "game_created"]


def play_checked(preset, players, seed, options=None, max_commands=500, lineup=None):
    """Let bots play; every command must be one of the seat's listed legal moves."""
    lineup = lineup or LINEUPS[players]
    key = table.seed_key(seed)
    state, events = table.new_game("rummy", players, key, preset=preset, options=options)
    histories = [seat_history(events, s, state) for s in range(players)]
    rngs = [random.Random(f"{seed}:{s}") for s in range(players)]
    kinds = Counter()
    for _ in range(max_commands):
        if GAME.is_finished(state):
            break
        seat = GAME.to_act(state)[0]
        view = GAME.view(state, seat)
        command = BOTS[lineup[seat]](view, histories[seat], rngs[seat])
        assert "seat" not in command
        legal = {canonical(m) for m in view["you"]["legal_moves"]}
        assert canonical(command) in legal, (lineup[seat], command, view["you"])
        kinds[(lineup[seat], command["type"])] += 1
        state, new = table.play(GAME, state, {**command, "seat": seat}, key)
        for event in new:
            for s in range(players):
                if event["type"] == "hand_dealt":
                    histories[s] = []
                histories[s].append(GAME.redact(event, s, state))
    return state, kinds


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("preset", PRESETS)
def test_every_bot_only_makes_legal_moves(preset, players):
    _, seen = play_checked(preset, players, f"legal:{preset}:{players}", max_commands=400)
    for bot in set(LINEUPS[players]):
        assert seen[(bot, "discard")] > 0  # every bot took part
    assert seen[("strong", "meld")] + seen[("greedy", "meld")] > 0


@pytest.mark.parametrize(
    "options",
    [
        {"all_at_once_from_deal": 1},  # Wrotham's last deals: only go_down lays cards
        {"must_discard_to_go_out": True, "lay_off_after_meld": True},
        {"aces": "high_or_low", "round_the_corner": True, "melds_per_turn": "any"},
        {"going_rummy": "bonus", "melds_per_turn": "any", "jokers": 2},
    ],
)
def test_bots_respect_the_options(options):
    preset = "wrotham" if "all_at_once_from_deal" in options else "pagat"
    kinds = Counter()
    for game, lineup in enumerate((["strong", "greedy"], ["random", "strong"])):
        _, played = play_checked(
            preset, 2, f"opts:{game}", options, max_commands=300, lineup=lineup
        )
        kinds.update(played)
    if "all_at_once_from_deal" in options:
        assert kinds[("strong", "go_down")] > 0
        assert kinds[("strong", "meld")] == kinds[("strong", "lay_off")] == 0


def test_a_bot_needs_only_a_json_copy_of_its_view_and_history():
    key = table.seed_key("json")
    state, events = table.new_game("rummy", 2, key, preset="pagat")
    histories = [seat_history(events, s, state) for s in range(2)]
    for step in range(120):
        if GAME.is_finished(state):
            break
        seat = GAME.to_act(state)[0]
        view = GAME.view(state, seat)
        copied_view = json.loads(json.dumps(view))
        copied_history = json.loads(json.dumps(histories[seat]))
        for name, bot in BOTS.items():
            assert bot(copied_view, copied_history, random.Random(step)) == bot(
                view, histories[seat], random.Random(step)
            ), name
        command = choose_strong(copied_view, copied_history, random.Random(step))
        state, new = table.play(GAME, state, {**command, "seat": seat}, key)
        for event in new:
            for s in range(2):
                if event["type"] == "hand_dealt":
                    histories[s] = []
                histories[s].append(GAME.redact(event, s, state))


def test_the_view_and_history_hide_what_a_bot_must_not_know():
    """What reaches a bot holds neither the other hands nor the stock."""
    key = table.seed_key("hidden")
    state, events = table.new_game("rummy", 2, key, preset="pagat")
    view = GAME.view(state, 0)
    history = seat_history(events, 0, state)
    text = json.dumps([view, history])
    assert '"deck"' not in text and '"stock"' not in text and "shuffle_key" not in text
    for card in state.hand.hands[1]:
        assert f'"{card}"' not in text


@pytest.mark.parametrize("seed", range(6))
def test_bots_decide_the_same_whatever_the_hidden_cards(seed):
    """Two deals that agree on everything seat 0 may see (its hand, the upcard) but
    differ in the other hand and the stock order give the same decisions."""
    players = 2
    options = resolve("pagat", {"first_dealer": 1}, players)
    deck = list(standard_pack())
    random.Random(seed).shuffle(deck)
    hands, pile, _ = deal_hands(deck, players, 1, options)
    visible = set(hands[0]) | set(pile)
    hidden_positions = [i for i, card in enumerate(deck) if card not in visible]
    other = list(deck)
    shuffled = [deck[i] for i in hidden_positions]
    random.Random(seed + 100).shuffle(shuffled)
    for position, card in zip(hidden_positions, shuffled, strict=True):
        other[position] = card
    assert other != deck
    decisions = []
    for cards in (deck, other):
        key = table.seed_key(f"hidden:{seed}")
        state, events = table.new_game(
            "rummy", players, key, preset="pagat", options={"first_dealer": 1}, deck=cards
        )
        assert GAME.to_act(state) == [0]
        view = GAME.view(state, 0)
        history = seat_history(events, 0, state)
        made = []
        for name, bot in sorted(BOTS.items()):
            command = bot(view, history, random.Random(seed))
            made.append((name, command))
        # play seat 0's whole first turn with the strong bot, deciding from its view
        turn = []
        while GAME.to_act(state) == [0] and len(turn) < 12:
            view = GAME.view(state, 0)
            command = choose_strong(view, seat_history(events, 0, state), random.Random(seed))
            turn.append(command)
            state, new = table.play(GAME, state, {**command, "seat": 0}, key)
            events = events + new
            if command["type"] == "discard":
                break
        decisions.append((made, turn[:1]))
    assert decisions[0] == decisions[1]


def bot_view(t, seat=0):
    return GAME.view(t.state, seat), seat_history(t.events, seat, t.state)


def test_greedy_takes_a_discard_that_completes_a_meld():
    t = Table(hands={0: ["7H", "7S", "2C", "9D", "KD", "QC", "4S", "JH", "3D", "10C"]}, upcard="7D")
    view, history = bot_view(t)
    assert choose_greedy(view, history, random.Random(0)) == {"type": "draw", "source": "discard"}
    t = Table(hands={0: ["7H", "8H", "2C", "9D", "KD", "QC", "4S", "JH", "3D", "10C"]}, upcard="9H")
    view, history = bot_view(t)
    assert choose_greedy(view, history, random.Random(0)) == {"type": "draw", "source": "discard"}


def test_greedy_leaves_a_discard_that_completes_nothing_and_then_melds_and_sheds():
    t = Table(
        hands={0: ["7H", "7S", "7C", "9D", "KD", "QC", "4S", "JH", "3D", "10C"]},
        upcard="2S",
        stock=["AD"],
    )
    view, history = bot_view(t)
    assert choose_greedy(view, history, random.Random(0)) == {"type": "draw", "source": "stock"}
    t.draw(0)
    view, history = bot_view(t)
    command = choose_greedy(view, history, random.Random(0))
    assert command["type"] == "meld" and sorted(command["cards"]) == ["7C", "7H", "7S"]
    t.meld(0, *command["cards"])
    view, history = bot_view(t)
    assert choose_greedy(view, history, random.Random(0)) == {"type": "discard", "card": "KD"}


def test_strong_takes_a_discard_that_completes_a_meld_and_goes_out_when_it_can():
    t = Table(hands={0: ["7H", "7S", "2C", "3C", "4C", "5C", "AD", "AS", "AH", "9D"]}, upcard="7D")
    view, history = bot_view(t)
    assert choose_strong(view, history, random.Random(0)) == {"type": "draw", "source": "discard"}


def test_strong_melds_then_lays_off_then_throws_a_loose_card():
    t = Table(
        hands={
            0: ["2C", "3C", "4C", "KS", "QH", "9D", "9S", "AD", "6H", "JC"],
            1: ["8H", "8S", "8D", "5D", "KD", "QC", "4S", "JH", "3D", "10C"],
        },
        upcard="2S",
        stock=["AS", "8C"],
        dealer=0,
    )
    # seat 1 starts: it melds its eights
    t.draw(1)
    t.meld(1, "8D", "8H", "8S")
    t.discard(1, "KD")
    t.draw(0)
    played = []
    while GAME.to_act(t.state) == [0]:
        view, history = bot_view(t)
        command = choose_strong(view, history, random.Random(0))
        played.append(command)
        t.play(0, **command)
    assert played[:2] == [
        {"type": "meld", "cards": ["2C", "3C", "4C"]},
        {"type": "lay_off", "card": "8C", "meld": 1},
    ]
    assert played[2]["type"] == "discard" and played[2]["card"] in {"KS", "QH", "JC"}


def test_strong_goes_out_by_discarding_when_it_must():
    t = Table(
        hands={0: ["2C", "3C", "4C", "9D"]},
        upcard="KS",
        stock=["5C"],
        options={"hand_size": 4, "must_discard_to_go_out": True},
    )
    t.draw(0)
    view, history = bot_view(t)
    command = choose_strong(view, history, random.Random(0))
    assert command == {"type": "meld", "cards": ["2C", "3C", "4C", "5C"]} or command == {
        "type": "meld",
        "cards": ["2C", "3C", "4C"],
    }
    t.meld(0, *command["cards"])
    while GAME.to_act(t.state) == [0]:
        view, history = bot_view(t)
        command = choose_strong(view, history, random.Random(0))
        t.play(0, **command)
    assert t.ended()["winner"] == 0


@pytest.mark.parametrize("picked", [True, False])
def test_strong_does_not_throw_what_the_next_player_collects(picked):
    """Seat 1 took 8♦ from the pile: throwing 8♠ (else the natural throw) could hand it a
    group of eights. When 8♦ stays dead in the pile, 8♠ goes."""
    t = Table(
        hands={
            0: ["8S", "7D", "2C", "4H", "6S", "AH", "3D", "5C", "2S", "AC"],
            1: ["8H", "8C", "2D", "4C", "6H", "10H", "QS", "KC", "AS", "3S"],
        },
        upcard="8D",
        stock=["5D"] if picked else ["KD", "5D"],
        dealer=0,
    )
    t.draw(1, "discard" if picked else "stock")
    t.discard(1, "QS")
    t.draw(0)
    view, history = bot_view(t)
    command = choose_strong(view, history, random.Random(0))
    assert command["type"] == "discard"
    assert (command["card"] != "8S") if picked else (command["card"] == "8S")


# -- the exact partition ----------------------------------------------------------


def brute_deadwood(hand, options):
    """Minimum deadwood by trying every set of disjoint melds the engine accepts."""
    melds = candidate_melds(hand, options)
    best = sum(card_points(c, options) for c in hand)

    def search(rest, start):
        nonlocal best
        best = min(best, sum(card_points(c, options) for c in rest.elements()))
        for index in range(start, len(melds)):
            need = Counter(melds[index])
            if all(rest[c] >= n for c, n in need.items()):
                search(rest - need, index + 1)

    search(Counter(hand), 0)
    return best


@pytest.mark.parametrize(
    "hand, options, deadwood",
    [
        # the 4-run would strand two sixes; 3-4-5 + three sixes leaves nothing
        (["3H", "4H", "5H", "6H", "6S", "6D"], {}, 0),
        (["AH", "2H", "3H", "4H", "4S", "4D", "KC"], {}, 10),
        # the king-queen-ace run only when aces are high (and the ace is then 15)
        (["QH", "KH", "AH"], {}, 21),
        (["QH", "KH", "AH"], {"aces": "high_or_low"}, 0),
        (["KS", "AS", "2S", "9D"], {"aces": "high_or_low", "round_the_corner": True}, 9),
        # one joker: better in the group of nines (leaves 5+7+10) than in the run
        (["5H", "7H", JOKER, "9C", "9D", "KS"], {"jokers": 2}, 22),
        # two jokers and one natural make no meld: a meld needs two natural cards
        ([JOKER, JOKER, "2C", "9S", "KD"], {"jokers": 2}, 51),
        # a spare joker joins a meld with room instead of counting 15
        ([JOKER, JOKER, "4D", "5D", "6D", "QC"], {"jokers": 2}, 10),
        # jokers bridging gaps: 4-JK-6-JK-8 is a run
        (["4S", JOKER, "6S", JOKER, "8S", "KH"], {"jokers": 2}, 10),
    ],
)
def test_strong_partition_finds_the_minimum_deadwood(hand, options, deadwood):
    resolved = resolve("pagat", options, 2)
    found = best_partition(hand, resolved)
    assert found.deadwood == deadwood
    assert brute_deadwood(hand, resolved) == deadwood
    check_partition(hand, resolved, found)


def check_partition(hand, options, found):
    rest = Counter(hand)
    for meld in found.melds:
        assert arrange(meld, 0, 1, options) is not None, meld
        rest.subtract(meld)
    assert all(count >= 0 for count in rest.values())
    assert sum(card_points(c, options) * n for c, n in rest.items()) == found.deadwood


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"aces": "high_or_low"},
        {"aces": "high_or_low", "round_the_corner": True},
        {"jokers": 1},
        {"jokers": 3},
    ],
)
def test_strong_partition_agrees_with_brute_force_on_random_hands(options):
    resolved = resolve("pagat", options, 2)
    pack = list(standard_pack(resolved.jokers))
    rng = random.Random(str(options))
    for _ in range(150):
        size = rng.randint(3, 11)
        # bias towards dense hands (few suits, close ranks) where melds overlap
        if rng.random() < 0.5:
            suits = rng.sample("CDHS", 2)
            pool = [c for c in pack if c == JOKER or c[-1] in suits]
            low = rng.randint(1, 8)
            pool = [c for c in pool if c == JOKER or low <= _rank(c) <= low + 6]
            hand = rng.sample(pool, min(size, len(pool)))
        else:
            hand = rng.sample(pack, size)
        found = best_partition(hand, resolved)
        assert found.deadwood == brute_deadwood(hand, resolved), hand
        check_partition(hand, resolved, found)


def _rank(card):
    return {"A": 1, "J": 11, "Q": 12, "K": 13}.get(card[:-1]) or int(card[:-1])


# -- tournaments --------------------------------------------------------------------


def test_a_mirrored_tournament_gives_each_bot_both_seats_of_every_deal():
    ticks = []
    result = run_tournament(
        ["greedy", "random"], 2, "t", preset="pagat", progress=lambda d, n: ticks.append((d, n))
    )
    assert ticks[-1] == (4, 4)
    greedy, rand = result["bots"]["greedy"], result["bots"]["random"]
    assert greedy["games"] == rand["games"] == 4
    assert greedy["wins"] + rand["wins"] == 4
    low, high = greedy["win_rate_ci95"]
    assert 0 <= low <= greedy["win_rate"] <= high <= 1
    assert greedy["decisions"] > 0 and greedy["decision_ms_p99"] >= greedy["decision_ms_p50"]
    first = play_game(["greedy", "random"], "t", 0, 0)
    swapped = play_game(["greedy", "random"], "t", 0, 1)
    assert first.seats == ("greedy", "random") and swapped.seats == ("random", "greedy")
    assert play_game(["greedy", "random"], "t", 0, 0).winners == first.winners  # replays


def test_wilson_interval():
    low, high = wilson(65, 100)
    assert 0.55 < low < 0.65 < high < 0.74
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(10, 10)[1] == pytest.approx(1.0)


def test_a_bot_can_play_itself_in_a_tournament():
    result = run_tournament(["greedy", "greedy"], 1, "self", preset="pagat")
    assert set(result["bots"]) == {"greedy", "greedy#2"}
    assert sum(b["wins"] for b in result["bots"].values()) == 2


def test_unknown_bots_are_refused():
    with pytest.raises(ValueError):
        run_tournament(["greedy", "genius"], 1, "x")


@pytest.mark.parametrize("at", ["next_draw", "last_card"])
@pytest.mark.parametrize("mode", ["turn_over", "shuffle"])
def test_a_turned_over_stock_is_remembered_and_a_shuffled_one_is_not(mode, at):
    """The pile's order is public, so a stock made by turning it over is known; the
    strong bot's memory of it must match the real stock exactly (and stay unknown when
    the pile was shuffled), whether the pile is reused before a draw or right after the
    draw that emptied the stock."""
    from engine.rummy.bots.memory import SeatMemory as _Table

    key = table.seed_key(f"memory:{mode}")
    options = {"stock_exhausted": mode, "max_stock_reuses": None, "stock_exhausted_at": at}
    state, events = table.new_game("rummy", 2, key, preset="pagat", options=options)
    histories = [seat_history(events, s, state) for s in range(2)]
    rng = random.Random(0)
    checked = 0
    for _ in range(3000):
        seat = GAME.to_act(state)[0]
        view = GAME.view(state, seat)
        known = _Table(view, histories[seat]).stock_known
        if state.hand.stock_reuses:
            if mode == "turn_over":
                assert known is not None and tuple(known) == state.hand.stock
                checked += 1
            else:
                assert known is None
                checked += 1
        else:
            assert known is None
        if checked >= 40:
            break
        command = rng.choice(view["you"]["legal_moves"])
        state, new = table.play(GAME, state, {**command, "seat": seat}, key)
        for event in new:
            for s in range(2):
                if event["type"] == "hand_dealt":
                    histories[s] = []
                histories[s].append(GAME.redact(event, s, state))
    assert checked >= 40
