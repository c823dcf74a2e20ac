"""Spades' `decide`: judge one command against the state and say what happened.

Commands are dicts with a `type` and, for players' moves, the acting `seat`:

    {"type": "look"}                              (a seat that might bid blind sees its cards)
    {"type": "bid", "tricks": 3}                  (0 is nil)
    {"type": "bid", "tricks": 0, "blind": true}   (blind nil; blind n where allowed)
    {"type": "play", "card": "QS"}
    {"type": "forfeit"}                           (any time: the seat, and its side, lose)
    {"type": "deal", "deck": [...], "shuffle_key": "…"}   (system: the table deals)

Every refusal is an IllegalMove with a stable code and a sentence for players.
"""

from collections.abc import Callable
from typing import Any

from engine import table
from engine.cards import parse_card
from engine.errors import IllegalMove, InvalidCard
from engine.spades import scoring
from engine.spades.moves import bid_refusal, play_refusal
from engine.spades.options import Options
from engine.spades.ranking import ranking
from engine.spades.state import EVENT_VERSION, SpadesState

Event = dict[str, Any]


def pack(options: Options) -> tuple[str, ...]:
    return ranking(options).pack


def decide(state: SpadesState, command: dict[str, Any]) -> list[Event]:
    return table.dispatch(state, command, _HANDLERS, "Spades", any_time=("forfeit", "look"))


# -- commands ----------------------------------------------------------------


def unseen_seats(state: SpadesState) -> list[int]:
    """Seats that deal face down: blind bidding is played and their side may use it."""
    options = state.options
    if not options.blind:
        return []
    seats = []
    for seat in range(state.players):
        if options.blind_deficit is not None:
            side = state.side_of(seat)
            others = [score for s, score in enumerate(state.scores) if s != side]
            if max(others) - state.scores[side] < options.blind_deficit:
                continue
        seats.append(seat)
    return seats


def _deal(state: SpadesState, command: dict[str, Any]) -> list[Event]:
    dealt = table.dealt_event(state, command, pack(state.options), EVENT_VERSION)
    return [{**dealt, "unseen": unseen_seats(state)}]


def _seen(seat: int, cards: tuple[str, ...]) -> Event:
    return {"type": "cards_seen", "v": EVENT_VERSION, "seat": seat, "cards": list(cards)}


def _look(state: SpadesState, command: dict[str, Any]) -> list[Event]:
    seat = command["seat"]
    hand = state.dealt_hand
    if hand.phase != "bidding" or not hand.unseen[seat]:
        raise IllegalMove("already_seen", "You can already see your cards.")
    return [_seen(seat, hand.hands[seat])]


def _bid(state: SpadesState, command: dict[str, Any]) -> list[Event]:
    seat = command["seat"]
    hand = state.dealt_hand
    if hand.phase != "bidding":
        raise IllegalMove("bidding_over", "The bidding is over: play a card.")
    tricks = command.get("tricks")
    if not isinstance(tricks, int) or isinstance(tricks, bool):
        raise IllegalMove("invalid_bid", "A bid is a number of tricks (0 for nil).")
    blind = command.get("blind", False)
    if not isinstance(blind, bool):
        raise IllegalMove("invalid_bid", '"blind" is true or false.')
    refusal = bid_refusal(state, seat, tricks, blind)
    if refusal is not None:
        raise refusal
    events: list[Event] = [
        {"type": "bid_made", "v": EVENT_VERSION, "seat": seat, "tricks": tricks, "blind": blind}
    ]
    if blind:
        events.append(_seen(seat, hand.hands[seat]))
    return events


def _play(state: SpadesState, command: dict[str, Any]) -> list[Event]:
    seat = command["seat"]
    hand = state.dealt_hand
    if hand.phase != "playing":
        raise IllegalMove("still_bidding", "Everyone bids before the first card is played.")
    try:
        card = parse_card(command.get("card"))
    except InvalidCard as error:
        raise IllegalMove("invalid_card", str(error)) from None
    refusal = play_refusal(state, seat, card)
    if refusal is not None:
        raise refusal
    events: list[Event] = [{"type": "card_played", "v": EVENT_VERSION, "seat": seat, "card": card}]
    plays = hand.trick + ((seat, card),)
    if len(plays) < state.players:
        return events
    rank = ranking(state.options)
    winner = rank.trick_winner(plays)
    number = len(hand.tricks) + 1
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
    if number == rank.tricks_per_hand:
        tricks = list(hand.tricks_won)
        tricks[winner] += 1
        events += _end_of_hand(state, tricks)
    return events


def _end_of_hand(state: SpadesState, tricks: list[int]) -> list[Event]:
    options = state.options
    hand = state.dealt_hand
    bids = [bid for bid in hand.bids if bid is not None]
    results = [
        scoring.score_side(options, members, bids, tricks, state.bags[side])
        for side, members in enumerate(state.sides)
    ]
    side_deltas = [result["points"] for result in results]
    side_scores = [a + b for a, b in zip(state.scores, side_deltas, strict=True)]
    per_seat = len(state.sides)
    everything = ranking(options).tricks_per_hand
    boston = next(
        (side for side, result in enumerate(results) if result["took"] == everything), None
    )
    ended: Event = {
        "type": "hand_ended",
        "v": EVENT_VERSION,
        "hand": hand.number,
        "bids": [{"tricks": t, "blind": b} for t, b in bids],
        "tricks": tricks,
        "sides": results,
        "side_deltas": side_deltas,
        "side_scores": side_scores,
        "bags": [result["bags"] for result in results],
        "deltas": [side_deltas[seat % per_seat] for seat in range(state.players)],
        "scores": [side_scores[seat % per_seat] for seat in range(state.players)],
        "boston": boston if options.boston else None,
        "hands": [list(cards) for cards in _dealt_hands(state)],
    }
    events = [ended]
    hands_played = state.hands_played + 1
    if options.boston and boston is not None:
        over: tuple[list[int], str] | None = ([boston], "boston")
    else:
        over = scoring.game_over(options, side_scores, hands_played)
    if over is not None:
        sides, reason = over
        events.append(
            {
                "type": "game_ended",
                "v": EVENT_VERSION,
                "winners": sorted(seat for side in sides for seat in state.sides[side]),
                "scores": ended["scores"],
                "side_scores": side_scores,
                "hands_played": hands_played,
                "reason": reason,
            }
        )
    return events


def _dealt_hands(state: SpadesState) -> list[list[str]]:
    """Each seat's cards as dealt, from the tricks (the hand is public once it is over)."""
    hand = state.dealt_hand
    hands: list[list[str]] = [list(cards) for cards in hand.hands]
    for trick in hand.tricks:
        for seat, card in trick["cards"]:
            hands[seat].append(card)
    for seat, card in hand.trick:
        hands[seat].append(card)
    rank = ranking(state.options)
    return [list(rank.sort_hand(cards)) for cards in hands]


def _forfeit(state: SpadesState, command: dict[str, Any]) -> list[Event]:
    """A player resigns, or their turn clock ran out under the forfeit rule: the game ends.

    Their side loses; among the other sides the best score wins (ties share)."""
    seat = command["seat"]
    losing = state.side_of(seat)
    others = [side for side in range(len(state.sides)) if side != losing]
    best = max(state.scores[side] for side in others)
    winners = sorted(s for side in others if state.scores[side] == best for s in state.sides[side])
    return [
        {
            "type": "game_ended",
            "v": EVENT_VERSION,
            "winners": winners,
            "scores": state.seat_scores(),
            "side_scores": list(state.scores),
            "hands_played": state.hands_played,
            "reason": "forfeit",
            "forfeited": seat,
        }
    ]


# Typed as `table.dispatch` takes them: it serves every game, so its handlers take any
# game's state (each handler here is only ever given a SpadesState).
_HANDLERS: dict[str, Callable[[Any, dict[str, Any]], list[Event]]] = {
    "deal": _deal,
    "look": _look,
    "bid": _bid,
    "play": _play,
    "forfeit": _forfeit,
}
