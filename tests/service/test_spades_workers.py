"""Spades bots in a real RQ worker process, through the same service and worker code as
Rummy's: a human plays over HTTP against three bot levels, four bots finish a game
alone, and the human's view never shows a card it may not see.

Nothing is mocked: the Redis is real (embedded, or REDIS_URL), the worker is a real
process (tests/service/live.py's `Workers`), and every check reads the stored log.
"""

import random
from collections import Counter
from typing import Any

import pytest

from engine import games, table
from engine.spades.state import deal_hands
from service.keys import BOTS_WAITING
from tests.service.helpers import cards_in, create_game, events, move, view
from tests.service.live import Workers, play_own_turns, wait_until

SPADES = games.get("spades")
HUMAN = 0
BOTS = [{"bot": "strong"}, {"bot": "greedy"}, {"bot": "random"}]  # seats 1, 2 and 3
CARDS_PER_SEAT = 13  # four players, one hand


@pytest.fixture
def workers(redis_url, redis_client):
    pool = Workers(redis_url, redis_client)
    yield pool
    pool.close()


def new_spades_game(client, seats: list[dict[str, Any]], preset: str, seed: str) -> dict:
    """A one-hand Spades game; dealer 0, so seat 1 bids and leads first."""
    return create_game(
        client,
        seed=seed,
        game="spades",
        preset=preset,
        seats=seats,
        options={"max_hands": 1, "first_dealer": 0},
    )


def state_at(store, game_id: str, version: int):
    """The true engine state at `version`, folded from the stored log (the test's oracle)."""
    return table.fold(SPADES, store.read(game_id, upto=version))


def visible_cards(seen: dict[str, Any]) -> set[str]:
    """The cards a view shows, leaving out `trump_order`: the ranking of the trumps (every
    spade, high to low) is a public rule of the game, not anybody's holding."""
    return cards_in({key: value for key, value in seen.items() if key != "trump_order"})


def bot_moves_were_legal(store, game_id: str, bot_seats: set[int]) -> Counter:
    """Re-fold the log batch by batch; each bot command must be in its legal moves then.

    Returns how many commands each seat made (every batch opens with its command)."""
    made: Counter = Counter()
    state = None
    for record in store.records(game_id):
        command = record.command
        if command is not None and "seat" in command:
            seat = command["seat"]
            made[seat] += 1
            if seat in bot_seats:
                asked = {k: v for k, v in command.items() if k != "seat"}
                legal = SPADES.legal_moves(state, seat)
                assert asked in legal, (record.version, command, legal)
        state = table.evolve(SPADES, state, record.event)
    assert SPADES.is_finished(state)
    return made


def assert_played_through(client, store, redis_client, game_id: str, bot_seats: set[int]):
    """Finished, audited ok, every seat bid and played a full hand, nothing left waiting."""
    assert view(client, game_id)["status"] == "finished"
    audit = client.get(f"/games/{game_id}/audit").get_json()
    assert audit["ok"], audit
    assert audit["game"] == "spades" and audit["finished"] and audit["checks"]["moves"]
    log = store.read(game_id)
    assert [e["type"] for e in log[-2:]] == ["game_ended", "seed_revealed"]
    bids = Counter(e["seat"] for e in log if e["type"] == "bid_made")
    plays = Counter(e["seat"] for e in log if e["type"] == "card_played")
    assert bids == {seat: 1 for seat in range(4)}
    assert plays == {seat: CARDS_PER_SEAT for seat in range(4)}
    made = bot_moves_were_legal(store, game_id, bot_seats)
    assert all(made[seat] >= 1 + CARDS_PER_SEAT for seat in bot_seats), made
    assert redis_client.zscore(BOTS_WAITING, game_id) is None
    return log, made


def test_spades_pairs_human_against_three_bot_levels(client, store, redis_client, workers):
    workers.start()
    created = new_spades_game(client, [{"name": "ann"}, *BOTS], "pairs", "spades workers 1")
    game_id, token = created["id"], created["seats"][HUMAN]["token"]
    human_moves = play_own_turns(client, game_id, token, HUMAN, random.Random(7), timeout=45)
    log, made = assert_played_through(client, store, redis_client, game_id, {1, 2, 3})
    assert human_moves >= 1 + CARDS_PER_SEAT  # a bid (perhaps after a look) and 13 cards
    assert made[HUMAN] == human_moves  # the test made seat 0's moves and no other seat's
    ended = next(e for e in log if e["type"] == "game_ended")
    final = view(client, game_id, token)
    assert final["sides"] == [[0, 2], [1, 3]] and final["side_scores"] == ended["side_scores"]
    best = max(ended["side_scores"])  # pairs: partners win (or tie) together
    winners = [
        s
        for side, points in zip(final["sides"], ended["side_scores"], strict=True)
        for s in side
        if points == best
    ]
    assert ended["winners"] == sorted(winners)
    # the sides are told by the seats' labels: the partner, North, opposite ann
    told = [e["description"] for e in events(client, game_id, token)["events"]]
    result = next(sentence for sentence in told if sentence.startswith("Hand 1 ended: "))
    assert result.startswith("Hand 1 ended: ann & North (greedy bot) "), result
    assert ", West (strong bot) & East (random bot) " in result, result


@pytest.mark.parametrize("preset", ["suicide", "whiz"])
def test_spades_all_bot_game_finishes_with_the_worker_alone(
    client, store, redis_client, workers, preset
):
    seats = [{"bot": "strong"}, {"bot": "greedy"}, {"bot": "random"}, {"bot": "strong"}]
    created = new_spades_game(client, seats, preset, f"spades workers {preset}")
    assert all("token" not in seat for seat in created["seats"])  # nobody here can move
    game_id = created["id"]
    assert store.version(game_id) == created["version"]  # no worker yet: nothing moves
    workers.start()
    wait_until(lambda: view(client, game_id)["status"] == "finished", 45, f"{preset} to finish")
    log, _ = assert_played_through(client, store, redis_client, game_id, {0, 1, 2, 3})
    dealt = next(e for e in log if e["type"] == "hand_dealt")
    hands = deal_hands(dealt["deck"], 4, dealt["dealer"])
    bid = {e["seat"]: e["tricks"] for e in log if e["type"] == "bid_made"}
    for seat in range(4):  # the bids obey the mode's rule, whichever bot made them
        if preset == "whiz":
            spades = sum(1 for card in hands[seat] if card.endswith("S"))
            assert bid[seat] in (0, spades), (seat, bid[seat], hands[seat])
        else:
            pair = sorted((bid[seat], bid[(seat + 2) % 4]))
            assert pair[0] == 0 and pair[1] >= 4, (seat, pair)


def test_spades_human_sees_only_its_own_cards_while_bots_play(client, store, redis_client, workers):
    created = new_spades_game(client, [{"name": "ann"}, *BOTS], "pairs", "spades workers 3")
    game_id, token = created["id"], created["seats"][HUMAN]["token"]
    dealt = next(e for e in store.read(game_id) if e["type"] == "hand_dealt")
    assert HUMAN in dealt["unseen"]  # blind nil is on: every seat starts without looking
    own = set(deal_hands(dealt["deck"], 4, dealt["dealer"])[HUMAN])
    checked = {"hidden": 0, "shown": 0}

    def check(seen: dict[str, Any]) -> bool:
        """The view against the true state at its version: never another seat's card."""
        if seen["status"] == "finished":
            return False
        truth = state_at(store, game_id, seen["version"])
        assert "hands" not in seen
        you = seen["you"]
        assert you["seat"] == HUMAN
        others = set().union(*(truth.hand.hands[s] for s in range(4) if s != HUMAN))
        assert not visible_cards(seen) & others, visible_cards(seen) & others
        if truth.hand.unseen[HUMAN]:
            assert you["hand_hidden"] is True and you["hand"] == []
            checked["hidden"] += 1
        else:
            assert you["hand_hidden"] is False
            assert sorted(you["hand"]) == sorted(truth.hand.hands[HUMAN])
            checked["shown"] += 1
        return False

    def her_turn() -> dict[str, Any] | None:
        seen = view(client, game_id, token)
        check(seen)
        return seen if seen["turn"] == HUMAN else None

    assert her_turn() is None  # before any worker runs: seat 1 (a bot) is to bid
    workers.start()
    # The bots bid first (dealer 0); until ann looks, every view of hers hides her hand.
    first = wait_until(her_turn, 30, "the bots' bids and ann's turn to bid")
    assert first["phase"] == "bidding" and first["you"]["hand_hidden"] is True
    assert first["you"]["hand"] == [] and not visible_cards(first) & own
    assert {"type": "look"} in first["you"]["legal_moves"]
    assert [b is not None for b in first["bids"]] == [False, True, True, True]
    for event in events(client, game_id, token)["events"]:  # her own log hides them too
        assert "deck" not in event and not cards_in(event) & own, event
    looked = move(client, game_id, token, {"type": "look"})
    assert looked.status_code == 200, looked.get_json()
    after = view(client, game_id, token)
    assert after["you"]["hand_hidden"] is False and set(after["you"]["hand"]) == own
    assert not any(m.get("blind") for m in after["you"]["legal_moves"])  # too late to bid blind
    seen_event = events(client, game_id, token, after=first["version"])["events"]
    assert [e["type"] for e in seen_event] == ["cards_seen"] and set(seen_event[0]["cards"]) == own
    spectator = view(client, game_id)  # a spectator sees no hand at all
    assert "you" not in spectator and not visible_cards(spectator)  # no card played yet

    play_own_turns(client, game_id, token, HUMAN, random.Random(3), timeout=45, until=check)
    assert checked["hidden"] >= 1 and checked["shown"] >= CARDS_PER_SEAT
    for event in events(client, game_id, token)["events"]:
        if event["type"] == "hand_dealt":
            assert "deck" not in event and "cards" not in event  # dealt unseen: no cards
        if event["type"] == "cards_seen" and event["seat"] != HUMAN:
            assert "cards" not in event, event  # a bot's look shows her no card
    log, _ = assert_played_through(client, store, redis_client, game_id, {1, 2, 3})
    ended = next(e for e in log if e["type"] == "hand_ended")  # over: the hands are public
    assert [set(h) for h in ended["hands"]] == [
        set(h) for h in deal_hands(dealt["deck"], 4, dealt["dealer"])
    ]
