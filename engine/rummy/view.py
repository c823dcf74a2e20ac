"""What a seat may see: its own hand and the public table; spectators see the table only.

The stock's order, other hands and each hand's shuffle key never leave the
engine through a view or a redacted event while the hand is in play. A finished
hand's remaining cards are public (they were shown for scoring).
"""

from typing import Any

from engine.rummy.moves import legal_moves
from engine.rummy.state import RummyState, deal_hands


def view(state: RummyState, seat: int | None) -> dict[str, Any]:
    hand = state.hand
    data: dict[str, Any] = {
        "game": "rummy",
        "status": "finished" if state.status == "finished" else "playing",
        "players": state.players,
        "scores": list(state.scores),
        "hand_number": hand.number if hand else 0,
        "hands_played": state.hands_played,
        "dealer": hand.dealer if hand else None,
        "turn": hand.turn if hand and hand.phase != "over" else None,
        "phase": hand.phase if hand else None,
        "stock_count": len(hand.stock) if hand else 0,
        "stock_reuses": hand.stock_reuses if hand else 0,
        "discard_pile": list(hand.discard_pile) if hand else [],
        "melds": [meld.as_dict() for meld in hand.melds] if hand else [],
        "hand_counts": [len(cards) for cards in hand.hands] if hand else [],
        "last_hand": state.hand_results[-1] if state.hand_results else None,
        "result": state.result,
    }
    if seat is not None:
        data["you"] = {
            "seat": seat,
            "hand": list(hand.hands[seat]) if hand else [],
            "legal_moves": legal_moves(state, seat),
        }
    return data


def redact(
    event: dict[str, Any], seat: int | None, state: RummyState | None = None
) -> dict[str, Any]:
    """The event as `seat` may see it (None: a spectator)."""
    kind = event["type"]
    if kind == "hand_dealt":
        return _redacted_deal(event, seat, state)
    if kind == "card_drawn" and event["source"] == "stock" and event["seat"] != seat:
        return {k: v for k, v in event.items() if k != "card"}
    if kind == "stock_replenished":
        shown = {k: v for k, v in event.items() if k != "stock"}
        shown["stock_count"] = len(event["stock"])
        return shown
    return event


def _redacted_deal(event: dict[str, Any], seat: int | None, state: RummyState | None):
    players = state.players if state else 0
    shown = {k: v for k, v in event.items() if k not in ("deck", "shuffle_key")}
    if state is None:
        return shown
    hands, pile, stock = deal_hands(event["deck"], players, event["dealer"], state.options)
    shown["hand_counts"] = [len(h) for h in hands]
    shown["upcard"] = pile[-1] if pile else None
    shown["stock_count"] = len(stock)
    if seat is not None:
        shown["hand"] = hands[seat]
    return shown
