"""Every legal command for a seat, exact: what `decide` would accept, nothing else.

Meld commands are listed with their cards in canonical order (`sort_cards`);
`decide` treats a meld as a set of cards, so any order of the same cards is the
same move.
"""

from collections import Counter
from typing import Any

from engine.cards import sort_cards
from engine.rummy.melds import candidate_melds, lay_off, swap_joker
from engine.rummy.state import RummyState

Command = dict[str, Any]


def legal_moves(state: RummyState, seat: int) -> list[Command]:
    if state.status != "playing" or state.hand.turn != seat:
        return []
    hand = state.hand
    cards = hand.hands[seat]
    if hand.phase == "draw":
        moves: list[Command] = [{"type": "draw", "source": "stock"}]
        if hand.discard_pile and not all(c == hand.discard_pile[-1] for c in cards):
            moves.append({"type": "draw", "source": "discard"})
        return moves
    options = state.options
    drawn = hand.drawn_from_discard
    moves = []
    if options.all_at_once(hand.number):
        moves.extend(_go_down_moves(state, cards))
    else:
        if options.melds_per_turn == "any" or hand.melds_this_turn == 0:
            for meld in candidate_melds(cards, options):
                remaining = Counter(cards)
                remaining.subtract(meld)
                if _can_end_turn(state, +remaining):
                    moves.append({"type": "meld", "cards": list(meld)})
        if not options.lay_off_after_meld or hand.has_melded[seat]:
            for card in sorted(set(cards)):
                remaining = Counter(cards)
                remaining[card] -= 1
                if not _can_end_turn(state, +remaining):
                    continue
                for meld in hand.melds:
                    if lay_off(meld, card, options) is not None:
                        moves.append({"type": "lay_off", "card": card, "meld": meld.id})
    if (not options.lay_off_after_meld or hand.has_melded[seat]) and hand.melds:
        for card in sorted(set(cards)):
            for meld in hand.melds:
                if swap_joker(meld, card) is not None:
                    moves.append({"type": "swap_joker", "card": card, "meld": meld.id})
    for card in sort_cards(set(cards)):
        if card != drawn:
            moves.append({"type": "discard", "card": card})
    return moves


def _can_end_turn(state: RummyState, remaining: Counter) -> bool:
    if not remaining:
        return not state.options.must_discard_to_go_out
    drawn = state.hand.drawn_from_discard
    return drawn is None or any(card != drawn for card in remaining.elements())


def _go_down_moves(state: RummyState, cards: tuple[str, ...]) -> list[Command]:
    """Every way to lay the whole hand down as melds, with or without a final discard."""
    options = state.options
    drawn = state.hand.drawn_from_discard
    candidates = candidate_melds(cards, options)
    found: set[tuple[tuple[tuple[str, ...], ...], str | None]] = set()
    leftovers = [None] if not options.must_discard_to_go_out else []
    leftovers += [card for card in sorted(set(cards)) if card != drawn]
    for discard in leftovers:
        pool = Counter(cards)
        if discard is not None:
            pool[discard] -= 1
        for partition in _partitions(+pool, candidates):
            found.add((tuple(sorted(partition)), discard))
    return [
        {"type": "go_down", "melds": [list(m) for m in melds], "discard": discard}
        for melds, discard in sorted(found, key=lambda item: (item[0], item[1] or ""))
    ]


def _partitions(pool: Counter, candidates: list[tuple[str, ...]]):
    if not pool:
        yield []
        return
    first = sort_cards(pool.elements())[0]
    for meld in candidates:
        if first not in meld:
            continue
        needed = Counter(meld)
        if any(pool[card] < count for card, count in needed.items()):
            continue
        rest = pool - needed
        for tail in _partitions(rest, candidates):
            yield [meld, *tail]
