"""What a seat may see: its own hand and the public table (the trick, tricks won, scores,
cards left); a spectator sees the table only. The deck, its key and the cards left out
of the deal are never shown."""

from collections.abc import Sequence
from typing import Any

from engine.cards import pretty, sort_cards
from minitricks.decider import legal_moves
from minitricks.state import MiniState, deal_hands


def view(state: MiniState, seat: int | None) -> dict[str, Any]:
    hand = state.hand
    in_play = hand is not None and state.status == "playing"
    data: dict[str, Any] = {
        "game": "minitricks",
        "options": state.options.as_dict(),
        "status": state.status,
        "players": state.players,
        "scores": list(state.scores),
        "hand_number": hand.number if hand else 0,
        "hands_played": state.hands_played,
        "dealer": hand.dealer if hand else None,
        "turn": hand.turn if hand and in_play else None,
        "trick": [[s, card] for s, card in hand.trick] if hand else [],
        "tricks_won": list(hand.tricks_won) if hand else [],
        "hand_counts": [len(cards) for cards in hand.hands] if hand else [],
        "last_hand": state.last_hand,
        "result": state.result,
    }
    if seat is not None:
        data["you"] = {
            "seat": seat,
            "hand": list(sort_cards(hand.hands[seat])) if hand else [],
            "legal_moves": legal_moves(state, seat),
        }
    return data


def redact(event: dict[str, Any], seat: int | None, state: MiniState | None = None) -> dict:
    """A deal shows its counts and, to a seat, that seat's own cards; the rest is public."""
    if event["type"] != "hand_dealt":
        return event
    shown = {k: v for k, v in event.items() if k not in ("deck", "shuffle_key")}
    if state is None:
        return shown
    hands = deal_hands(event["deck"], state.players, event["dealer"], state.options.hand_size)
    shown["hand_counts"] = [len(cards) for cards in hands]
    if seat is not None:
        shown["cards"] = list(sort_cards(hands[seat]))
    return shown


def reveal(state: MiniState) -> dict[str, Any]:
    """Every hand face up: finished hands' replays and audits only."""
    hand = state.hand
    return {**view(state, None), "hands": [list(sort_cards(h)) for h in hand.hands] if hand else []}


def describe(event: dict[str, Any], names: Sequence[str]) -> str:
    kind, seat = event["type"], event.get("seat")
    who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
    if kind == "game_created":
        return f"A game of minitricks for {event['players']} players began."
    if kind == "hand_dealt":
        return f"Hand {event['hand']} was dealt by {names[event['dealer']]}."
    if kind == "card_played":
        return f"{who} played {pretty(event['card'])}."
    if kind == "trick_won":
        return f"{who} won trick {event['trick']}."
    if kind == "hand_ended":
        tricks = ", ".join(f"{names[s]} {n}" for s, n in enumerate(event["tricks"]))
        return f"Hand {event['hand']} ended; tricks: {tricks}."
    if kind == "game_ended":
        winners = ", ".join(names[s] for s in event["winners"])
        if event.get("reason") == "forfeit":
            return f"{names[event['forfeited']]} forfeited; winner: {winners}."
        return f"The game ended; winner: {winners}."
    return kind.replace("_", " ").capitalize() + "."
