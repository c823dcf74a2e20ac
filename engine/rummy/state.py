"""Rummy state and `evolve`: applying a recorded event, never judging it.

State is immutable; every event yields a new state. `evolve` trusts its events
(they were produced by `decide`), which keeps rebuilding a game fast: it copies
a state with `engine.frozen` rather than `dataclasses.replace` (see there). For
the same reason the evolvers of a hand's events read the `hand` field and check it
themselves (an in-hand event always follows `hand_dealt`) instead of going through
`RummyState.dealt_hand`: the property's call cost a few percent of every fold.
"""

from dataclasses import dataclass
from typing import Any

from engine.contract import DealtHand
from engine.errors import NoHandDealt
from engine.frozen import evolved, new_object, set_attribute
from engine.rummy.melds import Meld, meld_from_dict
from engine.rummy.options import Options, from_dict

EVENT_VERSION = 1


@dataclass(frozen=True)
class Hand:
    number: int
    dealer: int
    hands: tuple[tuple[str, ...], ...]
    stock: tuple[str, ...]  # index 0 is the top
    discard_pile: tuple[str, ...]  # bottom → top
    melds: tuple[Meld, ...]
    turn: int
    phase: str  # "draw" | "play" | "over"
    drawn_from_discard: str | None = None
    melds_this_turn: int = 0
    played_this_turn: bool = False
    opened_before: tuple[bool, ...] = ()  # melded or laid off in an earlier turn
    has_melded: tuple[bool, ...] = ()
    stock_reuses: int = 0
    shuffle_key: str = ""
    turns: int = 0


@dataclass(frozen=True)
class RummyState(DealtHand[Hand]):
    options: Options
    players: int
    first_dealer: int
    deck_source: str
    scores: tuple[int, ...]
    status: str  # "dealing" | "playing" | "finished"
    hand: Hand | None = None
    hands_played: int = 0
    hand_results: tuple[dict[str, Any], ...] = ()
    result: dict[str, Any] | None = None


def _with_hand_fields(state: RummyState, fields: dict[str, Any]) -> RummyState:
    """The state with a new hand made of `fields` (a filled-in copy of the hand's
    `__dict__`): `copied` for both, in one call, for the two commonest events."""
    hand = new_object(Hand)
    set_attribute(hand, "__dict__", fields)
    state_fields = {**state.__dict__}
    state_fields["hand"] = hand
    new = new_object(RummyState)
    set_attribute(new, "__dict__", state_fields)
    return new


def _with_new_hand(state: RummyState, hand: Hand) -> RummyState:
    fields = {**state.__dict__}  # `copied`, inlined: this runs for every event
    fields["hand"] = hand
    new = new_object(RummyState)
    set_attribute(new, "__dict__", fields)
    return new


def deal_hands(
    deck: list[str] | tuple[str, ...], players: int, dealer: int, options: Options
) -> tuple[list[list[str]], list[str], list[str]]:
    """Deal one card at a time from dealer + 1; then the upcard (if any), then the stock."""
    size = options.hand_size_for(players)
    starter = (dealer + 1) % players
    wanted = [
        size + (1 if options.starter_extra_card and s == starter else 0) for s in range(players)
    ]
    hands: list[list[str]] = [[] for _ in range(players)]
    position = 0
    while any(len(hands[s]) < wanted[s] for s in range(players)):
        for offset in range(1, players + 1):
            seat = (dealer + offset) % players
            if len(hands[seat]) < wanted[seat]:
                hands[seat].append(deck[position])
                position += 1
    if options.starter_extra_card:
        return hands, [], list(deck[position:])
    return hands, [deck[position]], list(deck[position + 1 :])


def _created(state: Any, event: dict[str, Any]) -> RummyState:
    players = event["players"]
    return RummyState(
        options=from_dict(event["options"]),
        players=players,
        first_dealer=event["first_dealer"],
        deck_source=event["deck_source"],
        scores=(0,) * players,
        status="dealing",
    )


def _dealt(state: RummyState, event: dict[str, Any]) -> RummyState:
    players = state.players
    dealer = event["dealer"]
    hands, pile, stock = deal_hands(event["deck"], players, dealer, state.options)
    starter = (dealer + 1) % players
    hand = Hand(
        number=event["hand"],
        dealer=dealer,
        hands=tuple(tuple(h) for h in hands),
        stock=tuple(stock),
        discard_pile=tuple(pile),
        melds=(),
        turn=starter,
        phase="play" if state.options.starter_extra_card else "draw",
        opened_before=(False,) * players,
        has_melded=(False,) * players,
        shuffle_key=event["shuffle_key"],
    )
    return evolved(state, {"status": "playing", "hand": hand})


def _with_hand(
    hands: tuple[tuple[str, ...], ...], seat: int, cards: tuple[str, ...]
) -> tuple[tuple[str, ...], ...]:
    return hands[:seat] + (cards,) + hands[seat + 1 :]


def remove_one(cards: tuple[str, ...], card: str) -> tuple[str, ...]:
    index = cards.index(card)
    return cards[:index] + cards[index + 1 :]


def _drawn(state: RummyState, event: dict[str, Any]) -> RummyState:
    hand = state.hand
    if hand is None:
        raise NoHandDealt()
    seat, card = event["seat"], event["card"]
    hands = hand.hands
    fields = {**hand.__dict__}
    fields["hands"] = hands[:seat] + (hands[seat] + (card,),) + hands[seat + 1 :]
    fields["phase"] = "play"
    if event["source"] == "discard":
        fields["discard_pile"] = hand.discard_pile[:-1]
        fields["drawn_from_discard"] = card
    else:
        fields["stock"] = hand.stock[1:]
    return _with_hand_fields(state, fields)


def _replenished(state: RummyState, event: dict[str, Any]) -> RummyState:
    hand = state.hand
    if hand is None:
        raise NoHandDealt()
    new = evolved(
        hand,
        {"stock": tuple(event["stock"]), "discard_pile": (), "stock_reuses": event["reuse"]},
    )
    return _with_new_hand(state, new)


def _melded(state: RummyState, event: dict[str, Any]) -> RummyState:
    hand = state.hand
    if hand is None:
        raise NoHandDealt()
    seat = event["seat"]
    meld = meld_from_dict(event["meld"])
    remaining = hand.hands[seat]
    for card in meld.cards:
        remaining = remove_one(remaining, card)
    new = evolved(
        hand,
        {
            "hands": _with_hand(hand.hands, seat, remaining),
            "melds": hand.melds + (meld,),
            "melds_this_turn": hand.melds_this_turn + 1,
            "played_this_turn": True,
            "has_melded": _with_flag(hand.has_melded, seat),
        },
    )
    return _with_new_hand(state, new)


def _with_flag(flags: tuple[bool, ...], seat: int) -> tuple[bool, ...]:
    return flags if flags[seat] else flags[:seat] + (True,) + flags[seat + 1 :]


def _replace_meld(melds: tuple[Meld, ...], meld: Meld) -> tuple[Meld, ...]:
    return tuple(meld if m.id == meld.id else m for m in melds)


def _laid_off(state: RummyState, event: dict[str, Any]) -> RummyState:
    hand = state.hand
    if hand is None:
        raise NoHandDealt()
    seat = event["seat"]
    new = evolved(
        hand,
        {
            "hands": _with_hand(hand.hands, seat, remove_one(hand.hands[seat], event["card"])),
            "melds": _replace_meld(hand.melds, meld_from_dict(event["result"])),
            "played_this_turn": True,
        },
    )
    return _with_new_hand(state, new)


def _swapped(state: RummyState, event: dict[str, Any]) -> RummyState:
    hand = state.hand
    if hand is None:
        raise NoHandDealt()
    seat = event["seat"]
    cards = remove_one(hand.hands[seat], event["card"]) + ("JK",)
    new = evolved(
        hand,
        {
            "hands": _with_hand(hand.hands, seat, cards),
            "melds": _replace_meld(hand.melds, meld_from_dict(event["result"])),
        },
    )
    return _with_new_hand(state, new)


def _discarded(state: RummyState, event: dict[str, Any]) -> RummyState:
    hand = state.hand
    if hand is None:
        raise NoHandDealt()
    seat = event["seat"]
    opened = hand.opened_before
    if hand.played_this_turn:
        opened = _with_flag(opened, seat)
    card = event["card"]
    hands = hand.hands
    fields = {**hand.__dict__}
    fields["hands"] = hands[:seat] + (remove_one(hands[seat], card),) + hands[seat + 1 :]
    fields["discard_pile"] = hand.discard_pile + (card,)
    fields["turn"] = (seat + 1) % state.players
    fields["phase"] = "draw"
    fields["drawn_from_discard"] = None
    fields["melds_this_turn"] = 0
    fields["played_this_turn"] = False
    fields["opened_before"] = opened
    fields["turns"] = hand.turns + 1
    return _with_hand_fields(state, fields)


def _hand_ended(state: RummyState, event: dict[str, Any]) -> RummyState:
    hand = state.hand
    if hand is None:
        raise NoHandDealt()
    return evolved(
        state,
        {
            "hand": evolved(hand, {"phase": "over"}),
            "scores": tuple(event["scores"]),
            "status": "dealing",
            "hands_played": state.hands_played + 1,
            "hand_results": state.hand_results + (event,),
        },
    )


def _game_ended(state: RummyState, event: dict[str, Any]) -> RummyState:
    return evolved(state, {"status": "finished", "result": event})


EVOLVERS = {
    "game_created": _created,
    "hand_dealt": _dealt,
    "card_drawn": _drawn,
    "stock_replenished": _replenished,
    "melded": _melded,
    "laid_off": _laid_off,
    "joker_swapped": _swapped,
    "discarded": _discarded,
    "hand_ended": _hand_ended,
    "game_ended": _game_ended,
}


def evolve(state: RummyState | None, event: dict[str, Any]) -> RummyState:
    return EVOLVERS[event["type"]](state, event)
