"""The strong bot's bidding: a model of each card's chance to take a trick, a nil risk
score, the bid made from them, and the desperation blind nil it may make unseen.

The weights are in `weights`; this module holds only how they combine."""

from __future__ import annotations

from typing import Any

from engine.spades.bots.commands import Command
from engine.spades.bots.deck import Deck, T, deck_for
from engine.spades.bots.weights import (
    BLIND_NIL_DANGER,
    BLIND_NIL_DEFICIT,
    LAST_BIDDER_SLACK,
    LAST_BIDDER_TRICKS,
    LONG_TRUMP_TRICKS,
    NIL_COVER_TRICKS,
    NIL_MAX_TRICKS,
    NIL_PARTNER_MIN_BID,
    NIL_RISK,
    NIL_RISK_FOURTH,
    NIL_RISK_FOURTH_GUARDED,
    NIL_RISK_HIGH_TRUMP,
    NIL_RISK_LONG_TRUMPS,
    NIL_RISK_MIDDLE_TRUMP,
    NIL_RISK_NO_DUCK,
    NIL_RISK_PLAIN_TOP,
    NIL_RISK_SECOND,
    NIL_RISK_SECOND_GUARDED,
    NIL_RISK_THIRD,
    NIL_RISK_THIRD_GUARDED,
    NIL_RISK_TOP_TRUMP,
    PLAIN_TOP,
    RUFF_DOUBLETON,
    RUFF_SINGLETON,
    RUFF_VOID,
    SOLO_NIL_MAX_TRICKS,
    SOLO_NIL_RISK,
    SUICIDE_NIL_MAX_TRICKS,
    SUICIDE_NIL_RISK,
    TRUMP_TOP,
)
from engine.spades.options import Options


def _suits(deck: Deck, hand: list[int]) -> list[list[int]]:
    by_suit: list[list[int]] = [[], [], [], []]
    for card in hand:
        by_suit[deck.suit[card]].append(card)
    return by_suit


def estimate_tricks(deck: Deck, hand: list[int]) -> float:
    """Expected tricks of a hand: honours by suit length, trump length and ruffs."""
    by_suit = _suits(deck, hand)
    total = 0.0
    for suit in range(3):
        cards = sorted(by_suit[suit], key=deck.from_top.__getitem__)
        length = len(cards)
        if not length:
            continue
        column = min(length, 6) - 1
        for held_above, card in enumerate(cards):
            place = deck.from_top[card]
            # a card is worth its place among the cards out, counting the higher ones held
            effective = place - held_above
            if effective in PLAIN_TOP and place <= 3 + held_above:
                total += PLAIN_TOP[effective][column]
    trumps = sorted(by_suit[T], key=deck.from_top.__getitem__)
    count = len(trumps)
    counted = 0
    for held_above, card in enumerate(trumps):
        place = deck.from_top[card]
        gap = place - held_above  # higher trumps out against this one
        if gap < len(TRUMP_TOP) and count - held_above > gap:
            total += TRUMP_TOP[gap]
            counted += 1
    return total + _spare_trumps(by_suit, count - counted)


def _spare_trumps(by_suit: list[list[int]], spare: int) -> float:
    """What the trumps not counted as honours add: long trumps, then ruffs."""
    count = len(by_suit[T])
    # long trumps: the fifth trump and up usually take tricks once the others are out
    long = max(0, count - 4)
    extra = min(spare, long) * LONG_TRUMP_TRICKS
    spare -= min(spare, long)
    # ruffs: short plain suits let spare trumps win
    for suit in range(3):
        length = len(by_suit[suit])
        if spare <= 0:
            break
        if length == 0:
            use = min(spare, 2)
            extra += use * RUFF_VOID
            spare -= use
        elif length == 1:
            extra += RUFF_SINGLETON
            spare -= 1
        elif length == 2 and spare >= 2:
            extra += RUFF_DOUBLETON
            spare -= 1
    return extra


def nil_risk(deck: Deck, hand: list[int]) -> float:
    """How likely a nil bid with this hand fails, roughly (0 safe … 1+ hopeless)."""
    by_suit = _suits(deck, hand)
    risk = 0.0
    trumps = by_suit[T]
    total_trumps = len(deck.by_suit[T])
    for card in trumps:
        place = deck.from_top[card]
        if place < 4:
            risk += NIL_RISK_TOP_TRUMP
        elif place < total_trumps // 2:
            risk += NIL_RISK_HIGH_TRUMP
        elif place < total_trumps - 4:
            risk += NIL_RISK_MIDDLE_TRUMP
    if len(trumps) >= 4:
        risk += NIL_RISK_LONG_TRUMPS * (len(trumps) - 3)
    for suit in range(3):
        cards = by_suit[suit]
        length = len(cards)
        out = len(deck.by_suit[suit])
        for card in cards:
            place = deck.from_top[card]
            low_guards = sum(1 for c in cards if deck.from_top[c] > place + 2)
            if place == 0:
                risk += NIL_RISK_PLAIN_TOP
            elif place == 1:
                risk += NIL_RISK_SECOND if low_guards < 2 else NIL_RISK_SECOND_GUARDED
            elif place == 2:
                risk += NIL_RISK_THIRD if low_guards < 2 else NIL_RISK_THIRD_GUARDED
            elif place == 3:
                risk += NIL_RISK_FOURTH if low_guards < 2 else NIL_RISK_FOURTH_GUARDED
        if length >= 3:
            lowest = max(deck.from_top[c] for c in cards)
            if lowest < out - 6:  # no low card to duck with
                risk += NIL_RISK_NO_DUCK
    return risk


def bid_strong(view: dict[str, Any], options: Options, moves: list[Command]) -> Command:
    """Nil when the hand is safe enough, else the expected tricks rounded down."""
    deck = deck_for(options)
    you = view["you"]
    me = you["seat"]
    hand = [deck.id[c] for c in you["hand"]]
    expected = estimate_tricks(deck, hand)
    bids = view["bids"]
    allowed = {m["tricks"] for m in moves}
    positive = sorted(t for t in allowed if t > 0)
    partner = (me + 2) % 4 if len(view["sides"]) == 2 else None
    partner_bid = bids[partner]["tricks"] if partner is not None and bids[partner] else None
    if 0 in allowed:
        risk = nil_risk(deck, hand)
        if options.mode == "suicide":
            safe = risk < SUICIDE_NIL_RISK or expected < SUICIDE_NIL_MAX_TRICKS
        elif partner is not None:
            # a partner who bid nil, or too little to carry the side, rules nil out
            safe = risk < NIL_RISK and expected < NIL_MAX_TRICKS and partner_bid != 0
            safe = safe and (partner_bid is None or partner_bid >= NIL_PARTNER_MIN_BID)
        else:
            safe = risk < SOLO_NIL_RISK and expected < SOLO_NIL_MAX_TRICKS
        if safe or not positive:
            return {"type": "bid", "tricks": 0}
    wanted = expected
    if partner_bid == 0:
        wanted += NIL_COVER_TRICKS  # covering a nil partner takes tricks of its own
    others = [b["tricks"] for i, b in enumerate(bids) if i != me and b is not None]
    # the last bidder: the table underbids, the spare tricks come anyway
    under = view["tricks_per_hand"] - LAST_BIDDER_SLACK
    if len(others) == len(bids) - 1 and sum(others) + wanted < under:
        wanted += LAST_BIDDER_TRICKS
    bid = max(1, int(wanted))  # rounding down: a trick short (a set) costs more than a bag
    return {"type": "bid", "tricks": min(positive, key=lambda t: (abs(t - bid), t))}


def _desperate(view: dict[str, Any], options: Options) -> bool:
    """Far behind, with another side about to win: worth a blind nil."""
    me = view["you"]["seat"]
    ours = next(index for index, side in enumerate(view["sides"]) if me in side)
    scores = view["side_scores"]
    leader = max(score for index, score in enumerate(scores) if index != ours)
    return (
        leader >= options.target_score - BLIND_NIL_DANGER
        and leader - scores[ours] >= BLIND_NIL_DEFICIT
    )


def before_looking(
    view: dict[str, Any], options: Options, moves: dict[str, list[Command]]
) -> Command:
    """On its turn with its cards unseen: a blind nil when desperate (and no nil beside
    it on its side), else look first."""
    you = view["you"]
    blind_nil = {"type": "bid", "tricks": 0, "blind": True}
    partner = next((s for s in view["sides"] if you["seat"] in s and len(s) > 1), None)
    partner_nil = partner and any(
        view["bids"][s] and view["bids"][s]["tricks"] == 0 for s in partner
    )
    if blind_nil in moves.get("bid", []) and not partner_nil and _desperate(view, options):
        return blind_nil
    return {"type": "look"}
