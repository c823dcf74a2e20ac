"""Rummy's `decide`: judge one command against the state and say what happened.

Commands are dicts with a `type` and, for players' moves, the acting `seat`:

    {"type": "draw", "source": "stock" | "discard"}
    {"type": "meld", "cards": [...]}
    {"type": "lay_off", "card": "3S", "meld": 2}
    {"type": "swap_joker", "card": "7H", "meld": 1}
    {"type": "discard", "card": "KH"}
    {"type": "go_down", "melds": [[...], ...], "discard": "KH" | None}
    {"type": "forfeit"}                               (any time: the seat loses the game)
    {"type": "deal", "deck": [...], "shuffle_key": "…"}   (system: the table deals)

Every refusal is an IllegalMove with a stable code and a sentence for players.
"""

from collections import Counter
from collections.abc import Callable
from typing import Any

from engine import shuffle as keyed
from engine import table
from engine.cards import JOKER, VALID_CARDS, parse_card, pretty
from engine.errors import IllegalMove, InvalidCard
from engine.rummy import scoring
from engine.rummy.melds import Meld, arrange, lay_off, swap_joker
from engine.rummy.options import Options
from engine.rummy.state import EVENT_VERSION, RummyState, remove_one

Event = dict[str, Any]


def pack(options: Options) -> tuple[str, ...]:
    from engine.cards import standard_pack

    return standard_pack(options.jokers)


def decide(state: RummyState, command: dict[str, Any]) -> list[Event]:
    return table.dispatch(state, command, _HANDLERS, "Rummy")


# -- helpers -----------------------------------------------------------------


def _card(command: dict[str, Any], field: str = "card") -> str:
    try:
        return parse_card(command.get(field))
    except InvalidCard as error:
        raise IllegalMove("invalid_card", str(error)) from None


def _cards(value: Any) -> list[str]:
    if not isinstance(value, list) or not value:
        raise IllegalMove("invalid_meld", "A meld is a list of cards.")
    try:
        return [parse_card(card) for card in value]
    except InvalidCard as error:
        raise IllegalMove("invalid_card", str(error)) from None


def _require_play_phase(state: RummyState) -> None:
    if state.dealt_hand.phase == "draw":
        raise IllegalMove(
            "must_draw_first", "Draw a card first, from the stock or the discard pile."
        )


def _take(hand: tuple[str, ...], cards: list[str]) -> tuple[str, ...]:
    """The hand without `cards`, or refuse if it does not hold them all."""
    if len(cards) == 1:  # discards and lay-offs: most commands
        if cards[0] not in hand:
            raise IllegalMove("card_not_in_hand", f"You do not hold {pretty(cards[0])}.")
        return remove_one(hand, cards[0])
    needed = Counter(cards)
    held = Counter(hand)
    for card, count in needed.items():
        if held[card] < count:
            raise IllegalMove("card_not_in_hand", f"You do not hold {pretty(card)}.")
    remaining = hand
    for card in cards:
        remaining = remove_one(remaining, card)
    return remaining


def _check_remaining(state: RummyState, remaining: tuple[str, ...], by_discard: bool) -> None:
    """Every turn must be able to end: keep a card you may discard, or go out."""
    options = state.options
    if not remaining:
        if options.must_discard_to_go_out and not by_discard:
            raise IllegalMove(
                "must_discard_to_go_out",
                "In this game you go out by discarding your last card; keep one to discard.",
            )
        return
    drawn = state.dealt_hand.drawn_from_discard
    if drawn is not None and all(card == drawn for card in remaining):
        raise IllegalMove(
            "must_keep_a_discard",
            f"That would leave you only {pretty(drawn)}, which you took from the discard pile "
            "and may not discard this turn.",
        )


def _meld_event(seat: int, meld: Meld) -> Event:
    return {"type": "melded", "v": EVENT_VERSION, "seat": seat, "meld": meld.as_dict()}


def _find_meld(state: RummyState, meld_id: Any) -> Meld:
    if not isinstance(meld_id, int) or isinstance(meld_id, bool):
        raise IllegalMove("unknown_meld", "Name the meld by its number.")
    for meld in state.dealt_hand.melds:
        if meld.id == meld_id:
            return meld
    raise IllegalMove("unknown_meld", f"There is no meld {meld_id} on the table.")


def _next_meld_id(state: RummyState) -> int:
    return len(state.dealt_hand.melds) + 1


def _forbid_when_all_at_once(state: RummyState) -> None:
    if state.options.all_at_once(state.dealt_hand.number):
        raise IllegalMove(
            "must_go_down_all_at_once",
            "In this deal nobody may meld until they can lay down their whole hand at once.",
        )


def _end_of_hand(
    state: RummyState, hands: tuple[tuple[str, ...], ...], winner: int | None, rummy: bool
) -> list[Event]:
    options = state.options
    points = scoring.hand_points(hands, options)
    deltas = scoring.score_hand(options, points, winner, rummy)
    scores = [a + b for a, b in zip(state.scores, deltas, strict=True)]
    ended: Event = {
        "type": "hand_ended",
        "v": EVENT_VERSION,
        "hand": state.dealt_hand.number,
        "reason": "went_out" if winner is not None else "stock_exhausted",
        "winner": winner,
        "rummy": rummy,
        "hands": [list(h) for h in hands],
        "points": points,
        "deltas": deltas,
        "scores": scores,
    }
    events = [ended]
    winners = scoring.game_winners(options, scores, state.hands_played + 1)
    if winners is not None:
        events.append(
            {
                "type": "game_ended",
                "v": EVENT_VERSION,
                "winners": winners,
                "scores": scores,
                "hands_played": state.hands_played + 1,
            }
        )
    return events


def _went_out(state: RummyState, seat: int, hands: tuple[tuple[str, ...], ...]) -> list[Event]:
    rummy = not state.dealt_hand.opened_before[seat]
    return _end_of_hand(state, hands, seat, rummy and state.options.going_rummy != "none")


def _hands_after(
    state: RummyState, seat: int, cards: tuple[str, ...]
) -> tuple[tuple[str, ...], ...]:
    hands = state.dealt_hand.hands
    return hands[:seat] + (cards,) + hands[seat + 1 :]


# -- commands ----------------------------------------------------------------


def _deal(state: RummyState, command: dict[str, Any]) -> list[Event]:
    return [table.dealt_event(state, command, pack(state.options), EVENT_VERSION)]


def _draw(state: RummyState, command: dict[str, Any]) -> list[Event]:
    hand = state.dealt_hand
    seat = command["seat"]
    if hand.phase != "draw":
        if hand.turns == 0 and state.options.starter_extra_card:
            raise IllegalMove(
                "no_draw_on_first_turn", "The starting player does not draw on the first turn."
            )
        raise IllegalMove("already_drew", "You have already drawn this turn.")
    source = command.get("source")
    if source == "discard":
        if not hand.discard_pile:
            raise IllegalMove("discard_pile_empty", "The discard pile is empty.")
        card = hand.discard_pile[-1]
        held = hand.hands[seat]
        if held.count(card) == len(held):  # every card held is that one (or none held)
            raise IllegalMove(
                "must_keep_a_discard",
                "Taking that card would leave you nothing you may discard this turn.",
            )
        return [_drawn(seat, "discard", card)]
    if source != "stock":
        raise IllegalMove("invalid_source", 'Draw from "stock" or "discard".')
    stock = hand.stock
    if len(stock) > 1 or (stock and state.options.stock_exhausted_at == "next_draw"):
        return [_drawn(seat, "stock", stock[0])]
    if stock:  # "last_card": the stock runs out with this draw and is dealt with at once
        held = _hands_after(state, seat, hand.hands[seat] + (stock[0],))
        return [_drawn(seat, "stock", stock[0]), *_stock_ran_out(state, seat, held)]
    # "next_draw": the stock is empty and this player does not want the discard
    events = _stock_ran_out(state, seat, hand.hands)
    if events[0]["type"] == "stock_replenished":
        events.append(_drawn(seat, "stock", events[0]["stock"][0]))
    return events


def _stock_ran_out(state: RummyState, seat: int, hands: tuple[tuple[str, ...], ...]) -> list[Event]:
    """The discard pile becomes the new stock (turned over or shuffled) while reuses are
    left; else the hand ends with nobody out, `hands` as they are held.

    The pile is never empty here: every stock draw comes after a discard (or the
    upcard), and the draw that empties the stock does not take from the pile."""
    hand = state.dealt_hand
    if not state.options.stock_reuse_allowed(hand.stock_reuses):
        return _end_of_hand(state, hands, None, False)
    reuse = hand.stock_reuses + 1
    shuffled = state.options.stock_exhausted == "shuffle"
    if shuffled:
        stock = keyed.shuffle(hand.discard_pile, bytes.fromhex(hand.shuffle_key), f"reuse:{reuse}")
    else:
        stock = hand.discard_pile  # turned over: the bottom card becomes the top of the stock
    return [
        {
            "type": "stock_replenished",
            "v": EVENT_VERSION,
            "seat": seat,
            "reuse": reuse,
            "shuffled": shuffled,
            "stock": list(stock),
        }
    ]


def _drawn(seat: int, source: str, card: str) -> Event:
    return {"type": "card_drawn", "v": EVENT_VERSION, "seat": seat, "source": source, "card": card}


def _meld(state: RummyState, command: dict[str, Any]) -> list[Event]:
    seat = command["seat"]
    hand = state.dealt_hand
    _require_play_phase(state)
    _forbid_when_all_at_once(state)
    if state.options.melds_per_turn == "one" and hand.melds_this_turn >= 1:
        raise IllegalMove("one_meld_per_turn", "Only one meld per turn in this game.")
    cards = _cards(command.get("cards"))
    remaining = _take(hand.hands[seat], cards)
    meld = arrange(cards, seat, _next_meld_id(state), state.options)
    if meld is None:
        raise IllegalMove("invalid_meld", _why_not_a_meld(cards))
    _check_remaining(state, remaining, by_discard=False)
    events = [_meld_event(seat, meld)]
    if not remaining:
        events += _went_out(state, seat, _hands_after(state, seat, remaining))
    return events


def _why_not_a_meld(cards: list[str]) -> str:
    shown = " ".join(pretty(card) for card in cards)
    if len(cards) < 3:
        return f"{shown} is not a meld: a meld needs at least three cards."
    if sum(1 for card in cards if card != JOKER) < 2:
        return f"{shown} is not a meld: a meld needs at least two natural cards."
    return (
        f"{shown} is not a meld: it must be three or four cards of one rank, or three or more "
        "consecutive cards of one suit."
    )


def _lay_off(state: RummyState, command: dict[str, Any]) -> list[Event]:
    seat = command["seat"]
    _require_play_phase(state)
    _forbid_when_all_at_once(state)
    _require_own_meld(state, seat)
    card = _card(command)
    meld = _find_meld(state, command.get("meld"))
    remaining = _take(state.dealt_hand.hands[seat], [card])
    result = lay_off(meld, card, state.options)
    if result is None:
        raise IllegalMove("cannot_lay_off", f"{pretty(card)} does not fit meld {meld.id}.")
    _check_remaining(state, remaining, by_discard=False)
    events: list[Event] = [
        {
            "type": "laid_off",
            "v": EVENT_VERSION,
            "seat": seat,
            "card": card,
            "meld": meld.id,
            "result": result.as_dict(),
        }
    ]
    if not remaining:
        events += _went_out(state, seat, _hands_after(state, seat, remaining))
    return events


def _require_own_meld(state: RummyState, seat: int) -> None:
    if state.options.lay_off_after_meld and not state.dealt_hand.has_melded[seat]:
        raise IllegalMove(
            "must_meld_first", "In this game you may lay off only after melding at least once."
        )


def _swap_joker(state: RummyState, command: dict[str, Any]) -> list[Event]:
    seat = command["seat"]
    _require_play_phase(state)
    _require_own_meld(state, seat)
    card = _card(command)
    meld = _find_meld(state, command.get("meld"))
    _take(state.dealt_hand.hands[seat], [card])
    result = swap_joker(meld, card)
    if result is None:
        raise IllegalMove(
            "cannot_swap_joker", f"Meld {meld.id} has no joker standing for {pretty(card)}."
        )
    return [
        {
            "type": "joker_swapped",
            "v": EVENT_VERSION,
            "seat": seat,
            "card": card,
            "meld": meld.id,
            "result": result.as_dict(),
        }
    ]


def _discard(state: RummyState, command: dict[str, Any]) -> list[Event]:
    # Half of all commands: the checks of the helpers are inlined for their common case.
    seat = command["seat"]
    hand = state.dealt_hand
    if hand.phase == "draw":
        _require_play_phase(state)
    card = command.get("card")
    if type(card) is not str or card not in VALID_CARDS:
        card = _card(command)
    held = hand.hands[seat]
    if card not in held:
        _take(held, [card])  # refuses: card_not_in_hand
    remaining = remove_one(held, card)
    if card == hand.drawn_from_discard:
        raise IllegalMove(
            "cannot_discard_drawn_discard",
            f"You took {pretty(card)} from the discard pile this turn; discard another card.",
        )
    events: list[Event] = [{"type": "discarded", "v": EVENT_VERSION, "seat": seat, "card": card}]
    if not remaining:
        events += _went_out(state, seat, _hands_after(state, seat, remaining))
    return events


def _go_down(state: RummyState, command: dict[str, Any]) -> list[Event]:
    seat = command["seat"]
    hand = state.dealt_hand
    _require_play_phase(state)
    if not state.options.all_at_once(hand.number):
        raise IllegalMove(
            "go_down_not_allowed", "Going down all at once is only for Wrotham's last deals."
        )
    groups = command.get("melds")
    if not isinstance(groups, list) or not groups:
        raise IllegalMove("invalid_meld", "List the melds that make up your hand.")
    discard = command.get("discard")
    discard_card = None if discard is None else _card(command, "discard")
    laid = [_cards(group) for group in groups]
    everything = [card for group in laid for card in group]
    if discard_card is not None:
        everything.append(discard_card)
    remaining = _take(hand.hands[seat], everything)
    if remaining:
        raise IllegalMove(
            "must_lay_down_all", "In this deal you must lay down your whole hand at once."
        )
    if discard_card is None and state.options.must_discard_to_go_out:
        raise IllegalMove("must_discard_to_go_out", "Keep a card to discard to go out.")
    if discard_card is not None and discard_card == hand.drawn_from_discard:
        raise IllegalMove(
            "cannot_discard_drawn_discard",
            f"You took {pretty(discard_card)} from the discard pile this turn; discard another.",
        )
    events: list[Event] = []
    next_id = _next_meld_id(state)
    for offset, cards in enumerate(laid):
        meld = arrange(cards, seat, next_id + offset, state.options)
        if meld is None:
            raise IllegalMove("invalid_meld", _why_not_a_meld(cards))
        events.append(_meld_event(seat, meld))
    if discard_card is not None:
        events.append({"type": "discarded", "v": EVENT_VERSION, "seat": seat, "card": discard_card})
    empty = _hands_after(state, seat, ())
    return events + _went_out(state, seat, empty)


def _forfeit(state: RummyState, command: dict[str, Any]) -> list[Event]:
    """A player resigns, or their turn clock ran out under the forfeit rule: the game ends."""
    seat = command["seat"]
    others = [s for s in range(state.players) if s != seat]
    pick = min if state.options.scoring == "penalty" else max
    best = pick(state.scores[s] for s in others)
    return [
        {
            "type": "game_ended",
            "v": EVENT_VERSION,
            "winners": [s for s in others if state.scores[s] == best],
            "scores": list(state.scores),
            "hands_played": state.hands_played,
            "forfeited": seat,
        }
    ]


# Typed as `table.dispatch` takes them: it serves every game, so its handlers take any
# game's state (each handler here is only ever given a RummyState).
_HANDLERS: dict[str, Callable[[Any, dict[str, Any]], list[Event]]] = {
    "deal": _deal,
    "draw": _draw,
    "meld": _meld,
    "lay_off": _lay_off,
    "swap_joker": _swap_joker,
    "discard": _discard,
    "go_down": _go_down,
    "forfeit": _forfeit,
}
