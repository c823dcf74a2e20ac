"""A typed client generated from the served /openapi.json plays whole hands on a real server.

openapi-python-client turns the document gunicorn serves into a package (see
tests/client/generation.py); with nothing but that package's functions and models the test
plays a Rummy hand against a bot in a real RQ worker and a Spades hand (two seats by the
client, two by bots), then reads the events, a replay step, the export (JSON Lines, each
line through the generated models) and the audit, with the receipts it was handed along
the way. An illegal move and a stale If-Match come back as the generated Problem model,
with a string `code` and the numeric `status` the response had. If the document lied
about any of this, the generated client would fail to parse the answers it gets.
"""

import json
import random
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from types import ModuleType
from typing import Any

from tests.client.generation import submodule

PLAY_TIMEOUT = 180.0  # seconds for a whole hand, bots included
CARD_MOVES = {"rummy": "discard", "spades": "play"}  # the move that lays a card down


@dataclass
class Table:
    """A game as the client sees it: the generated package, the game, a client per seat
    the test plays, the receipts it was handed, the move types' models by name."""

    api: ModuleType
    base_url: str
    game_id: str
    seats: dict[int, Any]
    move_models: dict[str, type]
    receipts: list[Any] = field(default_factory=list)

    def call(self, operation: str, *args: Any, **kwargs: Any):
        """`api.games.<operation>.sync_detailed`, the generated function, as it is."""
        return submodule(self.api, f"api.games.{operation}").sync_detailed(*args, **kwargs)

    def keep(self, parsed: Any) -> None:
        receipt = getattr(parsed, "receipt", None)
        if receipt is not None and not isinstance(receipt, self.api.types.Unset):
            self.receipts.append(receipt)

    def view(self, seat: int):
        answer = self.call("get_game", self.game_id, client=self.seats[seat])
        assert answer.status_code == HTTPStatus.OK, answer.content
        assert isinstance(answer.parsed, self.api.models.GameView)
        self.keep(answer.parsed)
        return answer


def move_models(api: ModuleType, document: dict) -> dict[str, type]:
    """The generated model of each move type, by the discriminator of MoveRequest."""
    mapping = document["components"]["schemas"]["MoveRequest"]["discriminator"]["mapping"]
    return {kind: getattr(api.models, ref.rsplit("/", 1)[1]) for kind, ref in mapping.items()}


def typed_move(table: Table, move: dict[str, Any]):
    """A legal move from a view as the generated model of its type, losing nothing."""
    model = table.move_models[move["type"]].from_dict(move)
    assert model.to_dict() == move, (move, model.to_dict())
    return model


def assert_problem(table: Table, answer, status: int) -> Any:
    """The answer is the generated Problem with the response's own status and a code."""
    problem = answer.parsed
    assert answer.status_code == status, (answer.status_code, answer.content)
    assert isinstance(problem, table.api.models.Problem), answer.content
    assert isinstance(problem.code, str) and problem.code, problem
    assert isinstance(problem.status, int) and problem.status == status, problem
    assert answer.headers["content-type"].startswith("application/problem+json")
    return problem


def create(api: ModuleType, base_url: str, document: dict, body: dict, mine: list[int]) -> Table:
    """POST /games through the generated client: 201, Location, a token for each seat."""
    request = api.models.CreateGameRequest.from_dict(body)
    spectator = api.Client(base_url=base_url, raise_on_unexpected_status=True)
    answer = submodule(api, "api.games.create_game").sync_detailed(client=spectator, body=request)
    assert answer.status_code == HTTPStatus.CREATED, answer.content
    created = answer.parsed
    assert isinstance(created, api.models.CreatedGame)
    assert answer.headers["location"].endswith(f"/games/{created.id}"), answer.headers
    tokens = {seat.seat: seat.token for seat in created.seats if seat.seat in mine}
    assert sorted(tokens) == sorted(mine), created
    clients = {
        seat: api.AuthenticatedClient(
            base_url=base_url, token=token, raise_on_unexpected_status=True
        )
        for seat, token in tokens.items()
    }
    table = Table(api, base_url, created.id, clients, move_models(api, document))
    table.keep(created)
    return table


def refusals(table: Table, seat: int, view_answer) -> set[str]:
    """At `seat`'s turn, holding cards it may not yet lay down (Rummy before drawing,
    Spades while bidding): one of them laid down (422), then a legal move sent with a
    stale If-Match (412), both as typed problems; their codes (none if not such a turn)."""
    view = view_answer.parsed
    legal = view.you.legal_moves
    wrong = CARD_MOVES[view.game]
    if not view.you.hand or wrong in {move["type"] for move in legal}:
        return set()
    illegal = table.move_models[wrong].from_dict({"type": wrong, "card": view.you.hand[0]})
    answer = table.call("make_move", table.game_id, client=table.seats[seat], body=illegal)
    codes = {assert_problem(table, answer, HTTPStatus.UNPROCESSABLE_ENTITY).code}
    stale = f'"{view.version - 1}"'
    chosen = typed_move(table, legal[0].to_dict())
    answer = table.call(
        "make_move", table.game_id, client=table.seats[seat], body=chosen, if_match=stale
    )
    codes.add(assert_problem(table, answer, HTTPStatus.PRECONDITION_FAILED).code)
    return codes


def not_modified(table: Table, seat: int, view_answer) -> None:
    """If-None-Match with the view's own ETag: 304, nothing to parse. (A bot may move in
    between, bidding beside the seat: then the view is new, and asked again with its tag.)"""
    for _ in range(20):
        etag = view_answer.headers["etag"]
        answer = table.call("get_game", table.game_id, client=table.seats[seat], if_none_match=etag)
        if answer.status_code == HTTPStatus.NOT_MODIFIED:
            assert answer.content == b""
            return
        assert answer.status_code == HTTPStatus.OK, answer.content
        assert answer.parsed.version > view_answer.parsed.version, "a new tag, but no new move"
        view_answer = answer
    raise AssertionError("the view never stayed the same long enough to be asked again")


def play_turn(table: Table, seat: int, view_answer, rng: random.Random) -> bool:
    """One random legal move (never a forfeit while another move is legal), sent with the
    view's ETag as If-Match; False when a bot's move overtook it (412): look again."""
    view = view_answer.parsed
    legal = [move.to_dict() for move in view.you.legal_moves]
    choices = [move for move in legal if move["type"] != "forfeit"] or legal
    body = typed_move(table, rng.choice(choices))
    answer = table.call(
        "make_move",
        table.game_id,
        client=table.seats[seat],
        body=body,
        if_match=view_answer.headers["etag"],  # the view's tag names its version
    )
    if answer.status_code == HTTPStatus.PRECONDITION_FAILED:
        assert_problem(table, answer, HTTPStatus.PRECONDITION_FAILED)
        return False
    assert answer.status_code == HTTPStatus.OK, answer.content
    assert isinstance(answer.parsed, table.api.models.EventsOut)
    assert answer.parsed.version > view.version
    table.keep(answer.parsed)
    return True


def play_hand(table: Table, rng: random.Random) -> set[str]:
    """Play the client's seats until the game (one hand long) is finished; the bots'
    turns are waited for with the long-poll. Returns the codes of the refusals it met."""
    codes: set[str] = set()
    deadline = time.monotonic() + PLAY_TIMEOUT
    first = min(table.seats)
    while time.monotonic() < deadline:
        answers = {seat: table.view(seat) for seat in table.seats}
        if answers[first].parsed.status == "finished":
            return codes
        acting = [seat for seat, answer in answers.items() if answer.parsed.you.legal_moves]
        if not acting:
            version = answers[first].parsed.version
            waited = table.call(
                "list_events", table.game_id, client=table.seats[first], after=version, wait=5
            )
            assert waited.status_code == HTTPStatus.OK, waited.content
            continue
        seat = acting[0]
        if not codes:
            not_modified(table, seat, answers[seat])
            codes = refusals(table, seat, answers[seat])
            answers[seat] = table.view(seat)
        play_turn(table, seat, answers[seat], rng)
    last = table.view(first).parsed.to_dict()
    shown = {key: last.get(key) for key in ("version", "status", "turn", "phase", "hands_played")}
    raise AssertionError(f"game {table.game_id} did not finish within {PLAY_TIMEOUT} s: {shown}")


def read_back(table: Table) -> None:
    """Events, a replay step, the export as JSON Lines and the audit of a finished game."""
    seat = min(table.seats)
    client = table.seats[seat]
    final = table.view(seat).parsed
    events = table.call("list_events", table.game_id, client=client, after=0)
    assert events.status_code == HTTPStatus.OK, events.content
    assert isinstance(events.parsed, table.api.models.EventsOut)
    assert events.parsed.version == final.version and events.parsed.events
    hands = table.call("list_hands", table.game_id, client=client)
    assert hands.status_code == HTTPStatus.OK, hands.content
    assert isinstance(hands.parsed, table.api.models.HandsOut) and hands.parsed.hands
    step = table.call("get_replay_step", table.game_id, 1, client=client, step=1)
    assert step.status_code == HTTPStatus.OK, step.content
    assert isinstance(step.parsed, table.api.models.ReplayOut)
    read_export(table, final.version)
    read_audit(table)


def read_export(table: Table, version: int) -> None:
    """The export is JSON Lines: a header, then one record per version, 1 to the last."""
    answer = table.call("export_game", table.game_id, client=table.seats[min(table.seats)])
    assert answer.status_code == HTTPStatus.OK, answer.content
    assert answer.headers["content-type"].startswith("application/x-ndjson")
    assert isinstance(answer.parsed, table.api.types.File)
    body = answer.parsed.payload.read()
    lines = [json.loads(line) for line in body.splitlines()]
    header = table.api.models.ExportHeader.from_dict(lines[0])
    assert header.game_id == table.game_id and header.format_.value == "cardtrail-export"
    records = [table.api.models.ExportRecord.from_dict(line) for line in lines[1:]]
    assert [record.version for record in records] == list(range(1, version + 1))


def read_audit(table: Table) -> None:
    """The audit passes, and passes again checking every receipt the client was handed."""
    client = table.seats[min(table.seats)]
    audit = table.call("get_audit", table.game_id, client=client)
    assert audit.status_code == HTTPStatus.OK, audit.content
    assert isinstance(audit.parsed, table.api.models.AuditOut) and audit.parsed.ok, audit.content
    receipt_model = table.api.models.AuditRequestReceiptsItem
    kept = [receipt_model.from_dict(receipt.to_dict()) for receipt in table.receipts]
    assert len(kept) > 10
    body = table.api.models.AuditRequest(receipts=kept)
    checked = table.call("post_audit", table.game_id, client=client, body=body)
    assert checked.status_code == HTTPStatus.OK, checked.content
    assert isinstance(checked.parsed, table.api.models.AuditOut) and checked.parsed.ok


def test_a_rummy_hand_against_a_bot_worker(generated, base_url, document):
    body = {
        "preset": "pagat",
        "options": {"game_end": "deals", "deals": 1},
        "seats": [{"name": "ann"}, {"bot": "strong"}],
    }
    table = create(generated, base_url, document, body, mine=[0])
    codes = play_hand(table, random.Random(1))
    assert len(codes) == 2, codes
    read_back(table)


def test_a_spades_hand_two_seats_by_the_client_two_by_bots(generated, base_url, document):
    body = {
        "game": "spades",
        "preset": "pairs",
        "options": {"max_hands": 1},
        "seats": [{"name": "ann"}, {"bot": "greedy"}, {"name": "cat"}, {"bot": "strong"}],
    }
    table = create(generated, base_url, document, body, mine=[0, 2])
    codes = play_hand(table, random.Random(2))
    assert len(codes) == 2, codes
    read_back(table)
