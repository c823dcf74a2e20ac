"""The handlers of the commands: load → decide (through the engine's table protocol) →
append → react.

HTTP handlers, workers and tools all come through here, so a move made by a bot or a
clock is judged exactly like a move made over HTTP. Nothing here knows a game's rules.
Each answer to a person carries a signed receipt for the version it leaves the game at
(`service.signing`), so they can later prove what they were shown.

An Idempotency-Key makes a request safe to repeat: a move's is the seat's own, kept with
the move's append; a create's or a join's answer is kept sealed (`service.idempotency`).
"""

import hashlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from typing import Any

from engine import IllegalMove, ledger
from engine import table as protocol
from engine.contract import Command, Event
from service import abandoning, keys, seating
from service.auth import Credential, SeatAuth, new_token
from service.commands import CreateGame, JoinGame, MakeMove, check_shape
from service.errors import Conflict, Refused, StaleVersion, from_illegal_move
from service.idempotency import KeptAnswers
from service.player_games import PlayerGames
from service.players import Player, Players
from service.presentation import shown_events
from service.reactions import Appended, Reactions
from service.repository import Loaded, Repository
from service.signing import Signer
from service.store import Batch
from service.tables import Seat, Table, refuse_unknown_seat


class Handlers:
    def __init__(
        self,
        repository: Repository,
        reactions: Reactions,
        signer: Signer | None = None,
        allow_preset_deck: bool = False,
        clock: Callable[[], float] = time.time,
        players: Players | None = None,
        player_games: PlayerGames | None = None,
    ) -> None:
        self.repository = repository
        self.tables = repository.tables
        self.auth = SeatAuth(repository.tables)
        self.react = reactions
        self.signer = signer  # None: no receipts (a worker answers nobody)
        self.allow_preset_deck = allow_preset_deck
        self.now = clock
        self.kept = KeptAnswers(repository.redis)
        self.players = players or Players(repository.redis)
        self.player_games = player_games or PlayerGames(
            repository.redis, self.tables, repository.events
        )

    def receipt(self, game_id: str, version: int, chain_hash: str) -> dict[str, Any]:
        """{"receipt": …} for an answer at `version`, or nothing without a signer."""
        if self.signer is None:
            return {}
        return {"receipt": self.signer.receipt(game_id, version, chain_hash)}

    # -- creating -----------------------------------------------------------------

    def create(self, request: CreateGame, idempotency_key: str | None = None) -> dict[str, Any]:
        """A new game; with a key, the answer of the first create with that key and body.

        A create's key is scoped by nothing but itself (there is no account to scope it
        by): it is the client's secret, a fresh random value per game meant."""
        if idempotency_key is None:
            return self._create(request)
        return self.kept.once(
            keys.create_idempotency, idempotency_key, asdict(request), lambda: self._create(request)
        )

    def _create(self, request: CreateGame) -> dict[str, Any]:
        seating.refuse_testing_only(request, self.allow_preset_deck)
        setup = seating.setup(request)
        seats, answer = seating.seats(
            request.seats, setup.game, request.creator, self.players.by_name,
            self.player_games.invitations,
        )  # fmt: skip
        # The server seed is the server's own: 256 random bits, secret until the game ends.
        server_seed = request.seed or secrets.token_hex(32)
        seed_source = "server" if request.seed is None else "client"
        deck_source = "seed" if request.deck is None else "explicit"
        created = protocol.create(setup, server_seed, deck_source, seed_source)
        table = seating.new_table(request, setup, seats, server_seed, self.now())
        dealt = seating.first_deal(table, created.state)  # checked now, even if dealt later
        self.tables.add(table)
        if table.status == "waiting":
            batch = self.open_table(table, created)
        else:
            fresh = Loaded(table, setup.game, None, 0, ledger.chain_start(table.id))
            batch = self._start(fresh, created.events, dealt, protocol.CREATE)
        self.player_games.seated(table)  # once there is a game to read: notices wake readers
        return {
            "id": table.id,
            "version": batch.version,
            "status": table.status,
            "seats": answer,
            "seed_commitment": table.seed_commitment,
            "seed_source": seed_source,
            **self.receipt(table.id, batch.version, batch.last_hash),
        }

    def open_table(self, table: Table, created: protocol.Step) -> Batch:
        """Append the creation of a table that waits for seats to be taken, and list it as
        waiting; MovedOn when its log was begun already (a racing request's)."""
        game = seating.game_of(table)
        fresh = Loaded(table, game, None, 0, ledger.chain_start(table.id))
        batch = self.repository.batch(fresh, created.events, protocol.CREATE)
        self.repository.append(fresh, batch, created.state)
        self.tables.set_status(table, "waiting")
        return batch

    def _start(
        self, loaded: Loaded, opening: list[Event], dealt: protocol.Step, command: Command
    ) -> Batch:
        """Append the opening events with the seating and first deal: the game is playing,
        listed as such, and its first turns begin."""
        events, begun = protocol.clocked(
            loaded.game,
            loaded.table.clock,
            None,
            dealt.state,
            [*opening, *dealt.events],
            self.now(),
        )
        batch = self.repository.batch(loaded, events, command)
        self.repository.append(loaded, batch, dealt.state)
        self.tables.set_status(loaded.table, "playing")
        self.react(
            Appended(loaded.table, loaded.game, loaded.version, events, None, dealt.state, begun)
        )
        return batch

    # -- joining ------------------------------------------------------------------

    def join(self, request: JoinGame, idempotency_key: str | None = None) -> dict[str, Any]:
        """An open seat taken; with a key (scoped to the game), once per key and body."""
        if idempotency_key is None:
            return self._join(request)

        def where(digest: str) -> str:
            return keys.join_idempotency(request.game_id, digest)

        self.tables.get(request.game_id)  # an unknown game keeps no key
        return self.kept.once(where, idempotency_key, asdict(request), lambda: self._join(request))

    def _join(self, request: JoinGame) -> dict[str, Any]:
        table = self.tables.get(request.game_id)
        refuse_unknown_seat(table, request.seat)
        hook = seating.webhook(request.webhook, "webhook")
        name = seating.joiner_name(request.name, request.player)
        player = request.player.id if request.player else None
        asked = Seat(-1, name, None, None, request.client_seed or None, hook, player)
        return self.sit(table, request.seat, asked)

    def sit(self, table: Table, wanted: int | None, asked: Seat) -> dict[str, Any]:
        """Take a seat (the wanted one, or the player's reserved one, or the first open)
        for `asked` with a fresh token; the last seat taken deals the first hand."""
        token, digest = new_token()
        asked = replace(asked, token_digest=digest)
        most = seating.game_of(table).seats_per_player
        number, left = self.tables.take_seat(table.id, wanted, asked, most)
        if asked.player is not None:
            self.player_games.joined(table, asked.player)
        if left == 0:
            loaded = self.repository.load(table.id)
            dealt = seating.first_deal(loaded.table, loaded.state)
            batch = self._start(loaded, [], dealt, protocol.START)
            version, chain_hash = batch.version, batch.last_hash
        else:
            version = self.repository.events.version(table.id)
            chain_hash = self.repository.events.hash_at(table.id, version)
        joined: dict[str, Any] = {
            "seat": number,
            "token": token,
            "version": version,
            "seed_commitment": table.seed_commitment,
            **self.receipt(table.id, version, chain_hash),
        }
        if asked.webhook:
            joined["webhook_secret"] = asked.webhook.secret
        return joined

    # -- abandoning -----------------------------------------------------------------

    def abandon(self, game_id: str, now: float) -> int | None:
        """Close a waiting game nobody filled in time (`service.abandoning`)."""
        return abandoning.abandon(self, game_id, now)

    # -- moving -------------------------------------------------------------------

    def move(
        self,
        game_id: str,
        who: Credential,
        command: Command,
        if_match: int | None = None,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """A move by the bearer of a seat's token, or by the player bound to the seat."""
        loaded = self.repository.load(game_id)
        acting = loaded.game.to_act(loaded.state) if isinstance(who, Player) else ()
        seat = self.auth.acting_seat(loaded.table, who, acting)
        return self.act(MakeMove(game_id, seat, command, if_match, idempotency_key), loaded)

    def act(self, request: MakeMove, loaded: Loaded | None = None) -> dict[str, Any]:
        """Decide and append one seat's command: the path every move takes."""
        idem = _scoped(request.seat, request.idempotency_key) if request.idempotency_key else None
        fingerprint = _fingerprint(request.seat, request.command) if idem else ""
        if idem:
            record = self.repository.events.idempotency_record(request.game_id, idem)
            if record is not None:
                return _replayed(record, fingerprint)
        loaded = loaded or self.repository.load(request.game_id)
        check_shape(loaded.game, request.command)  # nothing the move lacks enters the log
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
        batch = self.repository.batch(loaded, events, seated)
        response: dict[str, Any] = {
            "version": batch.version,
            "events": shown_events(loaded, events, request.seat, loaded.version + 1, step.state),
            **self.receipt(loaded.id, batch.version, batch.last_hash),
        }
        kept = (idem, {"request": fingerprint, "response": response}) if idem else None
        appended = self.repository.append(loaded, batch, step.state, kept)
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
    if loaded.table.status == "abandoned":
        raise Conflict("game_abandoned", "This game was abandoned: nobody filled it in time.")


def _fingerprint(seat: int, command: Command) -> str:
    return hashlib.sha256(json.dumps([seat, command], sort_keys=True).encode()).hexdigest()


def _scoped(seat: int, key: str) -> str:
    """A move's key as the seat's own: seats of one game may pick the same key."""
    return f"{seat}:{hashlib.sha256(key.encode()).hexdigest()}"


def _replayed(record: dict[str, Any], fingerprint: str) -> dict[str, Any]:
    if record["request"] != fingerprint:
        raise Refused(
            "idempotency_key_reused",
            "This Idempotency-Key was already used for a different request.",
            "Idempotency-Key",
        )
    response: dict[str, Any] = record["response"]
    return response
