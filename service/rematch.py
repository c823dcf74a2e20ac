"""Rematches: a finished game offered again, to the same seats, with the same options.

Anyone seated in a finished game (by their seat's token, or the credential of the player
bound to it) may ask. The new game is the same game, preset, options and clock, read
from the old game's recorded creation (`engine.table.rematch_setup`), with a fresh
server seed; its first dealer is the seat after the old game's first dealer
(`dealer_after`, recorded, so the audit replays it). Its seats:

- a bot's stays a bot's: bots accept at once;
- an account's is reserved for that player, who accepts by joining (one call, no name);
- a person without an account left no identity to reserve a seat for: theirs is open.

Asking is accepting: the one who asks takes their seat in the same request (their
seat's token is in the answer, and the seat is bound to their account if they have one).

One rematch per game, however many ask and however often: the new game is made whole
(its table written, its creation appended) before the old table's `rematch` link is
claimed (HSETNX: the first claim wins). A request that loses the claim drops the game
it made, which nobody was told of, and answers the winner's; a crash before the claim
leaves a waiting game nobody holds, which expires as abandoned. With an Idempotency-Key
the answer is kept (sealed, `service.idempotency`) and repeated to the same key.

Every seat hears of it: a `rematch_offered` webhook message to each seat of the old game
with a webhook, and a notice to each player (`service.player_games`).
"""

import secrets
from typing import Any

from engine import table as protocol
from service import keys, seating
from service.auth import Credential
from service.errors import Conflict
from service.handlers import Handlers
from service.repository import Loaded
from service.scheduler import TurnScheduler
from service.tables import Seat, Table
from service.webhooks import message, send

# A seat already taken in the rematch (by the asker, in an earlier request) is no refusal.
ALREADY_SEATED = ("seat_taken", "already_seated", "no_open_seat")


class Rematches:
    def __init__(self, handlers: Handlers, scheduler: TurnScheduler) -> None:
        self.handlers = handlers
        self.repository = handlers.repository
        self.tables = handlers.tables
        self.scheduler = scheduler

    def offer(
        self, game_id: str, who: Credential, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """The rematch of a finished game, made once; the asker seated in it."""
        loaded = self.repository.load(game_id)
        seat = self.handlers.auth.acting_seat(loaded.table, who)
        if not loaded.game.is_finished(loaded.state):
            raise Conflict("game_not_finished", "A rematch is offered once the game is over.")
        if idempotency_key is None:
            return self._offer(loaded, seat)

        def where(digest: str) -> str:
            return keys.rematch_idempotency(game_id, digest)

        asked = {"game": game_id, "seat": seat}
        return self.handlers.kept.once(
            where, idempotency_key, asked, lambda: self._offer(loaded, seat)
        )

    def _offer(self, loaded: Loaded, seat: int) -> dict[str, Any]:
        old = loaded.table
        made = False
        new_id = old.rematch
        if new_id is None:
            candidate = self._make(loaded)
            new_id = self.tables.link(old.id, "rematch", candidate.id, only_new=True)
            if new_id != candidate.id:  # another request's claim came first
                self.tables.remove(candidate.id)
            else:
                made = True
                self.handlers.player_games.add(candidate)
                self._tell(old, loaded.version, candidate)
        joined = self._accept(new_id, old.seats[seat])
        table = self.tables.get(new_id)
        answer: dict[str, Any] = {
            "id": table.id,
            "rematch_of": old.id,
            "created": made,
            "status": table.status,
            "version": self.repository.events.version(table.id),
            "seats": table.public_seats(),
            "seed_commitment": table.seed_commitment,
        }
        if joined is not None:
            answer["joined"] = joined
        return answer

    def _make(self, loaded: Loaded) -> Table:
        """The new game, whole: its table written and its creation appended (waiting)."""
        old = loaded.table
        created = self.repository.events.read(old.id, after=0, upto=1)[0]
        setup = protocol.rematch_setup(loaded.game, created)
        server_seed = secrets.token_hex(32)
        step = protocol.create(setup, server_seed, "seed", "server", created["first_dealer"])
        table = Table(
            id=seating.new_game_id(),
            game=old.game,
            preset=old.preset,
            seats=tuple(_offered(seat) for seat in old.seats),
            server_seed=server_seed,
            created=self.handlers.now(),
            status="waiting",
            clock=setup.clock,
            rematch_of=old.id,
        )
        self.tables.add(table)
        self.handlers.open_table(table, step)
        return table

    def _accept(self, game_id: str, was: Seat) -> dict[str, Any] | None:
        """The asker's seat taken (the same number; reserved for them if they are a
        player); None when it is taken already (they asked before)."""
        table = self.tables.get(game_id)
        if table.status != "waiting" or not table.seats[was.number].is_empty:
            return None
        asked = Seat(-1, was.name, None, None, None, was.webhook, was.player)
        try:
            return self.handlers.sit(table, was.number, asked)
        except Conflict as refused:
            if refused.code in ALREADY_SEATED:
                return None
            raise

    def _tell(self, old: Table, version: int, new: Table) -> None:
        """Every seat of the old game hears of the rematch: webhooks, and players' news."""
        hooks = old.webhooks()
        offered = [
            message(old.id, seat, "rematch_offered", version, rematch=new.id) for seat in hooks
        ]
        send(self.scheduler, hooks, offered)
        for seat in old.seats:
            if seat.player:
                details = {"game": new.id, "rematch_of": old.id, "seat": seat.number}
                self.handlers.player_games.notify(seat.player, "rematch_offered", details)


def _offered(seat: Seat) -> Seat:
    """A seat of the old game as the rematch offers it (see the module's docstring)."""
    if seat.bot is not None:
        return Seat(seat.number, bot=seat.bot)
    if seat.player is not None:
        return Seat(seat.number, seat.name, player=seat.player, reserved=True)
    return Seat(seat.number)
