"""The pack and the order of the cards for one set of options: the only place that
knows what the trump variations do.

Every card has an effective suit (the suit it follows as; every trump follows as
spades: "S") and a power (higher wins). Plain cards rank A K Q J 10 … 2 (power 14
down to 2); trumps have power 100 and up, in this order from the highest:

* standard:     A♠ K♠ … 2♠
* bauers:       J♠ J♣ A♠ K♠ Q♠ 10♠ … 2♠        (J♣ is a spade, not a club)
* deuces_high:  the deuces in `deuce_order` (default 2♠ 2♥ 2♦ 2♣), then A♠ K♠ … 3♠
                (every deuce is a spade)
* jokers_high:  big joker "JK", little joker "JL", A♠ K♠ … 2♠   (2♣ and 2♦ removed)

Spades for three removes the 2♣ (and with jokers high also the 2♦ and 2♥), so
every pack divides evenly: 52 for four players, 51 for three.
"""

from functools import cache

from engine.cards import CARD_RANK, CARD_SUIT, JOKER, LITTLE_JOKER, SUITS, standard_pack
from engine.spades.options import Options

TRUMP = "S"
TRUMP_BASE = 100


def _plain_power(card: str) -> int:
    rank = CARD_RANK[card]
    return 14 if rank == 1 else rank


class Ranking:
    """Pack, effective suits and powers for one option set (cached: see `ranking`)."""

    def __init__(self, trumps: str, deuce_order: str, three_players: bool) -> None:
        removed = {"2C"} if three_players else set()
        jokers: tuple[str, ...] = ()
        if trumps == "jokers_high":
            removed |= {"2C", "2D"} | ({"2H"} if three_players else set())
            jokers = (JOKER, LITTLE_JOKER)
        self.pack: tuple[str, ...] = (
            tuple(card for card in standard_pack() if card not in removed) + jokers
        )
        players = 3 if three_players else 4
        self.players = players
        self.tricks_per_hand = len(self.pack) // players
        spades = sorted(
            (c for c in self.pack if c in CARD_SUIT and CARD_SUIT[c] == TRUMP), key=_plain_power
        )  # low → high
        if trumps == "bauers":
            spades = [c for c in spades if c != "JS"] + ["JC", "JS"]
        elif trumps == "deuces_high":
            deuces = ["2" + suit for suit in reversed(deuce_order)]  # low → high
            spades = [c for c in spades if c != "2S"] + [d for d in deuces if d in self.pack]
        elif trumps == "jokers_high":
            spades = spades + [LITTLE_JOKER, JOKER]
        self.trump_order: tuple[str, ...] = tuple(reversed(spades))  # high → low
        self.suit: dict[str, str] = {}
        self.power: dict[str, int] = {}
        for card in self.pack:
            if card in spades:
                self.suit[card] = TRUMP
                self.power[card] = TRUMP_BASE + spades.index(card)
            else:
                self.suit[card] = CARD_SUIT[card]
                self.power[card] = _plain_power(card)
        # Cards of each effective suit, from the highest down.
        self.by_suit: dict[str, tuple[str, ...]] = {
            suit: tuple(
                sorted(
                    (c for c in self.pack if self.suit[c] == suit),
                    key=self.power.__getitem__,
                    reverse=True,
                )
            )
            for suit in SUITS
        }

    def is_trump(self, card: str) -> bool:
        return self.suit[card] == TRUMP

    def trick_winner(self, plays: list[tuple[int, str]] | tuple[tuple[int, str], ...]) -> int:
        """The seat whose card wins: the highest trump, else the highest of the suit led."""
        suit = self.suit
        power = self.power
        led = suit[plays[0][1]]
        best_seat, best_card = plays[0]
        for seat, card in plays[1:]:
            card_suit = suit[card]
            best_suit = suit[best_card]
            if card_suit == best_suit:
                if power[card] > power[best_card]:
                    best_seat, best_card = seat, card
            elif card_suit == TRUMP and best_suit == led:
                best_seat, best_card = seat, card
        return best_seat

    def sort_hand(self, cards) -> tuple[str, ...]:
        """Cards for display: by effective suit (clubs, diamonds, hearts, trumps), high first."""
        order = {suit: index for index, suit in enumerate(SUITS)}
        return tuple(sorted(cards, key=lambda c: (order[self.suit[c]], -self.power[c])))


@cache
def _ranking(trumps: str, deuce_order: str, three_players: bool) -> Ranking:
    return Ranking(trumps, deuce_order, three_players)


def ranking(options: Options) -> Ranking:
    return _ranking(options.trumps, options.deuce_order, options.three_players)
