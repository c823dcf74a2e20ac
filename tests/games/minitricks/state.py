"""Minitricks' state and `evolve`: applying recorded events, never judging them.

Events of a hand: hand_dealt {hand, dealer, deck, shuffle_key}, card_played {seat, card},
trick_won {seat, trick, leader, cards}, hand_ended {hand, tricks, deltas, scores};
the game closes with game_ended {winners, scores, hands_played, reason}.
"""

from dataclasses import dataclass, replace
from typing import Any

from minitricks.options import Options

EVENT_VERSION = 1


@dataclass(frozen=True)
class Hand:
    number: int
    dealer: int
    turn: int
    hands: tuple[tuple[str, ...], ...]
    trick: tuple[tuple[int, str], ...] = ()
    tricks_won: tuple[int, ...] = ()


@dataclass(frozen=True)
class MiniState:
    options: Options
    players: int
    first_dealer: int
    deck_source: str
    status: str  # "dealing" | "playing" | "finished"
    hand: Hand | None = None
    hands_played: int = 0
    scores: tuple[int, ...] = ()
    last_hand: dict[str, Any] | None = None
    result: dict[str, Any] | None = None


def deal_hands(deck: list[str], players: int, dealer: int, size: int) -> list[list[str]]:
    """`size` cards each, one at a time from the seat after the dealer; the rest stay out."""
    hands: list[list[str]] = [[] for _ in range(players)]
    for position, card in enumerate(deck[: size * players]):
        hands[(dealer + 1 + position) % players].append(card)
    return hands


def _hand(state: MiniState) -> Hand:
    assert state.hand is not None, "an event of a hand before its deal"
    return state.hand


def evolve(state: MiniState | None, event: dict[str, Any]) -> MiniState:
    kind = event["type"]
    if kind == "game_created":
        return MiniState(
            options=Options(**event["options"]),
            players=event["players"],
            first_dealer=event["first_dealer"],
            deck_source=event["deck_source"],
            status="dealing",
            scores=(0,) * event["players"],
        )
    assert state is not None, "an event before the game's creation"
    if kind == "hand_dealt":
        dealer, players = event["dealer"], state.players
        dealt = deal_hands(event["deck"], players, dealer, state.options.hand_size)
        turn, hands = (dealer + 1) % players, tuple(map(tuple, dealt))
        hand = Hand(event["hand"], dealer, turn, hands, tricks_won=(0,) * players)
        return replace(state, status="playing", hand=hand)
    if kind == "card_played":
        hand, seat = _hand(state), event["seat"]
        held = tuple(card for card in hand.hands[seat] if card != event["card"])
        hands = hand.hands[:seat] + (held,) + hand.hands[seat + 1 :]
        trick = hand.trick + ((seat, event["card"]),)
        turn = (seat + 1) % state.players
        return replace(state, hand=replace(hand, hands=hands, trick=trick, turn=turn))
    if kind == "trick_won":
        hand, winner = _hand(state), event["seat"]
        won = tuple(n + (seat == winner) for seat, n in enumerate(hand.tricks_won))
        return replace(state, hand=replace(hand, trick=(), tricks_won=won, turn=winner))
    if kind == "hand_ended":
        return replace(
            state,
            status="dealing",
            hands_played=state.hands_played + 1,
            scores=tuple(event["scores"]),
            last_hand=event,
        )
    if kind == "game_ended":
        return replace(state, status="finished", result=event)
    raise ValueError(f"minitricks has no event {kind!r}")
