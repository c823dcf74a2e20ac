"""The commands: create a game, join it, make a move — the only ways a log grows.

Each is load → decide (through the engine's table protocol) → append → react. HTTP
handlers, workers and tools all come through here, so a move made by a bot or a clock
is judged exactly like a move made over HTTP. Nothing here knows a game's rules.
"""

import hashlib
import json
import secrets
import string
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine import IllegalMove, InvalidOptions, games, ledger
from engine import table as protocol
from engine.contract import Command, Event
from service.auth import SeatAuth, new_token
from service.errors import Conflict, Forbidden, Refused, StaleVersion, from_illegal_move
from service.presentation import shown_events
from service.reactions import Appended, Reactions
from service.repository import Loaded, Repository
from service.tables import Seat, Table, Webhook, refuse_unknown_seat
from service.webhooks import WebhookRefused, check_url

ID_ALPHABET = string.ascii_letters + string.digits


def new_game_id() -> str:
    """12 letters and digits (71 bits): no "-" that a command line would take for an
    option (`cardtrail replay -x…`), no "_" to misread in a URL."""
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(12))


@dataclass(frozen=True)
class SeatRequest:
    name: str | None = None
    bot: str | None = None
    open: bool = False
    client_seed: str | None = None
    webhook: str | None = None


@dataclass(frozen=True)
class CreateGame:
    seats: list[SeatRequest]
    game: str = games.DEFAULT_GAME
    preset: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    seed: str | None = None  # the server seed, chosen by a test
    deck: list[str] | None = None  # the first hand's deck, chosen by a test


@dataclass(frozen=True)
class JoinGame:
    game_id: str
    name: str
    seat: int | None = None
    client_seed: str | None = None
    webhook: str | None = None


@dataclass(frozen=True)
class MakeMove:
    game_id: str
    seat: int
    command: Command
    if_match: int | None = None
    idempotency_key: str | None = None
    # table events recorded in the same batch before the move's own (a time-out)
    prefix: tuple[Event, ...] = ()


def _webhook(url: str | None, where: str) -> Webhook | None:
    if not url:
        return None
    try:
        check_url(url)
    except WebhookRefused as error:
        raise Refused("webhook_refused", str(error), where) from None
    return Webhook(url, secrets.token_urlsafe(24))


def _invalid(error: InvalidOptions) -> Refused:
    return Refused("invalid_options", error.reason, error.field)


class Commands:
    def __init__(
        self,
        repository: Repository,
        reactions: Reactions,
        allow_preset_deck: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.repository = repository
        self.tables = repository.tables
        self.auth = SeatAuth(repository.tables)
        self.react = reactions
        self.allow_preset_deck = allow_preset_deck
        self.now = clock

    # -- creating -----------------------------------------------------------------

    def create(self, request: CreateGame) -> dict[str, Any]:
        self._refuse_testing_only(request)
        setup = self._setup(request)
        game = setup.game
        seats, answer = self._seats(request.seats, game.bots)
        # The server seed is the server's own: 256 random bits, secret until the game ends.
        server_seed = request.seed or secrets.token_hex(32)
        seed_source = "server" if request.seed is None else "client"
        source = "seed" if request.deck is None else "explicit"
        created = protocol.create(setup, server_seed, source, seed_source)
        waiting = any(seat.is_open for seat in seats)
        table = Table(
            id=new_game_id(),
            game=game.name,
            preset=request.preset,
            seats=tuple(seats),
            server_seed=server_seed,
            created=self.now(),
            status="waiting" if waiting else "playing",
            clock=setup.clock,
            deck=tuple(request.deck) if request.deck is not None else None,
            seed_source=seed_source,
        )
        seated = self._seated(table, created.state)  # checked now, even if dealt later
        self.tables.add(table)
        fresh = Loaded(table, game, None, 0, ledger.chain_start(table.id))
        if waiting:
            appended = self.repository.append(fresh, created.events, created.state, protocol.CREATE)
            self.tables.set_status(table, "waiting")
            version = appended.version
        else:
            version = self._start(fresh, created.events, seated, protocol.CREATE)
        return {
            "id": table.id,
            "version": version,
            "status": table.status,
            "seats": answer,
            "seed_commitment": table.seed_commitment,
            "seed_source": seed_source,
        }

    def _refuse_testing_only(self, request: CreateGame) -> None:
        """A chosen server seed or deck would let the creator know every card: only a
        server started for testing accepts them (and the log then says so)."""
        if self.allow_preset_deck:
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

    def _setup(self, request: CreateGame) -> protocol.Setup:
        try:
            game = games.get(request.game)
            return protocol.setup(game, request.preset, request.options, len(request.seats))
        except InvalidOptions as error:
            raise _invalid(error) from None

    @staticmethod
    def _seats(requests: list[SeatRequest], bots: Any) -> tuple[list[Seat], list[dict[str, Any]]]:
        """The seats to record, and what the creator is told of each (tokens, secrets)."""
        seats, answer = [], []
        for number, asked in enumerate(requests):
            if asked.bot is not None and asked.bot not in bots:
                levels = ", ".join(bots)
                raise Refused(
                    "unknown_bot", f"This game's bots are {levels}.", f"seats.{number}.bot"
                )
            hook = _webhook(asked.webhook, f"seats.{number}.webhook")
            token, digest = new_token() if asked.name else (None, None)
            seat = Seat(number, asked.name, asked.bot, digest, asked.client_seed or None, hook)
            told = seat.public()
            if token:
                told["token"] = token
            if hook:
                told["webhook_secret"] = hook.secret
            seats.append(seat)
            answer.append(told)
        return seats, answer

    def _seated(self, table: Table, state: Any) -> protocol.Step:
        """Every seat filled: the client seeds recorded and the first hand dealt."""
        try:
            game = games.get(table.game)
            return protocol.seat(game, state, table.seeds, table.deck)
        except IllegalMove as error:
            raise Refused("invalid_deck", error.message, "deck") from None

    def _start(
        self, loaded: Loaded, opening: list[Event], seated: protocol.Step, command: Command
    ) -> int:
        """Append the opening events with the seating and first deal: the game is playing,
        listed as such, and its first turns begin."""
        events, begun = protocol.clocked(
            loaded.game,
            loaded.table.clock,
            None,
            seated.state,
            [*opening, *seated.events],
            self.now(),
        )
        appended = self.repository.append(loaded, events, seated.state, command)
        self.tables.set_status(loaded.table, "playing")
        self.react(
            Appended(loaded.table, loaded.game, loaded.version, events, None, seated.state, begun)
        )
        return appended.version

    # -- joining ------------------------------------------------------------------

    def join(self, request: JoinGame) -> dict[str, Any]:
        table = self.tables.get(request.game_id)
        refuse_unknown_seat(table, request.seat)
        hook = _webhook(request.webhook, "webhook")
        token, digest = new_token()
        asked = Seat(-1, request.name, None, digest, request.client_seed or None, hook)
        number, left = self.tables.take_seat(table.id, request.seat, asked)
        version = self.repository.events.version(table.id)
        if left == 0:
            loaded = self.repository.load(table.id)
            version = self._start(
                loaded, [], self._seated(loaded.table, loaded.state), protocol.START
            )
        joined: dict[str, Any] = {
            "seat": number,
            "token": token,
            "version": version,
            "seed_commitment": table.seed_commitment,
        }
        if hook:
            joined["webhook_secret"] = hook.secret
        return joined

    # -- moving -------------------------------------------------------------------

    def move(
        self,
        game_id: str,
        token: str | None,
        command: Command,
        if_match: int | None = None,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """A move by the bearer of a seat's token."""
        loaded = self.repository.load(game_id)
        seat = self.auth.acting_seat(loaded.table, token)
        return self.act(MakeMove(game_id, seat, command, if_match, idempotency_key), loaded)

    def act(self, request: MakeMove, loaded: Loaded | None = None) -> dict[str, Any]:
        """Decide and append one seat's command: the path every move takes."""
        fingerprint = _fingerprint(request.seat, request.command)
        idem = _digest(request.idempotency_key) if request.idempotency_key else None
        if idem:
            record = self.repository.events.idempotency_record(request.game_id, idem)
            if record is not None:
                return _replayed(record, fingerprint)
        loaded = loaded or self.repository.load(request.game_id)
        _check_movable(loaded, request.if_match)
        seated = {**request.command, "seat": request.seat}
        try:
            step = protocol.move(loaded.game, loaded.state, seated, loaded.table.seeds)
        except IllegalMove as error:
            raise from_illegal_move(error) from None
        events, begun = protocol.clocked(
            loaded.game,
            loaded.table.clock,
            loaded.state,
            step.state,
            [*request.prefix, *step.events],
            self.now(),
        )
        response: dict[str, Any] = {
            "version": loaded.version + len(events),
            "events": shown_events(loaded, events, request.seat, loaded.version + 1, step.state),
        }
        kept = (idem, {"request": fingerprint, "response": response}) if idem else None
        appended = self.repository.append(loaded, events, step.state, seated, kept)
        if appended.replayed is not None:
            return _replayed(appended.replayed, fingerprint)
        self.react(
            Appended(
                loaded.table, loaded.game, loaded.version, events, loaded.state, step.state, begun
            )
        )
        return response


def _check_movable(loaded: Loaded, if_match: int | None) -> None:
    if if_match is not None and if_match != loaded.version:
        raise StaleVersion(
            "version_mismatch", f"The game is at version {loaded.version}, not {if_match}."
        )
    if loaded.table.status == "waiting":
        raise Conflict("game_not_started", "The game waits for its open seats.")


def _fingerprint(seat: int, command: Command) -> str:
    return hashlib.sha256(json.dumps([seat, command], sort_keys=True).encode()).hexdigest()


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _replayed(record: dict[str, Any], fingerprint: str) -> dict[str, Any]:
    if record["request"] != fingerprint:
        raise Refused(
            "idempotency_key_reused",
            "This Idempotency-Key was already used for a different request.",
            "Idempotency-Key",
        )
    response: dict[str, Any] = record["response"]
    return response
