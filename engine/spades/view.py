"""What a seat may see: its own hand (once it has looked) and the public table;
spectators see the table only.

Public: bids, every card played and every trick, tricks won, scores and bags, and how
many cards each seat holds. Private: each hand, the deck and its shuffle key. A seat
that might still bid blind has not seen its own cards either: its view and its
redacted events hide them until it looks or bids (`cards_seen`). A finished hand is
public (`hand_ended` lists the hands as dealt).
"""

from collections.abc import Sequence
from typing import Any

from engine.cards import JOKER, LITTLE_JOKER, pretty
from engine.spades.moves import legal_moves
from engine.spades.ranking import ranking
from engine.spades.state import SpadesState, deal_hands


def view(state: SpadesState, seat: int | None) -> dict[str, Any]:
    hand = state.hand
    rank = ranking(state.options)
    bids = [
        None if bid is None else {"tricks": bid[0], "blind": bid[1]}
        for bid in (hand.bids if hand else ())
    ]
    data: dict[str, Any] = {
        "game": "spades",
        "options": state.options.as_dict(),
        "mode": state.options.mode,
        "status": "finished" if state.status == "finished" else "playing",
        "players": state.players,
        "sides": [list(side) for side in state.sides],
        "scores": state.seat_scores(),
        "side_scores": list(state.scores),
        "bags": list(state.bags),
        "hand_number": hand.number if hand else 0,
        "hands_played": state.hands_played,
        "tricks_per_hand": rank.tricks_per_hand,
        "dealer": hand.dealer if hand else None,
        "turn": hand.turn if hand and hand.phase != "over" else None,
        "phase": hand.phase if hand else None,
        "bids": bids,
        "unseen": [s for s, flag in enumerate(hand.unseen) if flag] if hand else [],
        "spades_broken": hand.broken if hand else False,
        "trick": [[s, card] for s, card in hand.trick] if hand else [],
        "tricks": [dict(trick) for trick in hand.tricks] if hand else [],
        "tricks_won": list(hand.tricks_won) if hand else [],
        "hand_counts": [len(cards) for cards in hand.hands] if hand else [],
        "trump_order": list(rank.trump_order),
        "last_hand": state.hand_results[-1] if state.hand_results else None,
        "result": state.result,
    }
    if seat is not None:
        hidden = bool(hand and hand.phase != "over" and hand.unseen[seat])
        data["you"] = {
            "seat": seat,
            "hand": [] if hidden or not hand else list(rank.sort_hand(hand.hands[seat])),
            "hand_hidden": hidden,
            "legal_moves": legal_moves(state, seat),
        }
    return data


def redact(
    event: dict[str, Any], seat: int | None, state: SpadesState | None = None
) -> dict[str, Any]:
    """The event as `seat` may see it (None: a spectator)."""
    kind = event["type"]
    if kind == "hand_dealt":
        shown = {k: v for k, v in event.items() if k not in ("deck", "shuffle_key")}
        if state is None:
            return shown
        hands = deal_hands(event["deck"], state.players, event["dealer"])
        shown["hand_counts"] = [len(h) for h in hands]
        if seat is not None and seat not in event.get("unseen", ()):
            shown["cards"] = list(ranking(state.options).sort_hand(hands[seat]))
        return shown
    if kind == "cards_seen" and event["seat"] != seat:
        return {k: v for k, v in event.items() if k != "cards"}
    return event


def reveal(state: SpadesState) -> dict[str, Any]:
    """Every card face up: for replays of finished hands and for audits, never for live play."""
    data = view(state, None)
    hand = state.hand
    rank = ranking(state.options)
    data["hands"] = [list(rank.sort_hand(cards)) for cards in hand.hands] if hand else []
    return data


def card_name(card: str) -> str:
    if card == JOKER:
        return "the big joker"
    if card == LITTLE_JOKER:
        return "the little joker"
    return pretty(card)


# Where each seat sits, by table size: play passes to each player's left, so going round
# the seats in order goes clockwise (South, West, North, East). Partners (seats 0 & 2,
# 1 & 3) face each other. Three players leave East empty.
COMPASS = {
    4: ("South", "West", "North", "East"),
    3: ("South", "West", "North"),
}


def seat_name(seat: int, players: int) -> str:
    """The seat's compass point, so a reader finds their partner opposite them."""
    points = COMPASS.get(players)
    if points is None or not 0 <= seat < len(points):
        return f"Seat {seat + 1}"
    return points[seat]


def describe(event: dict[str, Any], names: Sequence[str]) -> str:
    """One sentence saying what happened, for replay viewers and terminal replays."""
    kind = event["type"]
    seat = event.get("seat")
    who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
    if kind == "game_created":
        mode = event["options"]["mode"]
        return f"A game of Spades ({mode}) for {event['players']} players began."
    if kind == "hand_dealt":
        return f"Hand {event['hand']} was dealt by {names[event['dealer']]}."
    if kind == "cards_seen":
        return f"{who} looked at their cards."
    if kind == "bid_made":
        tricks = event["tricks"]
        amount = "nil" if tricks == 0 else str(tricks)
        if event.get("blind"):
            return f"{who} bid blind nil." if tricks == 0 else f"{who} bid {amount} blind."
        return f"{who} bid {amount}."
    if kind == "card_played":
        return f"{who} played {card_name(event['card'])}."
    if kind == "trick_won":
        return f"{who} won the trick."
    if kind == "hand_ended":
        parts = []
        for side in event["sides"]:
            label = " & ".join(names[s] for s in side["seats"])
            parts.append(f"{label} {side['points']:+d}")
        return f"Hand {event['hand']} ended: " + ", ".join(parts) + "."
    if kind == "game_ended":
        winners = ", ".join(names[s] for s in event["winners"])
        if event.get("reason") == "forfeit":
            return f"{names[event['forfeited']]} forfeited; winner: {winners}."
        if event.get("reason") == "boston":
            return f"{winners} took every trick and won the game outright (Boston)."
        return f"The game ended; winner: {winners}."
    return kind.replace("_", " ").capitalize() + "."
