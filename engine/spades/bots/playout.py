"""The fast policy the strong bot plays sampled deals out with, and the playout loop.

Each seat plays by an intent recomputed after every trick from the bids and the tricks
won so far: AVOID (its own live nil), PROTECT (its partner's live nil), TAKE (its side
still needs tricks, or another side can still be set) or DUCK (contract made: shed cards
to avoid bags). The policy picks a card from the seat's hand in the sampled deal by that
intent, seeing the whole sampled deal (the sample is the guess at the unseen cards).

This is the hot loop of the strong bot (about 1,200 card plays a decision): it reads
lists by index, keeps what it needs in locals, and `_policy` stays one function.
"""

from __future__ import annotations

from engine.spades.bots.deck import Deck, T

AVOID, PROTECT, TAKE, DUCK = 0, 1, 2, 3


class Playout:
    """The playout of one decision: constants of the hand read once (bidders,
    contracts, partners per seat), intents cached by the tricks won."""

    def __init__(
        self,
        deck: Deck,
        players: int,
        sides: list[tuple[int, ...]],
        side_of: list[int],
        bids: list[int],
    ) -> None:
        self.deck = deck
        self.players = players
        self.side_of = side_of
        self.bids = bids
        self.bidders = [tuple(s for s in side if bids[s] > 0) for side in sides]
        self.contract = [sum(bids[s] for s in side) for side in self.bidders]
        self.nil_seats = tuple(s for s in range(players) if bids[s] == 0)
        self._intents: dict[tuple[int, ...], list[int]] = {}
        two = len(sides) == 2
        self.partner_of = [(s + 2) % 4 if two else -1 for s in range(players)]

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

    def run(
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
        """The card `seat` plays: by its intent, from its lowest and highest cards that
        lose or win against the trick so far. Kept as one function: it runs for every
        simulated card play, and a helper call per play would cost more than it reads."""
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
