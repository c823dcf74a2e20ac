"""schemathesis against /openapi.json — at least 1,000 generated requests, no 5xx,
and no response that breaks its own schema.

Drives schemathesis' hypothesis strategies directly, one operation at a time
(its pytest plugin does not support pytest 9 yet)."""

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

EXAMPLES_PER_OPERATION = 110


def test_a_thousand_generated_requests_no_5xx_every_response_fits(app, client):
    created = client.post("/games", json={"seats": [{"name": "ann"}, {"bot": "greedy"}]})
    assert created.status_code == 201
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
    requests = 0
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 10

    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        def exercise(case):
            nonlocal requests
            case.call_and_validate(checks=[not_a_server_error, response_schema_conformance])
            requests += 1

        exercise()
    assert requests >= 1000, requests
