"""The response checker (tests/openapi_check.py) finds what it is there to find.

A tiny Flask app serves its own document and, on purpose, answers that break it: a body
off its schema, an undocumented status, the wrong media type, a missing header, a body
where none is documented, an undocumented path. Each must be reported, and the answers
that keep to the document must not be.
"""

import pytest
from flask import Flask, Response, jsonify

from tests.openapi_check import COLLECTOR, CheckedClient, document_of, problems_of

PROBLEM = {
    "type": "object",
    "properties": {"code": {"type": "string"}, "status": {"type": "integer"}},
    "required": ["code", "status"],
    "additionalProperties": False,
}
DOCUMENT = {
    "openapi": "3.0.3",
    "info": {"title": "checked", "version": "1"},
    "servers": [{"url": "/"}],
    "components": {"schemas": {"Problem": PROBLEM}},
    "paths": {
        "/things/{name}": {
            "parameters": [
                {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
            ],
            "get": {
                "responses": {
                    "200": {
                        "description": "a thing",
                        "headers": {"ETag": {"required": True, "schema": {"type": "string"}}},
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"n": {"type": "integer"}},
                                    "required": ["n"],
                                }
                            }
                        },
                    },
                    "202": {"description": "taken, nothing to say"},
                    "304": {"description": "unchanged"},
                    "404": {
                        "description": "none",
                        "content": {"application/problem+json": {"schema": PROBLEM}},
                    },
                }
            },
        },
        "/stream": {
            "get": {
                "responses": {"200": {"description": "s", "content": {"text/event-stream": {}}}}
            }
        },
    },
}
ANSWERS = {
    "good": (200, {"n": 1}, "application/json", {"ETag": '"1"'}),
    "off-schema": (200, {"n": "one"}, "application/json", {"ETag": '"1"'}),
    "no-etag": (200, {"n": 1}, "application/json", {}),
    "plain-json-error": (404, {"code": "x", "status": 404}, "application/json", {}),
    "good-error": (404, {"code": "x", "status": 404}, "application/problem+json", {}),
    "undocumented-status": (418, {"code": "x", "status": 418}, "application/problem+json", {}),
    "unchanged": (304, None, None, {}),
    "taken-with-body": (202, {"n": 1}, "application/json", {}),
}


def _app() -> Flask:
    app = Flask("checked")
    app.test_client_class = CheckedClient

    @app.get("/openapi.json")
    def document():
        return jsonify(DOCUMENT)

    @app.get("/things/<name>")
    def thing(name):
        status, body, media, headers = ANSWERS[name]
        if body is None:
            return Response(status=status, headers=headers)
        response = jsonify(body)
        response.status_code, response.mimetype = status, media
        response.headers.update(headers)
        return response

    @app.get("/stream")
    def stream():
        return Response(iter([b"data: 1\n\n"] * 3), mimetype="text/event-stream")

    @app.get("/elsewhere")
    def elsewhere():
        return jsonify({})

    @app.get("/health/ready")
    def ready():
        response = jsonify({"code": "not_ready", "status": 503})
        response.status_code, response.mimetype = 503, "application/problem+json"
        return response  # no Retry-After

    @app.errorhandler(404)
    @app.errorhandler(405)
    def refused(error):
        response = jsonify({"code": error.name, "status": error.code})
        response.status_code, response.mimetype = error.code, "application/problem+json"
        response.headers.update({k: v for k, v in error.get_headers() if k == "Allow"})
        return response

    return app


@pytest.fixture
def checked():
    app = _app()
    document_of(app)
    return app, app.test_client()


@pytest.mark.off_protocol("the checker's own test reads the problems itself")
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("off-schema", "n"),
        ("no-etag", "ETag"),
        ("plain-json-error", "application/json"),
        ("undocumented-status", "418"),
        ("taken-with-body", "body"),
    ],
)
def test_an_answer_off_the_document_is_reported(checked, name, expected):
    app, client = checked
    response = client.get(f"/things/{name}")
    problems = problems_of(document_of(app), response)
    assert problems and expected in "\n".join(problems), problems
    assert COLLECTOR.end(), "the client did not collect the problem"


def test_answers_that_keep_to_the_document_pass(checked):
    app, client = checked
    for name in ("good", "good-error", "unchanged"):
        assert problems_of(document_of(app), client.get(f"/things/{name}")) == [], name
    stream = client.get("/stream")
    assert problems_of(document_of(app), stream) == []
    assert stream.get_data() == b"data: 1\n\n" * 3, "the stream's body was consumed"


@pytest.mark.off_protocol("the checker's own test reads the problems itself")
def test_a_path_the_document_lacks_is_reported_unless_refused_as_documented(checked):
    app, client = checked
    problems = problems_of(document_of(app), client.get("/elsewhere"))
    assert problems and "PathNotFound" in problems[0] and "not 404" in problems[1], problems
    assert problems_of(document_of(app), client.get("/nowhere")) == []
    refused = client.post("/things/good")
    assert refused.status_code == 405 and "GET" in refused.headers["Allow"]
    assert problems_of(document_of(app), refused) == []


@pytest.mark.off_protocol("the checker's own test reads the problems itself")
def test_readiness_outside_the_document_is_still_held_to_its_problem(checked):
    app, client = checked
    problems = problems_of(document_of(app), client.get("/health/ready"))
    assert problems == ["a readiness 503 without Retry-After in seconds"], problems
