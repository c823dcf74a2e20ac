"""Spades bots: three levels of play over one seat's view, never the engine state.

Every bot is a pure function `choose(view, history, rng) -> command` (without the
seat). `view` is `game.view(state, seat)`: the seat's own hand (once seen), bids, the
trick in progress and every trick of the hand, tricks won, scores and bags. `history`
is the hand's events as the seat may see them; the view already holds all a Spades
bot needs (tricks are public), so the bots read the view only. Randomness comes only
from the `rng` passed in, so a game replays exactly.

* `random` picks a uniformly random legal move: the floor any bot must beat.
* `greedy` looks at its cards, bids its high cards and long spades, and plays the
  lowest card that wins the trick so far, or else its lowest card (partner or not).
* `strong` bids from a model of each card's chance to take a trick (by suit length,
  honours above it and the trumps behind it), bids nil when the hand is safe (few,
  low spades, no unguarded high cards, a partner who can carry the side), and plays
  by determinized Monte Carlo: it samples deals of the unseen cards consistent with
  everything seen (each seat's card count; voids revealed by not following suit, and
  by leading spades before they were broken), plays every distinct candidate card
  forward in each sample with a fast policy that knows the bids (make our bid, set
  theirs, protect a partner's nil, break an opponent's nil, shed cards to avoid bags)
  and picks the card with the best mean score difference for its side. The number of
  samples shrinks with the cards left, keeping a decision within a few milliseconds.

Cards are small ints (their index in the pack); each has an effective suit 0-3 (3:
trumps, which include jokers, Bauers and high deuces) and a power (higher wins).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import Any

from engine.spades.options import Options, from_dict
from engine.spades.ranking import Ranking, ranking

__all__ = ["BOTS", "Bot", "choose_greedy", "choose_random", "choose_strong", "estimate_tricks"]

Command = dict[str, Any]
Bot = Callable[[dict[str, Any], list[dict[str, Any]], random.Random], Command]

_SUIT_INDEX = {"C": 0, "D": 1, "H": 2, "S": 3}
T = 3  # the trump suit's index


class _Deck:
    """A pack as ints: effective suit and power per card, per option set (cached)."""

    def __init__(self, rank: Ranking) -> None:
        self.rank = rank
        self.cards: tuple[str, ...] = rank.pack
        self.id: dict[str, int] = {card: i for i, card in enumerate(self.cards)}
        self.suit: list[int] = [_SUIT_INDEX[rank.suit[c]] for c in self.cards]
        self.power: list[int] = [rank.power[c] for c in self.cards]
        # every card of each suit, ascending power
        self.by_suit: list[list[int]] = [
            sorted(
                (i for i in range(len(self.cards)) if self.suit[i] == s), key=self.power.__getitem__
            )
            for s in range(4)
        ]
        # position of each card from the top of its suit (0: the highest)
        self.from_top: list[int] = [0] * len(self.cards)
        for ids in self.by_suit:
            for position, i in enumerate(reversed(ids)):
                self.from_top[i] = position


@cache
def _deck_for(trumps: str, deuce_order: str, three_players: bool) -> _Deck:
    return _Deck(
        ranking(Options(trumps=trumps, deuce_order=deuce_order, three_players=three_players))
    )


_OPTIONS: dict[int, tuple[dict[str, Any], Options]] = {}


def _options(view: dict[str, Any]) -> Options:
    raw = view["options"]
    entry = _OPTIONS.get(id(raw))
    if entry is not None and entry[0] is raw:
        return entry[1]
    options = from_dict(raw)
    if len(_OPTIONS) > 256:
        _OPTIONS.clear()
    _OPTIONS[id(raw)] = (raw, options)
    return options


def _deck(options: Options) -> _Deck:
    return _deck_for(options.trumps, options.deuce_order, options.three_players)


# -- random ----------------------------------------------------------------------


def choose_random(
    view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random
) -> Command:
    """A uniformly random legal move: the baseline the other bots are measured against."""
    return dict(rng.choice(view["you"]["legal_moves"]))


# -- shared ----------------------------------------------------------------------


def _by_type(moves: list[Command]) -> dict[str, list[Command]]:
    grouped: dict[str, list[Command]] = {}
    for move in moves:
        grouped.setdefault(move["type"], []).append(move)
    return grouped


def _closest_bid(bids: list[Command], wanted: float) -> Command:
    return dict(min(bids, key=lambda m: (abs(m["tricks"] - wanted), m["tricks"])))


def _current_best(deck: _Deck, trick: list[tuple[int, int]]) -> tuple[int, int] | None:
    """(seat, card id) winning the trick so far."""
    if not trick:
        return None
    suit, power = deck.suit, deck.power
    best_seat, best = trick[0]
    for seat, card in trick[1:]:
        if suit[card] == suit[best]:
            if power[card] > power[best]:
                best_seat, best = seat, card
        elif suit[card] == T:
            best_seat, best = seat, card
    return best_seat, best


def _beats(deck: _Deck, card: int, best: int) -> bool:
    if deck.suit[card] == deck.suit[best]:
        return deck.power[card] > deck.power[best]
    return deck.suit[card] == T


# -- greedy ----------------------------------------------------------------------


def _greedy_estimate(deck: _Deck, hand: list[int]) -> int:
    """High cards and long spades: the count a casual player makes."""
    lengths = [0, 0, 0, 0]
    for card in hand:
        lengths[deck.suit[card]] += 1
    tricks = 0
    for card in hand:
        suit, top = deck.suit[card], deck.from_top[card]
        if suit == T:
            if top <= 1 or (top == 2 and lengths[T] >= 3):
                tricks += 1
        elif top == 0 or (top == 1 and lengths[suit] >= 2):
            tricks += 1
    tricks += max(0, lengths[T] - 3)
    return tricks


def choose_greedy(
    view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random
) -> Command:
    """The obvious player: it never plans ahead, never counts cards and never minds its
    partner, so it is the yardstick that shows what the strong bot's thinking is worth."""
    you = view["you"]
    moves = _by_type(you["legal_moves"])
    if "look" in moves and view["turn"] == you["seat"]:
        return {"type": "look"}
    deck = _deck(_options(view))
    hand = [deck.id[c] for c in you["hand"]]
    if "bid" in moves:
        return _closest_bid(moves["bid"], max(1, _greedy_estimate(deck, hand)))
    plays = [deck.id[m["card"]] for m in moves["play"]]
    trick = [(seat, deck.id[card]) for seat, card in view["trick"]]
    best = _current_best(deck, trick)
    power = deck.power
    if best is not None:
        winners = [c for c in plays if _beats(deck, c, best[1])]
        if winners:
            return {"type": "play", "card": deck.cards[min(winners, key=power.__getitem__)]}
    return {"type": "play", "card": deck.cards[min(plays, key=power.__getitem__)]}


# -- strong: bidding ---------------------------------------------------------------

# The chance that a plain (non-trump) card takes a trick, by its place among the
# cards of its suit still out (0: the ace) and the suit's length in hand. Calibrated
# from strong-bot self play (docs/spades.md).
_PLAIN_TOP = {
    # place: chances for lengths 1, 2, 3, 4, 5, 6+
    0: (0.95, 0.95, 0.92, 0.88, 0.8, 0.6),
    1: (0.15, 0.72, 0.75, 0.7, 0.55, 0.4),
    2: (0.0, 0.15, 0.45, 0.4, 0.3, 0.2),
}
# A trump's chance by its place from the top of the trumps, given the trumps held.
_TRUMP_TOP = (1.0, 0.92, 0.8, 0.6)


def estimate_tricks(deck: _Deck, hand: list[int]) -> float:
    """Expected tricks of a hand: honours by suit length, trump length and ruffs."""
    by_suit: list[list[int]] = [[], [], [], []]
    for card in hand:
        by_suit[deck.suit[card]].append(card)
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
            if effective in _PLAIN_TOP and place <= 3 + held_above:
                total += _PLAIN_TOP[effective][column]
    trumps = sorted(by_suit[T], key=deck.from_top.__getitem__)
    count = len(trumps)
    counted = 0
    for held_above, card in enumerate(trumps):
        place = deck.from_top[card]
        gap = place - held_above  # higher trumps out against this one
        if gap < len(_TRUMP_TOP) and count - held_above > gap:
            total += _TRUMP_TOP[gap]
            counted += 1
    spare = count - counted
    # long trumps: the fifth trump and up usually take tricks once the others are out
    long = max(0, count - 4)
    extra = min(spare, long) * 0.85
    spare -= min(spare, long)
    # ruffs: short plain suits let spare trumps win
    for suit in range(3):
        length = len(by_suit[suit])
        if spare <= 0:
            break
        if length == 0:
            use = min(spare, 2)
            extra += use * 0.8
            spare -= use
        elif length == 1:
            extra += 0.6
            spare -= 1
        elif length == 2 and spare >= 2:
            extra += 0.3
            spare -= 1
    return total + extra


def nil_risk(deck: _Deck, hand: list[int]) -> float:
    """How likely a nil bid with this hand fails, roughly (0 safe … 1+ hopeless)."""
    by_suit: list[list[int]] = [[], [], [], []]
    for card in hand:
        by_suit[deck.suit[card]].append(card)
    risk = 0.0
    trumps = by_suit[T]
    total_trumps = len(deck.by_suit[T])
    for card in trumps:
        place = deck.from_top[card]
        if place < 4:
            risk += 1.0
        elif place < total_trumps // 2:
            risk += 0.35
        elif place < total_trumps - 4:
            risk += 0.12
    if len(trumps) >= 4:
        risk += 0.4 * (len(trumps) - 3)
    for suit in range(3):
        cards = by_suit[suit]
        length = len(cards)
        out = len(deck.by_suit[suit])
        for card in cards:
            place = deck.from_top[card]
            low_guards = sum(1 for c in cards if deck.from_top[c] > place + 2)
            if place == 0:
                risk += 1.0
            elif place == 1:
                risk += 0.5 if low_guards < 2 else 0.2
            elif place == 2:
                risk += 0.3 if low_guards < 2 else 0.08
            elif place == 3:
                risk += 0.12 if low_guards < 2 else 0.03
        if length >= 3:
            lowest = max(deck.from_top[c] for c in cards)
            if lowest < out - 6:  # no low card to duck with
                risk += 0.25
    return risk


NIL_RISK = 0.55  # bid nil below this risk (measured: about 85% of such nils succeed)
# A blind nil (±200, cards unseen) is a losing bet on average; the strong bot makes it only
# when its side is this far behind and the leader this close to the target: the game is
# likely lost anyway, and 200 points is the way back.
BLIND_NIL_DEFICIT = 200
BLIND_NIL_DANGER = 150
SUICIDE_NIL_RISK = 1.2  # in Suicide one partner must bid nil: the first takes it more readily


# -- strong: card play -------------------------------------------------------------

AVOID, PROTECT, TAKE, DUCK = 0, 1, 2, 3


class _Play:
    """One card decision of the strong bot: the view read into ints once."""

    def __init__(self, view: dict[str, Any], options: Options, rng: random.Random) -> None:
        self.view = view
        self.options = options
        self.rng = rng
        self.deck = deck = _deck(options)
        you = view["you"]
        self.me = me = you["seat"]
        self.players = players = view["players"]
        self.sides = [tuple(side) for side in view["sides"]]
        self.side_of = [0] * players
        for index, side in enumerate(self.sides):
            for seat in side:
                self.side_of[seat] = index
        self.partner = (me + 2) % 4 if len(self.sides) == 2 and players == 4 else None
        self.bids = [bid["tricks"] if bid else 0 for bid in view["bids"]]
        self.blind = [bool(bid and bid["blind"]) for bid in view["bids"]]
        self.won = list(view["tricks_won"])
        self.bags = list(view["bags"])
        self.hand = [deck.id[c] for c in you["hand"]]
        self.trick = [(seat, deck.id[card]) for seat, card in view["trick"]]
        self.broken = view["spades_broken"]
        self.counts = list(view["hand_counts"])
        # what has been seen: played cards and voids
        seen = set(self.hand)
        voids = [set() for _ in range(players)]
        suit = deck.suit
        broken = False
        for trick in view["tricks"]:
            plays = [(s, deck.id[c]) for s, c in trick["cards"]]
            self._learn(plays, voids, broken)
            for _, c in plays:
                seen.add(c)
                if not broken and suit[c] == T and suit[plays[0][1]] != T:
                    broken = True
        self._learn(self.trick, voids, broken)
        for _, c in self.trick:
            seen.add(c)
        self.voids = voids
        self.unknown = [i for i in range(len(deck.cards)) if i not in seen]
        self._prepare()

    def _learn(self, plays: list[tuple[int, int]], voids: list[set[int]], broken: bool) -> None:
        if not plays:
            return
        suit = self.deck.suit
        led = suit[plays[0][1]]
        if led == T and not broken:
            voids[plays[0][0]].update((0, 1, 2))  # led spades unbroken: held nothing else
        for seat, card in plays[1:]:
            if suit[card] != led:
                voids[seat].add(led)

    # -- sampling the unseen cards -------------------------------------------------

    def sample(self) -> list[list[list[int]]]:
        """Hands for every seat (per suit, ascending power) consistent with the voids."""
        rng = self.rng
        deck = self.deck
        players = self.players
        me = self.me
        need = list(self.counts)
        need[me] = 0
        voids = self.voids
        cards = self.unknown[:]
        rng.shuffle(cards)
        suit = deck.suit
        # most constrained first: cards whose suit few seats may hold
        open_seats = [
            [s for s in range(players) if s != me and su not in voids[s]] for su in range(4)
        ]
        cards.sort(key=lambda c: len(open_seats[suit[c]]))
        for _ in range(6):
            left = list(need)
            hands: list[list[int]] = [[] for _ in range(players)]
            ok = True
            for card in cards:
                seats = open_seats[suit[card]]
                total = 0
                for s in seats:
                    total += left[s]
                if total == 0:
                    ok = False
                    break
                pick = rng.randrange(total)
                for s in seats:
                    pick -= left[s]
                    if pick < 0:
                        break
                hands[s].append(card)
                left[s] -= 1
            if ok:
                hands[me] = list(self.hand)
                return [self._split(h) for h in hands]
            rng.shuffle(cards)
            cards.sort(key=lambda c: len(open_seats[suit[c]]))
        # the voids cannot all be honoured (should not happen): deal ignoring them
        hands = [[] for _ in range(players)]
        position = 0
        for s in range(players):
            if s == me:
                continue
            hands[s] = cards[position : position + need[s]]
            position += need[s]
        hands[me] = list(self.hand)
        return [self._split(h) for h in hands]

    def _split(self, cards: list[int]) -> list[list[int]]:
        suits: list[list[int]] = [[], [], [], []]
        suit = self.deck.suit
        for card in cards:
            suits[suit[card]].append(card)
        power = self.deck.power
        for cards_of_suit in suits:
            cards_of_suit.sort(key=power.__getitem__)
        return suits

    # -- the candidates --------------------------------------------------------------

    def candidates(self, legal: list[int]) -> list[int]:
        """One card of each run of equivalent cards (no card out between them)."""
        deck = self.deck
        mine = set(self.hand)
        out = set(self.unknown)
        chosen = []
        for su in range(4):
            in_suit = sorted((c for c in legal if deck.suit[c] == su), key=deck.power.__getitem__)
            if not in_suit:
                continue
            order = deck.by_suit[su]
            position = {c: i for i, c in enumerate(order)}
            previous = None
            for card in in_suit:
                if previous is not None:
                    between = order[position[previous] + 1 : position[card]]
                    if all(c in mine or c not in out for c in between):
                        continue  # equivalent to the previous (lower) card
                chosen.append(card)
                previous = card
        return chosen

    # -- evaluation ------------------------------------------------------------------

    def value(self, won: list[int]) -> float:
        """Our side's points minus the others' (mean) for a hand ending with `won`."""
        points = [self._side_points(index, side, won) for index, side in enumerate(self.sides)]
        mine = self.side_of[self.me]
        others = [p for i, p in enumerate(points) if i != mine]
        return points[mine] - sum(others) / len(others)

    def _side_points(self, index: int, side: tuple[int, ...], won: list[int]) -> float:
        """A side's points for the hand; bags cost their share of the next penalty."""
        options = self.options
        bids = self.bids
        contract = 0
        counted = 0
        points = 0.0
        bags = 0
        nil_tricks = options.nil_tricks
        for seat in side:
            if bids[seat] > 0:
                contract += bids[seat]
                counted += won[seat]
            else:
                bonus = options.blind_nil_bonus if self.blind[seat] else options.nil_bonus
                points += bonus if won[seat] == 0 else -bonus
                if nil_tricks == "bags":
                    bags += won[seat]
                elif nil_tricks == "bid":
                    counted += won[seat]
        if contract:
            if counted >= contract:
                points += options.trick_points * contract
                bags += counted - contract
                made = True
            else:
                made = False
                if options.set_scoring == "minus":
                    points -= options.trick_points * contract
            for seat in side:
                if bids[seat] > 0 and self.blind[seat]:
                    points += options.blind_bid_bonus if made else -options.blind_bid_penalty
        else:
            bags += counted
        return points + bags * (1 - options.bag_penalty / options.bag_limit)

    # -- the playout policy ------------------------------------------------------------

    def _prepare(self) -> None:
        """Constants of the playout: bidders, contracts and partners per seat."""
        bids = self.bids
        self.bidders = [tuple(s for s in side if bids[s] > 0) for side in self.sides]
        self.contract = [sum(bids[s] for s in side) for side in self.bidders]
        self.nil_seats = tuple(s for s in range(self.players) if bids[s] == 0)
        self._intents: dict[tuple[int, ...], list[int]] = {}
        two = len(self.sides) == 2
        self.partner_of = [(s + 2) % 4 if two else -1 for s in range(self.players)]

    def intents(self, won: list[int], tricks_left: int) -> list[int]:
        """What each seat tries to do in the rest of the hand, given the tricks so far."""
        key = (*won, tricks_left)
        cached = self._intents.get(key)
        if cached is None:
            cached = self._intents[key] = self._intents_for(won, tricks_left)
        return cached

    def _intents_for(self, won: list[int], tricks_left: int) -> list[int]:
        need = [
            contract - sum(won[s] for s in bidders)
            for contract, bidders in zip(self.contract, self.bidders, strict=True)
        ]
        side_of = self.side_of
        partner_of = self.partner_of
        bids = self.bids
        result = []
        for seat in range(self.players):
            if bids[seat] == 0 and won[seat] == 0:
                result.append(AVOID)
                continue
            partner = partner_of[seat]
            if partner >= 0 and bids[partner] == 0 and won[partner] == 0:
                result.append(PROTECT)
                continue
            index = side_of[seat]
            if need[index] > 0:
                result.append(TAKE)
                continue
            for other, short in enumerate(need):
                if other != index and 0 < short <= tricks_left:
                    result.append(TAKE)  # set them
                    break
            else:
                result.append(DUCK)
        return result

    def playout(
        self,
        hands: list[list[list[int]]],
        trick: list[tuple[int, int]],
        turn: int,
        won: list[int],
        broken: bool,
        left_cards: int,
    ) -> list[int]:
        """Play the hand out with the policy; returns tricks won per seat."""
        suit = self.deck.suit
        power = self.deck.power
        players = self.players
        policy = self._policy
        won = list(won)
        tricks_left = (left_cards + len(trick)) // players
        intents = self.intents(won, tricks_left)
        trick = list(trick)
        best_seat = best = -1
        if trick:
            best_seat, best = trick[0]
            for s, c in trick[1:]:
                if suit[c] == suit[best]:
                    if power[c] > power[best]:
                        best_seat, best = s, c
                elif suit[c] == T:
                    best_seat, best = s, c
        while left_cards:
            seat = turn
            card = policy(seat, hands, trick, intents, broken, best_seat, best)
            card_suit = suit[card]
            hands[seat][card_suit].remove(card)
            left_cards -= 1
            if not trick:
                best_seat, best = seat, card
            else:
                best_suit = suit[best]
                if card_suit == best_suit:
                    if power[card] > power[best]:
                        best_seat, best = seat, card
                elif card_suit == T:
                    best_seat, best = seat, card
                    if not broken:
                        broken = True
            trick.append((seat, card))
            if len(trick) == players:
                won[best_seat] += 1
                turn = best_seat
                trick = []
                tricks_left -= 1
                intents = self.intents(won, tricks_left)
            else:
                turn = seat + 1 if seat + 1 < players else 0
        return won

    def _policy(
        self,
        seat: int,
        hands: list[list[list[int]]],
        trick: list[tuple[int, int]],
        intents: list[int],
        broken: bool,
        best_seat: int,
        best: int,
    ) -> int:
        if not trick:
            return self._lead(seat, hands, intents[seat], broken, intents)
        suit = self.deck.suit
        power = self.deck.power
        mine = hands[seat]
        intent = intents[seat]
        led = suit[trick[0][1]]
        last = len(trick) == self.players - 1
        following = mine[led]
        if following:
            # losers are following[:split], winners following[split:]
            split = len(following)
            if suit[best] == led:
                bar = power[best]
                while split and power[following[split - 1]] > bar:
                    split -= 1
            low_win = following[split] if split < len(following) else -1
            high_win = following[-1] if low_win >= 0 else -1
            low_lose = following[0] if split else -1
            high_lose = following[split - 1] if split else -1
            ruff = False
        else:
            trumps = mine[T]
            split = 0
            if suit[best] == T:
                bar = power[best]
                split = len(trumps)
                while split and power[trumps[split - 1]] > bar:
                    split -= 1
            low_win = trumps[split] if split < len(trumps) else -1
            high_win = trumps[-1] if low_win >= 0 else -1
            # losers: plain cards, and trumps below the bar
            low_lose = high_lose = -1
            for su in (0, 1, 2):
                cards = mine[su]
                if cards:
                    if low_lose < 0 or power[cards[0]] < power[low_lose]:
                        low_lose = cards[0]
                    if high_lose < 0 or power[cards[-1]] > power[high_lose]:
                        high_lose = cards[-1]
            if split:
                if low_lose < 0:
                    low_lose = trumps[0]
                if high_lose < 0:
                    high_lose = trumps[split - 1]
            ruff = True
        if intent in (AVOID, DUCK):
            if high_lose >= 0:
                return high_lose
            return high_win if last else low_win
        if intent == PROTECT:
            partner = self.partner_of[seat]
            if any(s == partner for s, _ in trick):
                if best_seat == partner and low_win >= 0:
                    return low_win if last else high_win
                return low_lose if low_lose >= 0 else low_win
            if low_win >= 0:
                return high_win
            return low_lose
        # TAKE
        opponent_nil = intents[best_seat] == AVOID and self.side_of[best_seat] != self.side_of[seat]
        if opponent_nil and low_lose >= 0:
            return low_lose  # an opponent's live nil is winning: stay under it
        partner = self.partner_of[seat]
        if best_seat == partner and (last or self._safe(best, seat, hands, led)):
            return low_lose if low_lose >= 0 else low_win
        if low_win < 0:
            return low_lose
        if last:
            return low_win
        cards = mine[T] if ruff else following
        for index in range(split, len(cards)):
            if self._safe(cards[index], seat, hands, led):
                return cards[index]
        if len(trick) == 1 and low_lose >= 0 and not ruff:
            return low_lose  # second hand low
        return low_win if ruff else high_win

    def _safe(self, card: int, seat: int, hands: list[list[list[int]]], led: int) -> bool:
        """Whether no seat after `seat` in this trick can beat `card` (in this deal).

        The seats after `seat` up to the leader are those still to play."""
        suit = self.deck.suit
        power = self.deck.power
        su = suit[card]
        bar = power[card]
        players = self.players
        other = seat + 1 if seat + 1 < players else 0
        for _ in range(players - 1):
            held = hands[other]
            if held[led]:
                if su == led and power[held[led][-1]] > bar:
                    return False
            elif held[T] and (su != T or power[held[T][-1]] > bar):
                return False
            other = other + 1 if other + 1 < players else 0
        return True

    def _master(self, card: int, hands: list[list[list[int]]], seat: int) -> bool:
        su = self.deck.suit[card]
        power = self.deck.power
        bar = power[card]
        for s in range(self.players):
            if s != seat:
                held = hands[s][su]
                if held and power[held[-1]] > bar:
                    return False
        return True

    def _lead(
        self, seat: int, hands: list[list[list[int]]], intent: int, broken: bool, intents: list[int]
    ) -> int:
        power = self.deck.power
        mine = hands[seat]
        suits = [su for su in (0, 1, 2) if mine[su]]
        if (broken or not suits) and mine[T]:
            suits.append(T)
        if intent in (AVOID, DUCK):
            low = -1
            for su in suits:
                if low < 0 or power[mine[su][0]] < power[low]:
                    low = mine[su][0]
            return low
        if intent == TAKE:
            # an opponent's live nil: lead low in a suit they still hold
            side = self.side_of[seat]
            for s in self.nil_seats:
                if intents[s] == AVOID and self.side_of[s] != side:
                    target = hands[s]
                    low = -1
                    for su in suits:
                        if target[su] and (low < 0 or power[mine[su][0]] < power[low]):
                            low = mine[su][0]
                    if low >= 0:
                        return low
        master_trump = -1
        for su in suits:
            top = mine[su][-1]
            if self._master(top, hands, seat):
                if su != T:
                    return top
                master_trump = top
        if master_trump >= 0:
            return master_trump
        if intent == PROTECT:
            high = -1
            for su in suits:
                if high < 0 or power[mine[su][-1]] > power[high]:
                    high = mine[su][-1]
            return high
        longest = max(suits, key=lambda su: (su != T, len(mine[su])))
        return mine[longest][0]

    # -- the decision ----------------------------------------------------------------

    def choose(self, legal: list[int]) -> int:
        candidates = self.candidates(legal)
        if len(candidates) == 1:
            return candidates[0]
        left_cards = sum(self.counts)
        samples = _samples_for(left_cards, len(candidates))
        totals = [0.0] * len(candidates)
        players = self.players
        suit = self.deck.suit
        for _ in range(samples):
            hands = self.sample()
            for index, card in enumerate(candidates):
                copy = [[list(cards) for cards in seat_hands] for seat_hands in hands]
                copy[self.me][suit[card]].remove(card)
                trick = self.trick + [(self.me, card)]
                broken = self.broken or (
                    bool(self.trick) and suit[card] == T and suit[self.trick[0][1]] != T
                )
                won = list(self.won)
                turn = (self.me + 1) % players
                if len(trick) == players:
                    winner = _current_best(self.deck, trick)[0]
                    won[winner] += 1
                    trick = []
                    turn = winner
                result = self.playout(copy, trick, turn, won, broken, left_cards - 1)
                totals[index] += self.value(result)
        best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
        return candidates[best]


def _samples_for(cards_left: int, candidates: int) -> int:
    """Deals to sample: about 1,200 card plays per decision, at least 4 deals."""
    budget = 1200
    return max(4, min(40, budget // max(1, cards_left * candidates)))


def _bid_strong(view: dict[str, Any], options: Options, moves: list[Command]) -> Command:
    """Nil when the hand is safe enough, else the expected tricks rounded down."""
    deck = _deck(options)
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
            safe = risk < SUICIDE_NIL_RISK or expected < 2.5
        elif partner is not None:
            # a partner who bid nil, or too little to carry the side, rules nil out
            safe = risk < NIL_RISK and expected < 2.2 and partner_bid != 0
            safe = safe and (partner_bid is None or partner_bid >= 3)
        else:
            safe = risk < NIL_RISK * 0.8 and expected < 1.8
        if safe or not positive:
            return {"type": "bid", "tricks": 0}
    wanted = expected
    if partner_bid == 0:
        wanted += 0.6  # covering a nil partner takes tricks of its own
    others = [b["tricks"] for i, b in enumerate(bids) if i != me and b is not None]
    if len(others) == len(bids) - 1 and sum(others) + wanted < view["tricks_per_hand"] - 3:
        wanted += 0.5  # the last bidder: the table underbids, the spare tricks come anyway
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


def choose_strong(
    view: dict[str, Any], history: list[dict[str, Any]], rng: random.Random
) -> Command:
    """The thinker: a trick-probability bidding model and Monte Carlo card play."""
    you = view["you"]
    moves = _by_type(you["legal_moves"])
    options = _options(view)
    if "look" in moves and view["turn"] == you["seat"]:
        blind_nil = {"type": "bid", "tricks": 0, "blind": True}
        partner = next((s for s in view["sides"] if you["seat"] in s and len(s) > 1), None)
        partner_nil = partner and any(
            view["bids"][s] and view["bids"][s]["tricks"] == 0 for s in partner
        )
        if blind_nil in moves.get("bid", []) and not partner_nil and _desperate(view, options):
            return blind_nil
        return {"type": "look"}
    if "bid" in moves:
        return _bid_strong(view, options, moves["bid"])
    play = _Play(view, options, rng)
    legal = [play.deck.id[m["card"]] for m in moves["play"]]
    return {"type": "play", "card": play.deck.cards[play.choose(legal)]}


BOTS: dict[str, Bot] = {
    "random": choose_random,
    "greedy": choose_greedy,
    "strong": choose_strong,
}
