"""schemathesis against the app's own /openapi.json: over 2,000 generated requests, every
check it has, no failure.

The requests reach real game code: path parameters name real games (a waiting one to
join, one in play to move in and follow, a finished one to replay, export and audit),
and most carry a real seat token of that game. Requests are drawn three ways for every
operation: valid (positive) data, data the document forbids (negative; schemathesis
revalidates a case after its path parameters are aimed at a real game, so a case stays
negative only where its data is), and schemathesis' coverage scenarios (boundaries,
missing parameters and headers, undocumented methods). Every response goes through all
of schemathesis' checks: status, Content-Type and headers as documented, bodies valid
against their schemas (errors included), negative data rejected, valid data accepted,
auth that is declared enforced, 405 with Allow for an undocumented method.

Valid data may still be refused by the game, which no schema can say: a move that is
well formed but not legal now (422), a join to a full table (409), an If-Match for
another version (412). Those statuses count as accepted; but a schema-valid request that
the server's own input validation refuses (422 validation_error, or 400) is a failure:
the document would be promising more than the server takes.

Drives schemathesis' strategies directly, one operation at a time, so the count of
requests is known and asserted.
"""

import random
import unicodedata
from collections import Counter
from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from marshmallow import ValidationError
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.core.failures import Failure
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation import GenerationMode

from service.api.inputs import NAME_LENGTH, seat_name
from tests.service.helpers import create_game, play_to_the_end, tokens

load_all_checks()


def _is_seat_name(text: str) -> bool:
    try:
        return 1 <= len(seat_name(text)) <= NAME_LENGTH
    except ValidationError:
        return False


# Names are "format": "seat-name" in the document: more than a pattern can say (docs/inputs.md)
SEAT_NAMES = st.text(st.characters(categories=("L", "N", "P", "S", "Zs")), min_size=1, max_size=40)
schemathesis.openapi.format("seat-name", SEAT_NAMES.filter(_is_seat_name))
POSITIVE, NEGATIVE = GenerationMode.POSITIVE, GenerationMode.NEGATIVE
ALL_CHECKS = CHECKS.get_all()
FUZZED_PER_OPERATION = 80  # per generation mode, positive and negative
COVERAGE_PER_OPERATION = 40  # the first of schemathesis' coverage scenarios
AT_LEAST = 2000
LONGEST_WAIT = 0.05  # seconds: long-polls and streams are cut short, not skipped
# the game each operation is aimed at (else the one in play); a finished game's stream
# ends once it has told everything, where one in play would stay open for minutes
GAME_ROUTES = {
    "joinGame": "waiting",
    **dict.fromkeys(
        ["exportGame", "getAudit", "postAudit", "listHands", "getReplayStep", "streamEvents",
         "rematchGame"],
        "finished",
    ),
}  # fmt: skip
# operations a player's own credential is for: they carry a personal token instead
PLAYERS_OWN = {"getMe", "createToken", "listTokens", "revokeToken"}
REFUSED_BY_THE_GAME = ["2xx", "3xx", "401", "403", "404", "409", "412", "422", "429"]
# Data the document forbids is refused: by validation (400, 422), or, when schemathesis
# makes it too large to read at all (a list far past its maxItems), by the body limit.
REJECTED = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429",
            "5xx"]  # fmt: skip


# Names the document gives as `format: seat-name` (docs/inputs.md), drawn by that rule:
# letters, marks, digits, punctuation, symbols and spaces of assigned code points, not
# starting with a mark, without the letters that show nothing, 1 to 40 characters once
# NFC and with its spaces collapsed. The server's own check is not used: it is on trial.
BLANK_LETTERS = "\u115f\u1160\u3164\uffa0\u2800\u034f"


def _seat_name_fits(text: str) -> bool:
    settled = " ".join(unicodedata.normalize("NFC", text).split())
    return 1 <= len(settled) <= 40 and not unicodedata.category(settled[0]).startswith("M")


SEAT_NAMES = st.text(
    st.characters(categories=["L", "M", "N", "P", "S", "Zs"], exclude_characters=BLANK_LETTERS),
    min_size=1,
    max_size=40,
).filter(_seat_name_fits)
schemathesis.openapi.format("seat-name", SEAT_NAMES)


class GameTooStrict(Failure):
    """A schema-valid request refused by the server's own input validation."""


def tables(client) -> dict[str, dict[str, Any]]:
    """A waiting game (five open seats), one in play (two people) and a finished one (a
    hand of Spades, four people); and a player with a personal token."""
    waiting = create_game(client, seats=[{"name": "ann"}] + [{"open": True}] * 5)
    playing = create_game(client)
    finished = create_game(
        client, game="spades", names=("ann", "bob", "cat", "dan"), options={"max_hands": 1}
    )
    play_to_the_end(client, finished["id"], tokens(finished), random.Random(3))
    found = {"waiting": waiting, "playing": playing, "finished": finished}
    made = {kind: {"id": game["id"], "tokens": tokens(game)} for kind, game in found.items()}
    return {**made, "player": {"id": None, "tokens": [personal_token(client.application)]}}


def personal_token(app) -> str:
    browser = app.test_client()
    sent = {"name": "generated", "password": "generated requests"}
    assert browser.post("/players", json=sent).status_code == 201
    csrf = browser.post("/session", json=sent).get_json()["csrf"]
    made = browser.post("/players/me/tokens", json={}, headers={"X-CSRF-Token": csrf})
    return made.get_json()["token"]


def aim(case, games: dict[str, dict[str, Any]], pick: int) -> None:
    """Point the case at a real game with a real token (the data stays as generated)."""
    operation = case.operation.definition.raw.get("operationId")
    kind = "player" if operation in PLAYERS_OWN else GAME_ROUTES.get(operation, "playing")
    game = games[kind]
    params = dict(case.path_parameters or {})
    if "game_id" in params and not case.meta.is_negative_at(ParameterLocation.PATH):
        if pick % 10:  # one in ten keeps its generated id: an unknown game
            params["game_id"] = game["id"]
        if "number" in params:
            params["number"] = 1
        case.path_parameters = params
    token = game["tokens"][pick % len(game["tokens"])]
    if pick % 5 and token:  # one in five goes as a spectator
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
        # A real credential, as schemathesis' own auth providers mark theirs: its auth
        # check then probes that the operation refuses the request without it, and with
        # a wrong one, instead of taking the success for generated auth let through.
        case._has_explicit_auth = True
    query = case.query or {}
    wait = query.get("wait")
    if isinstance(wait, int | float) and not isinstance(wait, bool) and 0 <= wait <= 30:
        case.query = {**query, "wait": min(wait, LONGEST_WAIT)}


def too_strict(ctx, response, case) -> bool | None:
    """Positive data answered 400, or 422 by the input validation (not the game)."""
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return None
    code = (response.json() or {}).get("code") if response.status_code in (400, 422) else None
    if response.status_code == 400 or code == "validation_error":
        raise GameTooStrict(
            operation=case.operation.label,
            title="Schema-valid request refused by input validation",
            message=f"{response.status_code} {code}: {response.text[:300]}",
        )
    return None


def loaded(app):
    config = schemathesis.Config.from_dict(
        {
            "checks": {
                "positive_data_acceptance": {"expected-statuses": REFUSED_BY_THE_GAME},
                "negative_data_rejection": {"expected-statuses": REJECTED},
            }
        }
    )
    return schemathesis.openapi.from_wsgi("/openapi.json", app, config=config)


def takes_input(operation) -> bool:
    """Whether the operation has anything to get wrong: a parameter or a body."""
    raw = operation.definition.raw
    shared = operation.schema.raw_schema["paths"][operation.path].get("parameters", [])
    return bool(raw.get("parameters") or shared or raw.get("requestBody"))


def send_and_check(case, answered: Counter) -> None:
    """One request, every check on its answer, its status counted."""
    response = case.call_and_validate(checks=ALL_CHECKS, additional_checks=[too_strict])
    answered[case.operation.label, response.status_code] += 1


def exercise(operation, games, generation: GenerationMode, answered: Counter) -> None:
    """Requests drawn from the operation's strategy, each sent and checked by every check."""

    @given(case=operation.as_strategy(generation_mode=generation), pick=st.integers(0, 99))
    @settings(
        max_examples=FUZZED_PER_OPERATION,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
        derandomize=True,
    )
    def send(case, pick):
        aim(case, games, pick)
        send_and_check(case, answered)

    try:
        send()
    except Unsatisfiable:
        # nothing of the operation's can be made invalid (a bare string in the path or a
        # header): its negative cases are the coverage scenarios'
        assert generation is NEGATIVE, operation.label


def coverage(schema, operation, games, answered: Counter) -> None:
    """schemathesis' coverage scenarios for `operation`, the first of them."""
    generation = schema.config.generation_for(operation=operation)
    cases = schema.iter_coverage_cases(
        operation,
        generation_modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
        generation_config=generation,
    )
    for index, case in enumerate(cases):
        if index == COVERAGE_PER_OPERATION:
            break
        aim(case, games, index)
        send_and_check(case, answered)


def runs_of(schema, operation, games, answered: Counter):
    """(name, run) for each way the operation's requests are drawn."""
    yield "positive", lambda: exercise(operation, games, POSITIVE, answered)
    if takes_input(operation):
        yield "negative", lambda: exercise(operation, games, NEGATIVE, answered)
    yield "coverage", lambda: coverage(schema, operation, games, answered)


def test_two_thousand_generated_requests_pass_every_check(app, client):
    games = tables(client)
    schema = loaded(app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 14, [op.label for op in operations]
    answered: Counter = Counter()
    failures: list[str] = []
    for operation in operations:
        for name, run in runs_of(schema, operation, games, answered):
            try:
                run()
            except (Exception, BaseExceptionGroup) as error:  # all operations' failures
                failures.append(f"{operation.label} ({name}):\n{error}")
    assert not failures, f"{len(failures)} failing runs:\n\n" + "\n\n".join(failures)
    assert answered.total() >= AT_LEAST, answered
    # the requests reached real games: every operation succeeded at least once, and
    # unknown games (one aimed request in ten keeps its generated id) stay a minority
    succeeded = {label for (label, status), _ in answered.items() if status < 400}
    assert succeeded == {operation.label for operation in operations}, answered
    not_found = sum(count for (_, status), count in answered.items() if status == 404)
    assert not_found < answered.total() / 4, answered
