"""What a seat may see: its own hand and the public table; spectators see the table only.

The stock's order, other hands and each hand's shuffle key never leave the
engine through a view or a redacted event while the hand is in play. A finished
hand's remaining cards are public (they were shown for scoring).
"""

from collections.abc import Sequence
from typing import Any

from engine.cards import pretty
from engine.rummy.moves import legal_moves
from engine.rummy.state import RummyState, deal_hands


def view(state: RummyState, seat: int | None) -> dict[str, Any]:
    hand = state.hand
    data: dict[str, Any] = {
        "game": "rummy",
        "options": state.options.as_dict(),
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
        shown["cards"] = hands[seat]  # the seat's own cards ("hand" stays the hand number)
    return shown


def reveal(state: RummyState) -> dict[str, Any]:
    """Every card face up: for replays of finished hands and for audits, never for live play."""
    data = view(state, None)
    hand = state.hand
    data["hands"] = [list(cards) for cards in hand.hands] if hand else []
    data["stock"] = list(hand.stock) if hand else []
    return data


def describe(event: dict[str, Any], names: Sequence[str]) -> str:
    """One sentence saying what happened, for replay viewers and terminal replays."""
    kind = event["type"]
    who = names[event["seat"]] if "seat" in event and event["seat"] < len(names) else "?"
    card = pretty(event["card"]) if event.get("card") else None
    if kind == "game_created":
        return f"A game of Rummy for {event['players']} players began."
    if kind == "hand_dealt":
        return f"Hand {event['hand']} was dealt by {names[event['dealer']]}."
    if kind == "card_drawn":
        if event["source"] == "discard":
            return f"{who} drew {card} from the discard pile."
        return f"{who} drew {card} from the stock." if card else f"{who} drew from the stock."
    if kind == "stock_replenished":
        how = "shuffled into" if event.get("shuffled") else "turned over to make"
        return f"The stock ran out; the discard pile was {how} a new stock."
    if kind == "melded":
        cards = " ".join(pretty(c) for c in event["meld"]["cards"])
        return f"{who} melded {cards} (meld {event['meld']['id']})."
    if kind == "laid_off":
        return f"{who} laid off {card} on meld {event['meld']}."
    if kind == "joker_swapped":
        return f"{who} swapped {card} for the joker in meld {event['meld']}."
    if kind == "discarded":
        return f"{who} discarded {card}."
    if kind == "hand_ended":
        if event["winner"] is None:
            return f"Hand {event['hand']} ended with nobody out."
        rummy = " going rummy" if event.get("rummy") else ""
        return f"{names[event['winner']]} went out{rummy} and won hand {event['hand']}."
    if kind == "game_ended":
        return "The game ended; winner: " + ", ".join(names[s] for s in event["winners"]) + "."
    return kind.replace("_", " ").capitalize() + "."
