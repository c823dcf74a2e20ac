"""The state codec reads back exactly what it wrote, and refuses everything else with
one error: a missing or extra field, a wrong type (a bool is not an int), a value that
is not JSON, a class it cannot read. It builds only the classes the hints name."""

import copy
import dataclasses
import json
import math
from dataclasses import dataclass
from typing import Any

import pytest

from engine import codec, games, table
from engine.codec import CodecError
from engine.ledger import canonical_json
from engine.simulation.random_play import play_random_game


@dataclass(frozen=True, slots=True)
class Card:
    rank: int
    suit: str


@dataclass(frozen=True)
class Pile:
    cards: tuple[str, ...]
    held: tuple[Card, ...]
    top: Card | None
    pair: tuple[int, bool]
    counts: dict[str, int]
    order: list[int]
    ratio: float
    either: int | str
    record: dict[str, Any]
    anything: Any = None
    note: str = ""


@dataclass(frozen=True)
class Checked:
    low: int
    high: int

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError("low above high")


@dataclass(frozen=True)
class Unsupported:
    seen: set[int]


@dataclass(frozen=True)
class Unknown:
    later: "NotDefinedAnywhere"  # noqa: F821


@dataclass(frozen=True)
class Node:
    value: int
    next: "Node | None" = None


PILE = Pile(
    cards=("10H", "QS"),
    held=(Card(1, "S"), Card(13, "H")),
    top=Card(12, "D"),
    pair=(3, False),
    counts={"2": 100, "3": 75},
    order=[2, 0, 1],
    ratio=0.5,
    either="x",
    record={"type": "hand_ended", "scores": [1, -2], "winner": None, "nested": {"a": [True]}},
    anything=[1, "two", {"three": 3.0}],
)


def _encoded():
    return json.loads(canonical_json(codec.encode(PILE)))


def test_a_value_reads_back_equal_with_its_own_types():
    data = _encoded()
    assert data["held"] == [{"rank": 1, "suit": "S"}, {"rank": 13, "suit": "H"}]
    back = codec.decode(Pile, data)
    assert back == PILE
    assert repr(codec.decode(Pile, codec.encode(PILE))) == repr(PILE)  # types, key order too
    assert type(back.cards) is tuple and type(back.pair) is tuple and type(back.order) is list
    assert type(back.held[0]) is Card and back.pair[1] is False
    assert back.record is not data["record"]  # a copy: the state shares nothing with data
    with pytest.raises(dataclasses.FrozenInstanceError):
        back.note = "changed"


def test_a_plain_frozen_class_gets_a_fresh_dict_and_a_slots_class_its_constructor():
    back = codec.decode(Pile, _encoded())
    assert type(vars(back)) is dict
    assert list(vars(back)) == [field.name for field in dataclasses.fields(Pile)]
    assert not hasattr(back.held[0], "__dict__")
    assert codec.decode(Checked, {"low": 1, "high": 2}) == Checked(1, 2)
    with pytest.raises(CodecError, match="low above high"):  # __post_init__ ran
        codec.decode(Checked, {"low": 3, "high": 2})


def test_a_class_may_refer_to_itself():
    chain = Node(1, Node(2, Node(3)))
    assert codec.decode(Node, codec.encode(chain)) == chain


def _set(path, value):
    def change(data):
        *route, last = path
        for step in route:
            data = data[step]
        data[last] = value

    return change


def _drop(name):
    return lambda data: data.pop(name)


REFUSED = {
    "a missing field": (_drop("note"), "", "missing note"),
    "an extra field": (_set(["extra"], 1), "", "unexpected 'extra'"),
    "a field naming a class": (_set(["__class__"], "os.system"), "", "unexpected '__class__'"),
    "a bool for an int": (_set(["held", 1, "rank"], True), "held.1.rank", "expected int"),
    "an int for a bool": (_set(["pair", 1], 0), "pair.1", "expected bool"),
    "a float for an int": (_set(["held", 0, "rank"], 1.0), "held.0.rank", "expected int"),
    "a string for an int": (_set(["counts", "2"], "100"), "counts.2", "expected int"),
    "null for a card": (_set(["held", 0], None), "held.0", "expected an object"),
    "an int among strings": (_set(["cards", 1], 7), "cards.1", "expected str"),
    "a string for an array": (_set(["cards"], "10H"), "cards", "expected an array"),
    "a short fixed tuple": (_set(["pair"], [3]), "pair", "array of 2"),
    "a long fixed tuple": (_set(["pair"], [3, True, 1]), "pair", "array of 2"),
    "neither side of a union": (_set(["either"], 1.5), "either", "union"),
    "a bool for a float": (_set(["ratio"], False), "ratio", "expected float"),
    "infinity for a float": (_set(["ratio"], math.inf), "ratio", "JSON number"),
    "NaN in a JSON value": (_set(["record", "scores"], [math.nan]), "record", "JSON number"),
    "a tuple (not JSON)": (_set(["order"], (2, 0, 1)), "order", "expected an array"),
    "a tuple in a JSON value": (_set(["anything"], (1, 2)), "anything", "not a JSON value"),
    "a set in a JSON value": (_set(["record", "nested"], {1}), "record", "not a JSON value"),
    "bytes for a string": (_set(["note"], b""), "note", "expected str"),
    "an int key": (_set(["counts"], {2: 100}), "counts", "key must be a string"),
    "an int key in a JSON value": (_set(["record"], {1: "a"}), "record", "must be a string"),
    "an object in a JSON value": (_set(["anything"], object()), "anything", "not a JSON value"),
    "a list for an object": (_set(["record"], []), "record", "expected an object"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_anything_unexpected_is_one_error_that_says_where(case):
    change, path, reason = REFUSED[case]
    data = _encoded()
    change(data)
    with pytest.raises(CodecError, match=reason) as refused:
        codec.decode(Pile, data)
    assert refused.value.path == path
    assert isinstance(refused.value, ValueError)


@pytest.mark.parametrize("data", [None, [], "Pile", 1, True, b"{}", ("a", "b")])
def test_a_value_that_is_no_object_is_refused(data):
    with pytest.raises(CodecError, match="expected an object"):
        codec.decode(Pile, data)


def test_nesting_too_deep_is_refused_not_a_crash():
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    data = {**_encoded(), "anything": deep}
    with pytest.raises(CodecError, match="nested too deeply"):
        codec.decode(Pile, data)
    with pytest.raises(CodecError, match="nested too deeply"):
        codec.encode(dataclasses.replace(PILE, anything=deep))


@pytest.mark.parametrize("cls", [int, dict, object, PILE, "Pile", None])
def test_only_a_dataclass_is_decoded(cls):
    with pytest.raises(CodecError, match="not a dataclass"):
        codec.decode(cls, {})


def test_a_class_with_hints_it_cannot_read_is_refused():
    with pytest.raises(CodecError, match="unsupported type"):
        codec.decode(Unsupported, {"seen": []})
    with pytest.raises(CodecError, match="type hints of Unknown"):
        codec.decode(Unknown, {"later": {}})


@pytest.mark.parametrize(
    "value",
    [{1, 2}, b"bytes", object(), math.nan, {1: "a"}, Pile, [math.inf], {"a": {(1, 2): 3}}],
)
def test_encoding_refuses_what_is_not_plain_data(value):
    with pytest.raises(CodecError):
        codec.encode(value)


# -- the games' own states ----------------------------------------------------------


def _states(name, players):
    """A few states of a random game, folded from its events as the log keeps them."""
    game = games.get(name)
    _, events = play_random_game(name, players, f"codec:{name}")
    stored = json.loads(canonical_json(events))
    return [table.fold(game, stored[:cut]) for cut in range(1, len(stored), len(stored) // 5)]


GAMES = [("rummy", 3), ("spades", 4), ("minitricks", 2)]


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_every_games_state_reads_back_equal(name, players):
    game = games.get(name)
    for state in _states(name, players):
        data = json.loads(canonical_json(game.encode_state(state)))
        assert game.decode_state(data) == state


@pytest.mark.parametrize(("name", "players"), GAMES)
def test_a_games_state_edited_anywhere_is_refused(name, players):
    game = games.get(name)
    state = next(s for s in _states(name, players) if s.hand is not None)
    data = json.loads(canonical_json(game.encode_state(state)))
    edits = {
        "players": "2",
        "status": None,
        "hands_played": True,
        "first_dealer": 0.0,
        "options": {**data["options"], "unknown_option": 1},
        "hand": {**data["hand"], "hands": [["10H", 10]] + data["hand"]["hands"][1:]},
        "scores": {"0": 1},
        "surplus": 0,
    }
    for field, value in edits.items():
        edited = copy.deepcopy(data)
        edited[field] = value
        with pytest.raises(CodecError):
            game.decode_state(edited)
    with pytest.raises(CodecError):
        game.decode_state({**data, "options": None})
    del data["status"]
    with pytest.raises(CodecError, match="missing status"):
        game.decode_state(data)


def test_a_game_encodes_only_its_own_states():
    rummy, spades = games.get("rummy"), games.get("spades")
    state = _states("spades", 4)[1]
    with pytest.raises(CodecError, match="not a RummyState"):
        rummy.encode_state(state)
    with pytest.raises(CodecError):
        rummy.decode_state(spades.encode_state(state))
