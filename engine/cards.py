"""Card notation, the single place that knows it.

A card is a plain string: rank (`A 2 3 4 5 6 7 8 9 10 J Q K`) followed by suit
(`C D H S`), e.g. "10H", "QS", "AD"; a joker is "JK". Strings keep events,
views and JSON identical, and jokers (which are interchangeable) compare equal.

Games that tell two jokers apart (Spades' "jokers high": the big joker beats the
little one) use "JK" for the big joker and "JL" for the little joker; a pack of
interchangeable jokers (Rummy) holds only "JK".
"""

from collections.abc import Iterable

from engine.errors import InvalidCard

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("C", "D", "H", "S")
JOKER = "JK"
LITTLE_JOKER = "JL"  # the second, distinguishable joker (Spades: below the big joker "JK")
JOKERS: tuple[str, ...] = (JOKER, LITTLE_JOKER)
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}

RANK_NUMBER: dict[str, int] = {rank: number for number, rank in enumerate(RANKS, start=1)}

CARD_RANK: dict[str, int] = {}
CARD_SUIT: dict[str, str] = {}
for _suit in SUITS:
    for _rank in RANKS:
        CARD_RANK[_rank + _suit] = RANK_NUMBER[_rank]
        CARD_SUIT[_rank + _suit] = _suit
VALID_CARDS: frozenset[str] = frozenset(CARD_RANK) | frozenset(JOKERS)


def parse_card(text: object) -> str:
    """Return the card in canonical notation, or raise InvalidCard saying why."""
    if not isinstance(text, str):
        raise InvalidCard(f"a card must be a string such as '10H', not {type(text).__name__}")
    if text in VALID_CARDS:
        return text
    upper = text.strip().upper()
    if upper in VALID_CARDS:
        return upper
    raise InvalidCard(
        f"{text!r} is not a card: use a rank (A 2-10 J Q K) and a suit (C D H S), "
        "e.g. '10H', or 'JK' for a joker ('JL' for a little joker)"
    )


def is_joker(card: str) -> bool:
    return card in JOKERS


def rank_of(card: str) -> int:
    """Rank number, ace = 1 … king = 13 (jokers have none)."""
    return CARD_RANK[card]


def suit_of(card: str) -> str:
    return CARD_SUIT[card]


def make_card(rank_number: int, suit: str) -> str:
    return RANKS[rank_number - 1] + suit


def standard_pack(jokers: int = 0) -> tuple[str, ...]:
    """The documented unshuffled order: clubs, diamonds, hearts, spades, each A→K; jokers last."""
    return tuple(rank + suit for suit in SUITS for rank in RANKS) + (JOKER,) * jokers


def pretty(card: str) -> str:
    """Human form with suit symbols, e.g. '7♥'; used by terminal output."""
    if card == JOKER:
        return "🃏"
    if card == LITTLE_JOKER:
        return "🃟"
    return card[:-1] + SUIT_SYMBOLS[card[-1]]


_SUIT_ORDER = {suit: index for index, suit in enumerate(SUITS)}


def sort_key(card: str) -> tuple[int, int]:
    """Canonical order for listing cards: by suit, then rank; jokers last (big, then little)."""
    if card == JOKER:
        return (len(SUITS), 0)
    if card == LITTLE_JOKER:
        return (len(SUITS), 1)
    return (_SUIT_ORDER[CARD_SUIT[card]], CARD_RANK[card])


# sort_key of every card as one int (same order), looked up rather than computed:
# sorting is on every bot move, and ints compare faster than tuples.
_SORT_KEYS: dict[str, int] = {
    card: suit * 16 + rank for card, (suit, rank) in ((c, sort_key(c)) for c in VALID_CARDS)
}


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=_SORT_KEYS.__getitem__))
