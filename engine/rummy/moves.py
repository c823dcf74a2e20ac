"""Every legal command for a seat, exact: what `decide` would accept, nothing else.

Meld commands are listed with their cards in canonical order (`sort_cards`);
`decide` treats a meld as a set of cards, so any order of the same cards is the
same move.
"""

from collections import Counter
from typing import Any

from engine.cards import JOKER, sort_cards
from engine.rummy.melds import Meld, candidate_melds, layoff_cards, swap_joker
from engine.rummy.options import Options
from engine.rummy.state import RummyState

Command = dict[str, Any]


def legal_moves(state: RummyState, seat: int) -> list[Command]:
    """Every command `decide` accepts from `seat` now, in a stable order (bots pick from it)."""
    if state.status != "playing":
        return []
    hand = state.dealt_hand
    if hand.turn != seat:
        return []
    cards = hand.hands[seat]
    if hand.phase == "draw":
        moves: list[Command] = [{"type": "draw", "source": "stock"}]
        if hand.discard_pile and cards.count(hand.discard_pile[-1]) != len(cards):
            moves.append({"type": "draw", "source": "discard"})
        return moves
    options = state.options
    drawn = hand.drawn_from_discard
    on_table = None  # what the table's melds take, when this seat may add to them
    if hand.melds and (not options.lay_off_after_meld or hand.has_melded[seat]):
        on_table = _table_fits(hand.melds, options)
    moves = []
    if options.all_at_once(hand.number):
        moves.extend(_go_down_moves(state, cards))
    else:
        count = len(cards)
        held_drawn = 0 if drawn is None else cards.count(drawn)
        out_ok = not options.must_discard_to_go_out
        if options.melds_per_turn == "any" or hand.melds_this_turn == 0:
            for meld in candidate_melds(cards, options):
                left = count - len(meld)
                if _may_end(left, held_drawn - meld.count(drawn), out_ok):
                    moves.append({"type": "meld", "cards": list(meld)})
        if on_table is not None:
            fits, fit_somewhere, _ = on_table
            left = count - 1
            for card in sorted(fit_somewhere.intersection(cards)):  # few, in sorted order
                if not _may_end(left, held_drawn - (card == drawn), out_ok):
                    continue
                for meld_id, fitting in fits:
                    if card in fitting:
                        moves.append({"type": "lay_off", "card": card, "meld": meld_id})
    if on_table is not None and on_table[2]:
        with_jokers = on_table[2]
        for card in sorted(set(cards)):
            for joker_meld in with_jokers:
                if swap_joker(joker_meld, card) is not None:
                    moves.append({"type": "swap_joker", "card": card, "meld": joker_meld.id})
    in_order = dict.fromkeys(sort_cards(cards))  # each card once (jokers repeat)
    moves += [{"type": "discard", "card": card} for card in in_order if card != drawn]
    return moves


_TABLE_FITS: dict[int, tuple[Any, ...]] = {}


def _table_fits(
    melds: tuple[Meld, ...], options: Options
) -> tuple[tuple[tuple[int, frozenset[str]], ...], frozenset[str], tuple[Meld, ...]]:
    """(meld id, cards it takes) per table meld (`layoff_cards`), all those cards, and
    the melds holding a joker.

    Asked every turn while the table rarely changes, so remembered per melds tuple by
    identity (the entry keeps the tuple alive, so its id cannot be reused meanwhile).
    """
    entry = _TABLE_FITS.get(id(melds))
    if entry is not None and entry[0] is melds and entry[1] is options:
        return entry[2]
    fits = tuple((meld.id, layoff_cards(meld, options)) for meld in melds)
    anywhere = frozenset().union(*(fitting for _, fitting in fits))
    with_jokers = tuple(meld for meld in melds if JOKER in meld.cards)
    if len(_TABLE_FITS) >= 1024:
        _TABLE_FITS.clear()
    _TABLE_FITS[id(melds)] = (melds, options, (fits, anywhere, with_jokers))
    return fits, anywhere, with_jokers


def _may_end(left: int, drawn_left: int, out_ok: bool) -> bool:
    """`_can_end_turn` by counting (it runs for every bot move): `left` cards remain,
    `drawn_left` of them copies of the card taken from the discard pile this turn."""
    return out_ok if left == 0 else left > drawn_left


def _can_end_turn(state: RummyState, remaining: Counter) -> bool:
    if not remaining:
        return not state.options.must_discard_to_go_out
    drawn = state.dealt_hand.drawn_from_discard
    return drawn is None or any(card != drawn for card in remaining.elements())


def _go_down_moves(state: RummyState, cards: tuple[str, ...]) -> list[Command]:
    """Every way to lay the whole hand down as melds, with or without a final discard."""
    options = state.options
    drawn = state.dealt_hand.drawn_from_discard
    candidates = candidate_melds(cards, options)
    found: set[tuple[tuple[tuple[str, ...], ...], str | None]] = set()
    leftovers: list[str | None] = [None] if not options.must_discard_to_go_out else []
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
