"""How the document describes the two Server-Sent Events streams: a game's events, and a
player's news. OpenAPI has no type for a stream, so each is described as one of its
frames (the fields of an SSE block), with the protocol told in words."""

EVENT_STREAM = {
    "description": "Server-Sent Events, one per game event (the schema is one event's): "
    "`retry: 2000` first, then for each event its `id` (the version), `event` (its type) and "
    "`data` (the event as JSON, as the bearer may see it), with a `: keep-alive` comment "
    "every 15 s; the stream ends after 300 s or once the game is over and told (reconnect "
    "with Last-Event-ID).",
    "type": "object",
    "required": ["event", "data"],
    "properties": {
        "id": {"type": "string", "pattern": "^[0-9]+$", "description": "the event's version"},
        "event": {"type": "string", "description": "the event's type"},
        "data": {"type": "string", "description": "the event, as JSON"},
        "retry": {"type": "integer", "minimum": 0},
    },
}
NEWS_STREAM = {
    "description": "Server-Sent Events, one per notice to the player, for all their games: "
    "`retry: 2000` first, then for each notice its `id` (resume with Last-Event-ID), `event` "
    "(`your_turn`, a hand's or the game's end such as `hand_ended` or `game_ended`, "
    "`game_abandoned`, `invited`, `rematch_offered`) and `data` (the notice as JSON: "
    "`kind`, `game`, `at`, and `seat`, `version`, `deadline` or `result` as they apply; "
    "never a card), with a `: keep-alive` comment every 15 s; the stream ends after 300 s, "
    "or with an event `closed` once the session is closed or the token revoked.",
    "type": "object",
    "required": ["event", "data"],
    "properties": {
        "id": {"type": "string", "pattern": "^[0-9]+-[0-9]+$", "description": "the notice's id"},
        "event": {"type": "string", "description": "the notice's kind"},
        "data": {"type": "string", "description": "the notice, as JSON"},
        "retry": {"type": "integer", "minimum": 0},
    },
}
