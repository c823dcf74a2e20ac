"""Spades state and `evolve`: applying a recorded event, never judging it.

State is immutable; every event yields a new state. `evolve` trusts its events
(they were produced by `decide`), and runs for every event of a fold: so the evolvers
of a hand's events read the `hand` field and check it themselves (an in-hand event
always follows `hand_dealt`) instead of going through `SpadesState.dealt_hand`, whose
call cost a few percent of every fold. Scores and bags are kept per side: a side is a
partnership (seats 0 & 2, 1 & 3) or, in solo games, one seat.

Events of a hand, in order:

    hand_dealt   {hand, dealer, deck, shuffle_key, unseen: [seats that have not seen their cards]}
    cards_seen   {seat, cards}        a seat that might bid blind looked (or bid blind)
    bid_made     {seat, tricks, blind}
    card_played  {seat, card}
    trick_won    {seat (the winner), trick (1…), leader, cards: [[seat, card], …]}
    hand_ended   {hand, bids, tricks, deltas, scores, side_scores, bags, …}
    game_ended   {winners, scores, side_scores, hands_played, reason}
"""

from dataclasses import dataclass
from typing import Any, TypeVar

from engine.contract import DealtHand
from engine.errors import NoHandDealt
from engine.frozen import evolved
from engine.spades.options import Options, from_dict
from engine.spades.ranking import TRUMP, ranking

EVENT_VERSION = 1
T = TypeVar("T")

Bid = tuple[int, bool]  # (tricks, blind); 0 tricks is nil


@dataclass(frozen=True)
class Hand:
    number: int
    dealer: int
    hands: tuple[tuple[str, ...], ...]
    unseen: tuple[bool, ...]  # may still bid blind: has not looked at the cards
    bids: tuple[Bid | None, ...]
    phase: str  # "bidding" | "playing" | "over"
    turn: int
    trick: tuple[tuple[int, str], ...] = ()  # the trick in progress: (seat, card) in order
    tricks_won: tuple[int, ...] = ()
    tricks: tuple[dict[str, Any], ...] = ()  # completed: {"leader", "cards", "winner"}
    broken: bool = False  # a trump has been played on another suit's trick
    shuffle_key: str = ""


@dataclass(frozen=True)
class SpadesState(DealtHand[Hand]):
    options: Options
    players: int
    first_dealer: int
    deck_source: str
    sides: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]  # per side
    bags: tuple[int, ...]  # per side
    status: str  # "dealing" | "playing" | "finished"
    hand: Hand | None = None
    hands_played: int = 0
    hand_results: tuple[dict[str, Any], ...] = ()
    result: dict[str, Any] | None = None

    def side_of(self, seat: int) -> int:
        return seat % len(self.sides)

    def seat_scores(self) -> list[int]:
        """Every seat's score: its side's (partners share one)."""
        return [self.scores[seat % len(self.sides)] for seat in range(self.players)]


def sides_for(options: Options, players: int) -> tuple[tuple[int, ...], ...]:
    if options.partnerships:
        return ((0, 2), (1, 3))
    return tuple((seat,) for seat in range(players))


def deal_hands(deck: list[str] | tuple[str, ...], players: int, dealer: int) -> list[list[str]]:
    """Deal the whole pack one card at a time, starting left of the dealer."""
    hands: list[list[str]] = [[] for _ in range(players)]
    for position, card in enumerate(deck):
        hands[(dealer + 1 + position) % players].append(card)
    return hands


def _created(state: Any, event: dict[str, Any]) -> SpadesState:
    players = event["players"]
    options = from_dict(event["options"])
    sides = sides_for(options, players)
    return SpadesState(
        options=options,
        players=players,
        first_dealer=event["first_dealer"],
        deck_source=event["deck_source"],
        sides=sides,
        scores=(0,) * len(sides),
        bags=(0,) * len(sides),
        status="dealing",
    )


def _dealt(state: SpadesState, event: dict[str, Any]) -> SpadesState:
    players = state.players
    dealer = event["dealer"]
    hands = deal_hands(event["deck"], players, dealer)
    unseen = set(event.get("unseen", ()))
    hand = Hand(
        number=event["hand"],
        dealer=dealer,
        hands=tuple(tuple(h) for h in hands),
        unseen=tuple(seat in unseen for seat in range(players)),
        bids=(None,) * players,
        phase="bidding",
        turn=(dealer + 1) % players,
        tricks_won=(0,) * players,
        shuffle_key=event["shuffle_key"],
    )
    return evolved(state, {"status": "playing", "hand": hand})


def _replace(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return values[:index] + (value,) + values[index + 1 :]


def _seen(state: SpadesState, event: dict[str, Any]) -> SpadesState:
    hand = state.hand
    if hand is None:
        raise NoHandDealt()
    new = evolved(hand, {"unseen": _replace(hand.unseen, event["seat"], False)})
    return evolved(state, {"hand": new})


def _bid(state: SpadesState, event: dict[str, Any]) -> SpadesState:
    hand = state.hand
    if hand is None:
        raise NoHandDealt()
    seat = event["seat"]
    bids = _replace(hand.bids, seat, (event["tricks"], bool(event.get("blind", False))))
    changes: dict[str, Any] = {
        "bids": bids,
        "unseen": _replace(hand.unseen, seat, False),
        "turn": (seat + 1) % state.players,
    }
    if all(bid is not None for bid in bids):
        changes["phase"] = "playing"
        changes["turn"] = (hand.dealer + 1) % state.players
    return evolved(state, {"hand": evolved(hand, changes)})


def _played(state: SpadesState, event: dict[str, Any]) -> SpadesState:
    hand = state.hand
    if hand is None:
        raise NoHandDealt()
    seat, card = event["seat"], event["card"]
    held = hand.hands[seat]
    index = held.index(card)
    changes: dict[str, Any] = {
        "hands": _replace(hand.hands, seat, held[:index] + held[index + 1 :]),
        "trick": hand.trick + ((seat, card),),
        "turn": (seat + 1) % state.players,
    }
    if hand.trick and not hand.broken:
        suit = ranking(state.options).suit
        if suit[card] == TRUMP and suit[hand.trick[0][1]] != TRUMP:
            changes["broken"] = True
    return evolved(state, {"hand": evolved(hand, changes)})


def _trick_won(state: SpadesState, event: dict[str, Any]) -> SpadesState:
    hand = state.hand
    if hand is None:
        raise NoHandDealt()
    winner = event["seat"]
    done = {
        "leader": event["leader"],
        "cards": [list(play) for play in event["cards"]],
        "winner": winner,
    }
    new = evolved(
        hand,
        {
            "trick": (),
            "tricks": hand.tricks + (done,),
            "tricks_won": _replace(hand.tricks_won, winner, hand.tricks_won[winner] + 1),
            "turn": winner,
        },
    )
    return evolved(state, {"hand": new})


def _hand_ended(state: SpadesState, event: dict[str, Any]) -> SpadesState:
    hand = state.hand
    if hand is None:
        raise NoHandDealt()
    return evolved(
        state,
        {
            "hand": evolved(hand, {"phase": "over"}),
            "scores": tuple(event["side_scores"]),
            "bags": tuple(event["bags"]),
            "status": "dealing",
            "hands_played": state.hands_played + 1,
            "hand_results": state.hand_results + (event,),
        },
    )


def _game_ended(state: SpadesState, event: dict[str, Any]) -> SpadesState:
    return evolved(state, {"status": "finished", "result": event})


EVOLVERS = {
    "game_created": _created,
    "hand_dealt": _dealt,
    "cards_seen": _seen,
    "bid_made": _bid,
    "card_played": _played,
    "trick_won": _trick_won,
    "hand_ended": _hand_ended,
    "game_ended": _game_ended,
}


def evolve(state: SpadesState | None, event: dict[str, Any]) -> SpadesState:
    return EVOLVERS[event["type"]](state, event)
