"""Seating a table: game ids, the seats a creator asks for, webhooks, the first deal's check.

The pieces `service.handlers` puts together when a game is created or joined.
"""

import secrets
import string
from typing import Any

from engine import IllegalMove, InvalidOptions, games
from engine import table as protocol
from service.auth import new_token
from service.commands import CreateGame, SeatRequest
from service.errors import Forbidden, Refused
from service.tables import Seat, Table, Webhook
from service.webhooks import WebhookRefused, check_url

ID_ALPHABET = string.ascii_letters + string.digits


def new_game_id() -> str:
    """12 letters and digits (71 bits): no "-" that a command line would take for an
    option (`cardtrail replay -x…`), no "_" to misread in a URL."""
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(12))


def webhook(url: str | None, where: str) -> Webhook | None:
    """A checked webhook with a fresh secret, or Refused naming the field."""
    if not url:
        return None
    try:
        check_url(url)
    except WebhookRefused as error:
        raise Refused("webhook_refused", str(error), where) from None
    return Webhook(url, secrets.token_urlsafe(24))


def setup(request: CreateGame) -> protocol.Setup:
    try:
        game = games.get(request.game)
        return protocol.setup(game, request.preset, request.options, len(request.seats))
    except InvalidOptions as error:
        raise Refused("invalid_options", error.reason, error.field) from None


def refuse_testing_only(request: CreateGame, allowed: bool) -> None:
    """A chosen server seed or deck would let the creator know every card: only a server
    started for testing accepts them (and the log then says so)."""
    if allowed:
        return
    if request.seed is not None:
        raise Forbidden(
            "chosen_seed_disabled",
            "The server seed is the server's own; a client may add a client_seed.",
            "seed",
        )
    if request.deck is not None:
        raise Forbidden(
            "preset_deck_disabled",
            "Explicit decks are for testing; this server does not accept them.",
            "deck",
        )


def seats(requests: list[SeatRequest], bots: Any) -> tuple[list[Seat], list[dict[str, Any]]]:
    """The seats to record, and what the creator is told of each (tokens, secrets)."""
    made, answer = [], []
    for number, asked in enumerate(requests):
        if asked.bot is not None and asked.bot not in bots:
            levels = ", ".join(bots)
            raise Refused("unknown_bot", f"This game's bots are {levels}.", f"seats.{number}.bot")
        hook = webhook(asked.webhook, f"seats.{number}.webhook")
        token, digest = new_token() if asked.name else (None, None)
        seat = Seat(number, asked.name, asked.bot, digest, asked.client_seed or None, hook)
        told = seat.public()
        if token:
            told["token"] = token
        if hook:
            told["webhook_secret"] = hook.secret
        made.append(seat)
        answer.append(told)
    return made, answer


def first_deal(table: Table, state: Any) -> protocol.Step:
    """Every seat filled: the client seeds and who sits where recorded, the first hand
    dealt. (While a seat is still empty this only checks the deal: it is made again,
    with everyone's identity, when the last seat is taken.)"""
    try:
        game = games.get(table.game)
        return protocol.seat(game, state, table.seeds, table.deck, table.identities())
    except IllegalMove as error:
        raise Refused("invalid_deck", error.message, "deck") from None
