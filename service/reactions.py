"""What an append sets going, as a list of small handlers.

Every append (a game created or started, a move, a time-out) is described once as an
`Appended` fact; each reaction reads it and does one thing: hand a bot its turn, keep
the clocks, notify the seats with webhooks, keep the status index, have a game that
ended rated. They run after the append, so none of them can undo or delay it; the
reconciler repairs what a crash between the two leaves undone (`cardtrail rebuild
ratings` the ratings).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.contract import Event, Game
from engine.events import GAME_ABANDONED, GAME_ENDED, TURN_STARTED
from service.player_games import PlayerGames
from service.scheduler import TurnScheduler
from service.tables import Table, TableStore
from service.webhooks import send, turn_messages


@dataclass(frozen=True)
class Appended:
    """One appended batch: the table, the rules, the states either side and its events."""

    table: Table
    game: Game[Any, Any]
    base_version: int  # the game's version before the batch
    events: list[Event]
    before: Any  # the state before (None for a game just created)
    state: Any  # the state after
    new_turns: list[int]  # the seats whose turn the batch began

    @property
    def version(self) -> int:
        return self.base_version + len(self.events)

    def acting(self) -> list[int]:
        return self.game.to_act(self.state)


Reaction = Callable[[Appended], None]


def bot_turns(scheduler: TurnScheduler) -> Reaction:
    """A bot to act gets its turn enqueued; a game that waited on one is forgotten."""

    def react(fact: Appended) -> None:
        bots = fact.table.bots_among(fact.acting())
        if bots:
            scheduler.bot_turn_due(fact.table.id, fact.version)
            return
        # A new game, or a human's move after a human's, needs no bookkeeping.
        waited = fact.before is not None and fact.table.bots_among(fact.game.to_act(fact.before))
        if waited:
            scheduler.no_bot_due(fact.table.id)

    return react


def clocks(scheduler: TurnScheduler) -> Reaction:
    """On a clocked table: remember each seat's turn and arm the humans' deadlines."""

    def react(fact: Appended) -> None:
        if fact.table.clock is None:
            return
        started = [
            (fact.base_version + index + 1, event)
            for index, event in enumerate(fact.events)
            if event["type"] == TURN_STARTED
        ]
        acting = set(fact.acting())
        ended = [seat for seat in range(fact.table.players) if seat not in acting]
        hooked = set(fact.table.webhooks())
        scheduler.turns_started(fact.table.id, started, ended, hooked, fact.table.humans())

    return react


def webhooks(scheduler: TurnScheduler) -> Reaction:
    """Seats with a webhook hear of their turn and of every hand's and the game's end."""

    def react(fact: Appended) -> None:
        hooks = fact.table.webhooks()
        if hooks:
            messages = turn_messages(
                fact.table.id, fact.version, fact.events, fact.new_turns, hooks
            )
            send(scheduler, hooks, messages)

    return react


def status_index(tables: TableStore) -> Reaction:
    """A finished game is listed as finished."""

    def react(fact: Appended) -> None:
        if fact.game.is_finished(fact.state) and fact.table.status != "finished":
            tables.set_status(fact.table, "finished")

    return react


def ratings(scheduler: TurnScheduler) -> Reaction:
    """A game that ended is rated by a worker (service/ratings.py)."""

    def react(fact: Appended) -> None:
        if any(event["type"] == GAME_ENDED for event in fact.events):
            scheduler.ratings_due(fact.table.id)

    return react


def sealing(scheduler: TurnScheduler) -> Reaction:
    """A game that ended (finished, forfeited or abandoned) is sealed into the archive
    by a worker (service/sealing.py); the reactions before this one have read the log."""

    def react(fact: Appended) -> None:
        if any(event["type"] in (GAME_ENDED, GAME_ABANDONED) for event in fact.events):
            scheduler.seal_due(fact.table.id)

    return react


def player_news(player_games: PlayerGames) -> Reaction:
    """The players bound to seats hear, in their own stream of news, what a webhook
    would tell their seat: their turn (with its deadline), the end of a hand or the game.
    A player holding several seats hears of an end once."""

    def react(fact: Appended) -> None:
        bound = {seat.number: seat.bound_to for seat in fact.table.seats if seat.bound_to}
        if not bound:
            return
        told: set[tuple[str, str]] = set()
        messages = turn_messages(fact.table.id, fact.version, fact.events, fact.new_turns, bound)
        for msg in messages:
            player = bound[msg["seat"]]
            if msg["kind"] != "your_turn" and (player, msg["kind"]) in told:
                continue
            told.add((player, msg["kind"]))
            details = {k: v for k, v in msg.items() if k not in ("game_id", "sent_at")}
            details = {"game": fact.table.id, "game_name": fact.table.game, **details}
            player_games.notify(player, msg["kind"], details)

    return react


def player_index(player_games: PlayerGames) -> Reaction:
    """A game that ended (or was abandoned) leaves its players' live games."""

    def react(fact: Appended) -> None:
        if any(event["type"] in (GAME_ENDED, GAME_ABANDONED) for event in fact.events):
            player_games.ended(fact.table)

    return react


class Reactions:
    def __init__(self, reactions: Sequence[Reaction]) -> None:
        self.reactions = list(reactions)

    def __call__(self, fact: Appended) -> None:
        for react in self.reactions:
            react(fact)
