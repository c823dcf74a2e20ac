"""Minitricks' `decide` and `legal_moves`: follow suit if you can, the highest card of the
suit led takes the trick, one point a trick.

    {"type": "play", "card": "QH"}
    {"type": "forfeit"}                       (any time: the others win)
    {"type": "deal", "deck": [...], "shuffle_key": "…"}   (system: the table deals)
"""

from collections.abc import Callable
from typing import Any

from engine import table
from engine.cards import parse_card
from engine.errors import IllegalMove, InvalidCard
from minitricks.options import PACK, RANKS, Options
from minitricks.state import EVENT_VERSION, Hand, MiniState

Event = dict[str, Any]


def pack(options: Options) -> tuple[str, ...]:
    return PACK


def power(card: str) -> int:
    return RANKS.index(card[:-1])


def playable(hand: Hand, seat: int) -> list[str]:
    """The cards `seat` may play: those of the suit led when it holds any."""
    held = list(hand.hands[seat])
    if not hand.trick:
        return held
    led = hand.trick[0][1][-1]
    return [card for card in held if card[-1] == led] or held


def legal_moves(state: MiniState, seat: int) -> list[dict[str, Any]]:
    """Every command `decide` accepts from `seat` now (a forfeit, always accepted, unlisted)."""
    hand = state.hand
    if state.status != "playing" or hand is None or hand.turn != seat:
        return []
    return [{"type": "play", "card": card} for card in playable(hand, seat)]


def decide(state: MiniState, command: dict[str, Any]) -> list[Event]:
    return table.dispatch(state, command, _HANDLERS, "minitricks")


def _deal(state: MiniState, command: dict[str, Any]) -> list[Event]:
    return [table.dealt_event(state, command, PACK, EVENT_VERSION)]


def _play(state: MiniState, command: dict[str, Any]) -> list[Event]:
    seat, hand = command["seat"], state.hand
    assert hand is not None  # table.dispatch lets no play through before a deal
    try:
        card = parse_card(command.get("card"))
    except InvalidCard as error:
        raise IllegalMove("invalid_card", str(error)) from None
    if card not in hand.hands[seat]:
        raise IllegalMove("card_not_in_hand", f"You do not hold {card}.")
    if card not in playable(hand, seat):
        raise IllegalMove("must_follow_suit", "Follow the suit led while you hold it.")
    events: list[Event] = [{"type": "card_played", "v": EVENT_VERSION, "seat": seat, "card": card}]
    plays = hand.trick + ((seat, card),)
    if len(plays) < state.players:
        return events
    led = plays[0][1][-1]
    winner = max((c for c in plays if c[1][-1] == led), key=lambda play: power(play[1]))[0]
    number = sum(hand.tricks_won) + 1
    events.append(
        {
            "type": "trick_won",
            "v": EVENT_VERSION,
            "seat": winner,
            "trick": number,
            "leader": plays[0][0],
            "cards": [[s, c] for s, c in plays],
        }
    )
    if number < state.options.hand_size:
        return events
    tricks = [n + (s == winner) for s, n in enumerate(hand.tricks_won)]
    scores = [a + b for a, b in zip(state.scores, tricks, strict=True)]
    events.append(
        {
            "type": "hand_ended",
            "v": EVENT_VERSION,
            "hand": hand.number,
            "tricks": tricks,
            "deltas": list(tricks),  # a point a trick
            "scores": scores,
        }
    )
    if state.hands_played + 1 < state.options.hands:
        return events
    best = max(scores)
    winners = [s for s, score in enumerate(scores) if score == best]
    return [*events, _ended(winners, scores, state.hands_played + 1, "hands_played")]


def _forfeit(state: MiniState, command: dict[str, Any]) -> list[Event]:
    seat = command["seat"]
    others = [s for s in range(state.players) if s != seat]
    ended = _ended(others, list(state.scores), state.hands_played, "forfeit")
    return [{**ended, "forfeited": seat}]


def _ended(winners: list[int], scores: list[int], hands_played: int, reason: str) -> Event:
    return {
        "type": "game_ended",
        "v": EVENT_VERSION,
        "winners": winners,
        "scores": scores,
        "hands_played": hands_played,
        "reason": reason,
    }


_HANDLERS: dict[str, Callable[[Any, dict[str, Any]], list[Event]]] = {
    "deal": _deal,
    "play": _play,
    "forfeit": _forfeit,
}
