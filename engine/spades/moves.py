"""What the rules allow, in one place: `decide` asks here why a move is refused and
`legal_moves` lists exactly the moves nothing refuses.

Bids: 0 (nil) to the number of tricks in a hand, constrained by the mode:

* pairs, solo: any; nil only with the option `nil`.
* suicide: nil or at least 4; of each pair one partner bids nil and the other at least 4
  (the first of the pair to bid chooses; the second must take the other role).
* whiz: nil, or exactly the number of spades (trumps) held.
* mirror: exactly the number of spades (trumps) held, which is nil with none.

A seat that has not seen its cards (pairs games with blind bidding) may look, or on its
turn bid blind: blind nil (`blind_nil`) or blind `blind_bid_min` or more (`blind_bids`).
It may not bid without either looking or bidding blind.

Cards: follow the suit led if you can (every trump is a spade); a trump may be led only
once spades are broken or when the leader holds nothing else.
"""

from typing import Any

from engine.cards import pretty
from engine.errors import IllegalMove
from engine.spades.ranking import TRUMP, ranking
from engine.spades.state import Hand, SpadesState

Command = dict[str, Any]

SUICIDE_MIN = 4


def trumps_held(state: SpadesState, seat: int) -> int:
    return _trumps(state, state.dealt_hand, seat)


def _trumps(state: SpadesState, hand: Hand, seat: int) -> int:
    suit = ranking(state.options).suit
    return sum(1 for card in hand.hands[seat] if suit[card] == TRUMP)


def bid_refusal(state: SpadesState, seat: int, tricks: int, blind: bool) -> IllegalMove | None:
    """Why `seat` may not bid `tricks` (blind or not) now, or None when it may.

    Assumes the bidding phase and `seat`'s turn (checked by the caller)."""
    return _bid_refusal(state, state.dealt_hand, seat, tricks, blind)


def _bid_refusal(
    state: SpadesState, hand: Hand, seat: int, tricks: int, blind: bool
) -> IllegalMove | None:
    """`bid_refusal` with the hand already read: legal moves ask it of every bid."""
    options = state.options
    most = ranking(options).tricks_per_hand
    if not 0 <= tricks <= most:
        return IllegalMove("invalid_bid", f"Bid from 0 (nil) to {most} tricks.")
    unseen = hand.unseen[seat]
    if blind and not unseen:
        return IllegalMove(
            "not_blind", "You have seen your cards: a blind bid is made before looking."
        )
    if unseen and not blind:
        return IllegalMove(
            "look_first", "Look at your cards before bidding, or bid blind without looking."
        )
    if blind:
        if tricks == 0:
            if not options.blind_nil:
                return IllegalMove("blind_nil_not_allowed", "Blind nil is not played here.")
            return None
        if not options.blind_bids:
            return IllegalMove("blind_bid_not_allowed", "Only blind nil may be bid blind here.")
        if tricks < options.blind_bid_min:
            return IllegalMove(
                "blind_bid_too_low", f"A blind bid is at least {options.blind_bid_min} tricks."
            )
        return None
    if tricks == 0 and not options.nil:
        return IllegalMove("nil_not_allowed", "Nil bids are not played here: bid at least 1.")
    mode = options.mode
    if mode in ("whiz", "mirror"):
        spades = _trumps(state, hand, seat)
        if tricks != spades and not (mode == "whiz" and tricks == 0):
            if mode == "whiz":
                return IllegalMove(
                    "whiz_bid", f"In Whiz you bid nil or your number of spades ({spades})."
                )
            return IllegalMove(
                "mirror_bid", f"In Mirror you bid exactly your number of spades ({spades})."
            )
    elif mode == "suicide":
        partner_bid = hand.bids[(seat + 2) % 4]
        if partner_bid is None:
            if 0 < tricks < SUICIDE_MIN:
                return IllegalMove(
                    "suicide_bid", f"In Suicide you bid nil or at least {SUICIDE_MIN}."
                )
        elif partner_bid[0] == 0 and tricks < SUICIDE_MIN:
            return IllegalMove(
                "suicide_bid",
                f"Your partner bid nil: in Suicide you must bid at least {SUICIDE_MIN}.",
            )
        elif partner_bid[0] > 0 and tricks != 0:
            return IllegalMove("suicide_bid", "Your partner bid tricks: in Suicide you bid nil.")
    return None


def play_refusal(state: SpadesState, seat: int, card: str) -> IllegalMove | None:
    """Why `seat` may not play `card` now, or None. Assumes the playing phase and turn."""
    hand = state.dealt_hand
    held = hand.hands[seat]
    if card not in held:
        return IllegalMove("card_not_in_hand", f"You do not hold {pretty(card)}.")
    suit = ranking(state.options).suit
    if hand.trick:
        led = suit[hand.trick[0][1]]
        if suit[card] != led and any(suit[c] == led for c in held):
            name = "spades" if led == TRUMP else _SUIT_NAMES[led]
            return IllegalMove("must_follow_suit", f"Follow suit: you hold {name}.")
        return None
    if suit[card] == TRUMP and not hand.broken and any(suit[c] != TRUMP for c in held):
        return IllegalMove(
            "spades_not_broken",
            "Spades are not broken yet: lead another suit while you hold one.",
        )
    return None


_SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def playable(state: SpadesState, seat: int) -> list[str]:
    """The cards `seat` may play now (in hand order), assuming it is its turn to play."""
    return _playable(state, state.dealt_hand, seat)


def _playable(state: SpadesState, hand: Hand, seat: int) -> list[str]:
    held = hand.hands[seat]
    suit = ranking(state.options).suit
    if hand.trick:
        led = suit[hand.trick[0][1]]
        following = [c for c in held if suit[c] == led]
        return following or list(held)
    if hand.broken:
        return list(held)
    plain = [c for c in held if suit[c] != TRUMP]
    return plain or list(held)


def legal_moves(state: SpadesState, seat: int) -> list[Command]:
    """Every command `decide` accepts from `seat` now, in a stable order (bots pick from it).

    `forfeit` is always accepted and never listed (like Rummy's)."""
    if state.status != "playing" or not 0 <= seat < state.players:
        return []
    hand = state.dealt_hand
    if hand.phase == "bidding":
        moves: list[Command] = []
        unseen = hand.unseen[seat]
        if unseen:
            moves.append({"type": "look"})
        if hand.turn != seat:
            return moves
        most = ranking(state.options).tricks_per_hand
        for tricks in range(most + 1):
            if _bid_refusal(state, hand, seat, tricks, unseen) is None:
                if unseen:
                    moves.append({"type": "bid", "tricks": tricks, "blind": True})
                else:
                    moves.append({"type": "bid", "tricks": tricks})
        return moves
    if hand.phase != "playing" or hand.turn != seat:
        return []
    order = ranking(state.options).sort_hand(_playable(state, hand, seat))
    return [{"type": "play", "card": card} for card in order]
