"""Seating a table: game ids, the seats a creator asks for, webhooks, the first deal's check.

The pieces `service.handlers` puts together when a game is created or joined.
"""

import secrets
import string
from collections.abc import Callable
from typing import Any

from engine import IllegalMove, InvalidOptions, games
from engine import table as protocol
from engine.contract import Game
from service.auth import new_token
from service.commands import CreateGame, SeatRequest
from service.errors import Forbidden, Refused, Unauthenticated
from service.player_games import PENDING_INVITATIONS
from service.players import Player, name_key
from service.tables import Seat, Table, Webhook
from service.webhooks import WebhookRefused, check_url

ID_ALPHABET = string.ascii_letters + string.digits
AnyGame = Game[Any, Any]


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


Lookup = Callable[[str], Player | None]  # a player by name


def seats(
    requests: list[SeatRequest],
    game: AnyGame,
    creator: Player | None = None,
    lookup: Lookup | None = None,
    pending: Callable[[str], int] | None = None,
) -> tuple[list[Seat], list[dict[str, Any]]]:
    """The seats to record, and what the creator is told of each (tokens, secrets).

    `me` is the creator's own seat, bound to their account (a token too, for clients
    that only keep one); `{"player": name}` is reserved for that player, who brings
    their own client seed and webhook when they take it. One player holds at most the
    game's `seats_per_player` seats (reserved ones count). `pending` counts the games
    that already await a player: at PENDING_INVITATIONS, nobody may invite them more."""
    made: list[Seat] = []
    answer: list[dict[str, Any]] = []
    for number, asked in enumerate(requests):
        seat, token = _seat(number, asked, game, creator, lookup)
        mine = [other for other in [*made, seat] if other.player == seat.player]
        held = len(mine) if seat.player else 0
        if held > game.seats_per_player:
            detail = f"One player holds at most {game.seats_per_player} seat(s) of this game."
            raise Refused("too_many_seats", detail, f"seats.{number}")
        if (
            seat.reserved
            and seat.player
            and pending
            and pending(seat.player) >= PENDING_INVITATIONS
        ):
            detail = "That player has as many invitations as they may; invite them later."
            raise Refused("too_many_invitations", detail, f"seats.{number}.player")
        told = seat.public(game.seat_name(number, len(requests)))
        if token:
            told["token"] = token
        if seat.webhook:
            told["webhook_secret"] = seat.webhook.secret
        made.append(seat)
        answer.append(told)
    return made, answer


def _seat(
    number: int, asked: SeatRequest, game: AnyGame, creator: Player | None, lookup: Lookup | None
) -> tuple[Seat, str | None]:
    """One requested seat (and its token), or Refused naming the seat's field."""
    where = f"seats.{number}"
    if asked.bot is not None and asked.bot not in game.bots:
        levels = ", ".join(game.bots)
        raise Refused("unknown_bot", f"This game's bots are {levels}.", f"{where}.bot")
    if asked.player is not None and creator is None:  # nor may anyone learn who exists
        detail = "Inviting a player needs your own credential: log in or send a token."
        raise Unauthenticated("not_logged_in", detail, f"{where}.player")
    owner = _owner(asked, creator, lookup)
    if asked.player is not None and (owner is None or creator is None or owner.id != creator.id):
        if owner is None:
            detail = f"There is no player {asked.player!r}."
            raise Refused("unknown_player", detail, f"{where}.player")
        if asked.client_seed or asked.webhook:
            detail = "An invited player gives their own client seed and webhook when they join."
            raise Refused("not_yours_to_give", detail, where)
        return Seat(number, owner.name, player=owner.id, reserved=True), None
    hook = webhook(asked.webhook, f"{where}.webhook")
    name = owner.name if owner is not None else asked.name
    token, digest = new_token() if name else (None, None)
    player = owner.id if owner is not None else None
    seed = asked.client_seed or None
    return Seat(number, name, asked.bot, digest, seed, hook, player), token


def _owner(asked: SeatRequest, creator: Player | None, lookup: Lookup | None) -> Player | None:
    """The account a seat is for: the creator's (`me`, or their own name as `player`)."""
    if asked.me:
        if creator is None:
            raise Unauthenticated(
                "not_logged_in", "A seat for you needs your credential: log in or send a token."
            )
        return creator
    if asked.player is None or lookup is None:
        return None
    return lookup(asked.player)


def first_deal(table: Table, state: Any) -> protocol.Step:
    """Every seat filled: the client seeds and who sits where recorded, the first hand
    dealt. (While a seat is still empty this only checks the deal: it is made again,
    with everyone's identity, when the last seat is taken.)"""
    try:
        game = games.get(table.game)
        return protocol.seat(game, state, table.seeds, table.deck, table.identities())
    except IllegalMove as error:
        raise Refused("invalid_deck", error.message, "deck") from None


def game_of(table: Table) -> AnyGame:
    return games.get(table.game)


def joiner_name(name: str | None, player: Player | None) -> str:
    """The name a joiner sits under: a player's own (a name given with it must be theirs,
    in any spelling), else the one given, which a person without an account must give."""
    if player is None:
        if not name:
            # Not the schema's to say (the name is optional with a player's credential).
            detail = "Give your name, or join with your credential."
            raise Refused("name_required", detail, "name")
        return name
    if name is not None and name_key(name) != name_key(player.name):
        detail = f"You join as {player.name!r}: a player's seat carries their own name."
        raise Refused("not_your_name", detail, "name")
    return player.name


def new_table(
    request: CreateGame, setup: protocol.Setup, seats: list[Seat], server_seed: str, now: float
) -> Table:
    """The table a create makes: waiting while any seat is still empty."""
    return Table(
        id=new_game_id(),
        game=setup.game.name,
        preset=request.preset,
        seats=tuple(seats),
        server_seed=server_seed,
        created=now,
        status="waiting" if any(seat.is_empty for seat in seats) else "playing",
        clock=setup.clock,
        deck=tuple(request.deck) if request.deck is not None else None,
        seed_source="server" if request.seed is None else "client",
    )
