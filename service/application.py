"""The application layer: one path from a request to appended events.

Load (snapshot + events since), decide through the engine, append with the
expected version. HTTP handlers, workers and tools all call these functions, so
a move made by a bot is judged exactly like a move made over HTTP. Nothing here
knows the rules of a particular game: it talks to games through the registry.
"""

import hashlib
import hmac
import json
import secrets
import string
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import redis
from rq import Queue

from engine import IllegalMove, InvalidOptions, games, ledger, table
from engine.games import Game
from service import keys, scripts
from service.clock import Clock, split_options, turn_started
from service.store import EventStore, VersionConflict
from service.turns import NOTIFY_QUEUE, TurnDispatcher
from service.webhooks import WebhookRefused, check_url, message, queue_messages

SNAPSHOT_EVERY = 32  # fold at most this many events past the last snapshot
CACHE_GAMES = 2048  # states kept in process memory (a cache like the snapshots)


class ServiceError(Exception):
    """A refusal with an HTTP status, a stable code and a sentence for people."""

    def __init__(self, status: int, code: str, detail: str, field: str | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.field = field


@dataclass(frozen=True)
class Loaded:
    game_id: str
    game: Game
    meta: dict[str, Any]
    state: Any
    version: int
    last_hash: str


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


ID_ALPHABET = string.ascii_letters + string.digits


def _new_id() -> str:
    """12 letters and digits (71 bits): no "-" that a command line would take for an
    option (`cardtrail replay -x…`), no "_" to misread in a URL."""
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(12))


class GameService:
    def __init__(
        self,
        client: redis.Redis,
        allow_preset_deck: bool = False,
        queue_client: redis.Redis | None = None,
    ) -> None:
        self.redis = client
        self.turns = TurnDispatcher(queue_client or client, client)
        self.clock = Clock(self.turns.queue, client)
        self.notify_queue = Queue(NOTIFY_QUEUE, connection=queue_client or client)
        self.store = EventStore(client)
        self.allow_preset_deck = allow_preset_deck
        self._join = client.register_script(scripts.JOIN)
        self._cache: OrderedDict[str, tuple[int, Any, str]] = OrderedDict()
        self._cache_lock = threading.Lock()

    # -- creating and joining -------------------------------------------------

    def create(self, spec: dict[str, Any]) -> dict[str, Any]:
        name = spec.get("game", games.DEFAULT_GAME)
        seats_spec = spec["seats"]
        deck = spec.get("deck")
        if deck is not None and not self.allow_preset_deck:
            raise ServiceError(
                403,
                "preset_deck_disabled",
                "Explicit decks are for testing; this server does not accept them.",
                "deck",
            )
        try:
            game = games.get(name)
            game_options, clock = split_options(spec.get("options"))
            options = game.resolve_options(spec.get("preset"), game_options, len(seats_spec))
        except InvalidOptions as error:
            raise ServiceError(422, "invalid_options", error.reason, error.field) from None
        server_seed = spec.get("seed") or secrets.token_hex(32)
        game_id = _new_id()
        seats_out: list[dict[str, Any]] = []
        mapping: dict[str, Any] = {
            "game": name,
            "preset": spec.get("preset") or "",
            "players": len(seats_spec),
            "seed": server_seed,
            "created": time.time(),
            "deck": json.dumps(deck) if deck is not None else "",
            "clock": json.dumps(clock) if clock else "",
        }
        token_index: dict[str, str] = {}
        webhook_secrets: dict[int, str] = {}
        for seat, seat_spec in enumerate(seats_spec):
            if seat_spec.get("client_seed"):
                mapping[f"client_seed:{seat}"] = seat_spec["client_seed"]
            if seat_spec.get("webhook"):
                hook = self._register_webhook(seat_spec["webhook"], f"seats.{seat}.webhook")
                mapping[f"webhook:{seat}"] = json.dumps(hook)
                webhook_secrets[seat] = hook["secret"]
            if seat_spec.get("open"):
                mapping[f"seat:{seat}"] = "open"
                seats_out.append({"seat": seat, "open": True})
            elif seat_spec.get("bot"):
                mapping[f"seat:{seat}"] = json.dumps({"bot": seat_spec["bot"]})
                seats_out.append({"seat": seat, "bot": seat_spec["bot"]})
            else:
                token = secrets.token_urlsafe(32)
                digest = token_digest(token)
                mapping[f"seat:{seat}"] = json.dumps({"name": seat_spec["name"]})
                mapping[f"token:{seat}"] = digest
                token_index[digest] = game_id
                seats_out.append({"seat": seat, "name": seat_spec["name"], "token": token})
        created = game.created_event(
            options,
            len(seats_spec),
            self._first_dealer(options, server_seed, len(seats_spec)),
            "seed" if deck is None else "explicit",
        )
        created["seed_commitment"] = ledger.commitment(server_seed)
        if clock:
            created["clock"] = clock
        events = [created]
        waiting = any(s.get("open") for s in seats_spec)
        first_deal = self._start(game, game.evolve(None, created), mapping, deck)
        if not waiting:  # else it is dealt when the last seat fills (checked now all the same)
            events += first_deal
        status = "waiting" if waiting else "playing"
        mapping["status"] = status
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(keys.meta(game_id), mapping=mapping)
        if token_index:
            pipe.hset(keys.TOKENS, mapping=token_index)
        pipe.execute()
        state = table.fold(game, events)
        new_turns: list[int] = []
        if not waiting:
            events, new_turns = self._with_turns(game, mapping, None, state, events)
        version = self.store.append(
            game_id, 0, events, ledger.chain_start(game_id), command={"type": "create"}
        ).version
        self._index(game_id, status, mapping["created"])
        if not waiting:
            self._after_append(game_id, 0, events, game, None, state, mapping, new_turns)
        for seat, secret in webhook_secrets.items():
            seats_out[seat]["webhook_secret"] = secret
        return {"id": game_id, "version": version, "status": status, "seats": seats_out}

    @staticmethod
    def _first_dealer(options: Any, server_seed: str, players: int) -> int:
        """From the server seed alone: it must be fixed before every client seed is in."""
        chosen = getattr(options, "first_dealer", None)
        if chosen is not None:
            return chosen
        return table.first_dealer(table.seed_key(server_seed), players)

    @staticmethod
    def client_seeds(meta: dict[str, Any]) -> list[str | None]:
        return [meta.get(f"client_seed:{seat}") for seat in range(int(meta["players"]))]

    def deal_key(self, meta: dict[str, Any]) -> bytes:
        return ledger.deal_key(meta["seed"], self.client_seeds(meta))

    def _start(self, game: Game, state: Any, meta: dict[str, Any], deck: list[str] | None):
        """Once every seat is filled: record the client seeds, then deal the first hand."""
        command = table.deal_command(game, state, self.deal_key(meta))
        if deck is not None:
            command["deck"] = list(deck)
        try:
            return [table.players_seated(self.client_seeds(meta)), *game.decide(state, command)]
        except IllegalMove as error:
            raise ServiceError(422, "invalid_deck", error.message, "deck") from None

    def _index(self, game_id: str, status: str, created: float) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(keys.GAMES_BY_CREATION, {game_id: created})
        for other in ("waiting", "playing", "finished"):
            if other != status:
                pipe.zrem(keys.games_by_status(other), game_id)
        pipe.zadd(keys.games_by_status(status), {game_id: created})
        pipe.execute()

    def _register_webhook(self, url: str, field: str) -> dict[str, str]:
        try:
            check_url(url)
        except WebhookRefused as error:
            raise ServiceError(422, "webhook_refused", str(error), field) from None
        return {"url": url, "secret": secrets.token_urlsafe(24)}

    def webhooks(self, meta: dict[str, Any]) -> dict[int, dict[str, str]]:
        return {
            seat: json.loads(meta[f"webhook:{seat}"])
            for seat in range(int(meta["players"]))
            if meta.get(f"webhook:{seat}")
        }

    @staticmethod
    def clock_options(meta: dict[str, Any]) -> dict[str, Any] | None:
        return json.loads(meta["clock"]) if meta.get("clock") else None

    def join(
        self,
        game_id: str,
        name: str,
        seat: int | None,
        client_seed: str | None = None,
        webhook: str | None = None,
    ) -> dict[str, Any]:
        meta = self._meta(game_id)
        if seat is not None and not 0 <= seat < int(meta["players"]):
            raise ServiceError(422, "unknown_seat", "That seat is not at this table.", "seat")
        hook = self._register_webhook(webhook, "webhook") if webhook else None
        token = secrets.token_urlsafe(32)
        digest = token_digest(token)
        chosen, left = self._join(
            keys=[keys.meta(game_id)],
            args=[
                "" if seat is None else seat,
                json.dumps({"name": name}),
                digest,
                client_seed or "",
            ],
        )
        if chosen == -1:
            raise ServiceError(409, "no_open_seat", "Every seat at this table is taken.")
        if chosen == -2:
            raise ServiceError(409, "seat_taken", f"Seat {seat} is not open.", "seat")
        self.redis.hset(keys.TOKENS, digest, game_id)
        if hook:
            self.redis.hset(keys.meta(game_id), f"webhook:{int(chosen)}", json.dumps(hook))
        version = self.store.version(game_id)
        if left == 0:
            loaded = self.load(game_id)
            deck = json.loads(meta["deck"]) if meta.get("deck") else None
            events = self._start(loaded.game, loaded.state, loaded.meta, deck)
            state = table.fold(loaded.game, events, loaded.state)
            events, new_turns = self._with_turns(loaded.game, loaded.meta, None, state, events)
            version = self.store.append(
                game_id, loaded.version, events, loaded.last_hash, command={"type": "start"}
            ).version
            self.redis.hset(keys.meta(game_id), "status", "playing")
            self._index(game_id, "playing", float(meta["created"]))
            self._after_append(
                game_id, loaded.version, events, loaded.game, None, state, loaded.meta, new_turns
            )
        joined = {"seat": int(chosen), "token": token, "version": version}
        if hook:
            joined["webhook_secret"] = hook["secret"]
        return joined

    # -- reading ----------------------------------------------------------------

    def _meta(self, game_id: str) -> dict[str, Any]:
        return self._decode_meta(game_id, self.redis.hgetall(keys.meta(game_id)))

    @staticmethod
    def _decode_meta(game_id: str, raw: dict[bytes, bytes]) -> dict[str, Any]:
        if not raw:
            raise ServiceError(404, "game_not_found", f"There is no game {game_id!r}.")
        return {k.decode(): v.decode() for k, v in raw.items()}

    def load(self, game_id: str) -> Loaded:
        """The game's state now: cached state (or snapshot) plus the events since, folded."""
        with self._cache_lock:
            cached = self._cache.get(game_id)
        # One round trip when the state is cached: the meta and the events since.
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(keys.meta(game_id))
        if cached is None:
            pipe.hgetall(keys.snapshot(game_id))
        else:
            self.store.read_records_in(pipe, game_id, after=cached[0])
        meta_raw, rest = pipe.execute()
        meta = self._decode_meta(game_id, meta_raw)
        game = games.get(meta["game"])
        if cached is not None:
            version, state, last_hash = cached
            records = self.store.parse_records(rest)
        else:
            snapshot = self.store.decode_snapshot(rest, game.rules_version)
            version, state, last_hash = snapshot or (0, None, ledger.chain_start(game_id))
            records = self.store.records(game_id, after=version)
        state = table.fold(game, (record.event for record in records), state)
        if records:
            version, last_hash = records[-1].version, records[-1].hash
        if cached is None and len(records) >= SNAPSHOT_EVERY:
            self.store.save_snapshot(game_id, version, game.rules_version, state, last_hash)
        self._remember(game_id, version, state, last_hash)
        return Loaded(game_id, game, meta, state, version, last_hash)

    def _remember(self, game_id: str, version: int, state: Any, last_hash: str) -> None:
        with self._cache_lock:
            known = self._cache.get(game_id)
            if known is None or known[0] <= version:
                self._cache[game_id] = (version, state, last_hash)
                self._cache.move_to_end(game_id)
            while len(self._cache) > CACHE_GAMES:
                self._cache.popitem(last=False)

    def seat_of(self, game_id: str, token: str | None, meta: dict[str, Any]) -> int | None:
        """The seat this bearer token acts for (None without a token)."""
        if token is None:
            return None
        digest = token_digest(token)
        for seat in range(int(meta["players"])):
            stored = meta.get(f"token:{seat}")
            if stored and hmac.compare_digest(stored, digest):
                return seat
        if self.redis.hget(keys.TOKENS, digest) is not None:
            raise ServiceError(403, "token_for_another_game", "This token belongs to another game.")
        raise ServiceError(401, "unknown_token", "This token is not valid.")

    def seats(self, meta: dict[str, Any]) -> list[dict[str, Any]]:
        result = []
        for seat in range(int(meta["players"])):
            raw = meta.get(f"seat:{seat}", "open")
            info = {"open": True} if raw == "open" else json.loads(raw)
            result.append({"seat": seat, **info})
        return result

    def seat_names(self, meta: dict[str, Any]) -> list[str]:
        """What to call each seat in sentences: the player's name, the bot, or the seat."""
        names = []
        for info in self.seats(meta):
            if "name" in info:
                names.append(info["name"])
            elif "bot" in info:
                names.append(f"{info['bot']} bot (seat {info['seat']})")
            else:
                names.append(f"seat {info['seat']}")
        return names

    @staticmethod
    def shown_event(
        game: Game,
        event: dict[str, Any],
        seat: int | None,
        state: Any,
        version: int,
        names: list[str],
    ) -> dict[str, Any]:
        """An event as `seat` may see it, numbered and told in a sentence (the engine's)."""
        redacted = table.redact(game, event, seat, state)
        return {
            **redacted,
            "version": version,
            "description": table.describe(game, redacted, names),
        }

    def view(self, game_id: str, token: str | None) -> dict[str, Any]:
        loaded = self.load(game_id)
        seat = self.seat_of(game_id, token, loaded.meta)
        return self._view(loaded, seat)

    def _view(self, loaded: Loaded, seat: int | None) -> dict[str, Any]:
        meta = loaded.meta
        view = loaded.game.view(loaded.state, seat)
        seats = self.seats(meta)
        counts = view.get("hand_counts") or []
        scores = view.get("scores") or []
        for info in seats:
            if info["seat"] < len(counts):
                info["hand_count"] = counts[info["seat"]]
            if info["seat"] < len(scores):
                info["score"] = scores[info["seat"]]
        if self.clock_options(meta):
            for seat, turn in self.clock.turns(loaded.game_id).items():
                if seat < len(seats):
                    seats[seat]["deadline"] = turn["deadline"]
        status = meta.get("status", "playing")
        if loaded.game.is_finished(loaded.state):
            status = "finished"
        return {
            **view,
            "id": loaded.game_id,
            "game": meta["game"],
            "preset": meta.get("preset") or None,
            "options": loaded.state.options.as_dict(),
            "status": status,
            "version": loaded.version,
            "seats": seats,
        }

    def list_games(self, status: str | None, page: int, page_size: int) -> dict[str, Any]:
        index = keys.games_by_status(status) if status else keys.GAMES_BY_CREATION
        total = self.redis.zcard(index)
        start = (page - 1) * page_size
        ids = [i.decode() for i in self.redis.zrevrange(index, start, start + page_size - 1)]
        pipe = self.redis.pipeline(transaction=False)
        for game_id in ids:
            pipe.hgetall(keys.meta(game_id))
        items = []
        for game_id, raw in zip(ids, pipe.execute(), strict=True):
            if not raw:
                continue
            meta = {k.decode(): v.decode() for k, v in raw.items()}
            items.append(
                {
                    "id": game_id,
                    "game": meta["game"],
                    "preset": meta.get("preset") or None,
                    "status": meta.get("status"),
                    "created": float(meta["created"]),
                    "seats": self.seats(meta),
                }
            )
        return {"items": items, "page": page, "page_size": page_size, "total": total}

    def events(self, game_id: str, token: str | None, after: int, wait: float) -> dict[str, Any]:
        meta = self._meta(game_id)
        seat = self.seat_of(game_id, token, meta)
        if wait > 0 and self.store.version(game_id) <= after:
            self.store.wait(game_id, after, wait)
        loaded = self.load(game_id)
        events = self.store.read(game_id, after=after, upto=loaded.version)
        names = self.seat_names(loaded.meta)  # read after the wait: a seat may have filled
        shown = [
            self.shown_event(loaded.game, event, seat, loaded.state, after + index + 1, names)
            for index, event in enumerate(events)
        ]
        return {"version": loaded.version, "events": shown}

    def follow(self, game_id: str, token: str | None, after: int, seconds: float):
        """Server-Sent Events: each new event as the caller may see it, then wait for more.

        Ends after `seconds` (the client reconnects with Last-Event-ID); a comment line
        every 15 s keeps proxies from closing an idle stream.
        """
        meta = self._meta(game_id)
        seat = self.seat_of(game_id, token, meta)

        def stream():
            last = after
            deadline = time.monotonic() + seconds
            yield "retry: 2000\n\n"
            while time.monotonic() < deadline:
                loaded = self.load(game_id)
                names = self.seat_names(loaded.meta)
                records = self.store.records(game_id, after=last, upto=loaded.version)
                for record in records:
                    shown = self.shown_event(
                        loaded.game, record.event, seat, loaded.state, record.version, names
                    )
                    data = json.dumps(shown)
                    yield f"id: {record.version}\nevent: {record.event['type']}\ndata: {data}\n\n"
                    last = record.version
                if loaded.game.is_finished(loaded.state) and last >= loaded.version:
                    return
                wait = min(15.0, max(0.0, deadline - time.monotonic()))
                if wait <= 0:
                    return
                before = last
                self.store.wait(game_id, last, wait)
                if self.store.version(game_id) == before:
                    yield ": keep-alive\n\n"

        return stream()

    # -- moving -------------------------------------------------------------------

    def move(
        self,
        game_id: str,
        token: str | None,
        command: dict[str, Any],
        if_match: int | None = None,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        if token is None:
            self._meta(game_id)
            raise ServiceError(401, "missing_token", "Send your seat's token as a Bearer token.")
        loaded = self.load(game_id)
        seat = self.seat_of(game_id, token, loaded.meta)
        return self.act(game_id, seat, command, if_match, idempotency_key, loaded)

    def act(
        self,
        game_id: str,
        seat: int,
        command: dict[str, Any],
        if_match: int | None = None,
        idempotency_key: str | None = None,
        loaded: Loaded | None = None,
        prefix: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Decide and append one seat's command; the path every move takes.

        `prefix` are table events recorded in the same batch before the move's own
        (a time-out, when a clock's bot or forfeit acts for the seat).
        """
        request_digest = hashlib.sha256(
            json.dumps([seat, command], sort_keys=True).encode()
        ).hexdigest()
        idem = hashlib.sha256(idempotency_key.encode()).hexdigest() if idempotency_key else None
        if idem:
            record = self.store.idempotency_record(game_id, idem)
            if record is not None:
                return self._replayed(record, request_digest)
        loaded = loaded or self.load(game_id)
        if if_match is not None and if_match != loaded.version:
            raise ServiceError(
                412,
                "version_mismatch",
                f"The game is at version {loaded.version}, not {if_match}.",
            )
        if loaded.meta.get("status") == "waiting":
            raise ServiceError(409, "game_not_started", "The game waits for its open seats.")
        game = loaded.game
        seated_command = {**command, "seat": seat}
        try:
            state, events = table.play(
                game, loaded.state, seated_command, self.deal_key(loaded.meta)
            )
        except IllegalMove as error:
            status = 409 if error.code in ("not_your_turn", "game_over") else 422
            raise ServiceError(status, error.code, error.message) from None
        if game.is_finished(state):
            events = [*events, table.seed_revealed(loaded.meta["seed"])]
        events, new_turns = self._with_turns(
            game, loaded.meta, loaded.state, state, [*(prefix or []), *events]
        )
        version = loaded.version + len(events)
        names = self.seat_names(loaded.meta)
        response = {
            "version": version,
            "events": [
                self.shown_event(game, event, seat, state, loaded.version + i + 1, names)
                for i, event in enumerate(events)
            ],
        }
        record = {"request": request_digest, "response": response} if idem else None
        try:
            appended = self.store.append(
                game_id,
                loaded.version,
                events,
                loaded.last_hash,
                command=seated_command,
                idempotency=(idem, record) if idem else None,
            )
        except VersionConflict as conflict:
            raise ServiceError(
                409,
                "version_conflict",
                f"The game moved on (now at version {conflict.actual}); reload and try again.",
            ) from None
        if appended.replayed is not None:
            return self._replayed(appended.replayed, request_digest)
        self._remember(game_id, version, state, appended.last_hash)
        if version // SNAPSHOT_EVERY != loaded.version // SNAPSHOT_EVERY:
            self.store.save_snapshot(
                game_id, version, game.rules_version, state, appended.last_hash
            )
        self._after_append(
            game_id, loaded.version, events, game, loaded.state, state, loaded.meta, new_turns
        )
        return response

    def _with_turns(
        self,
        game: Game,
        meta: dict[str, Any],
        before: Any,
        after: Any,
        events: list[dict[str, Any]],
    ) -> tuple[list[dict[str, Any]], list[int]]:
        """The batch plus, on a clocked table, `turn_started` for each seat whose turn began."""
        acting = game.to_act(after)
        fresh_hand = before is None or any(e["type"] == "hand_dealt" for e in events)
        was = set() if fresh_hand else set(game.to_act(before))
        new_turns = [seat for seat in acting if seat not in was]
        clock = self.clock_options(meta)
        if clock and new_turns:
            now = time.time()
            events = events + [turn_started(seat, now, clock["seconds"]) for seat in new_turns]
        return events, new_turns

    def _after_append(
        self,
        game_id: str,
        base_version: int,
        events: list[dict[str, Any]],
        game: Game,
        before: Any,
        state: Any,
        meta: dict[str, Any],
        new_turns: list[int],
    ) -> None:
        """Everything an append sets going: bot turns, clocks, notifications, the index."""
        version = base_version + len(events)
        seats = self.seats(meta)
        hooks = self.webhooks(meta)
        waited = before is not None and self.turns.bots_to_act(seats, game.to_act(before))
        self.turns.after_append(
            game_id, version, self.turns.bots_to_act(seats, game.to_act(state)), bool(waited)
        )
        if self.clock_options(meta):
            started = [
                (base_version + index + 1, event)
                for index, event in enumerate(events)
                if event["type"] == "turn_started"
            ]
            acting = set(game.to_act(state))
            ended = [seat for seat in range(len(seats)) if seat not in acting]
            humans = {info["seat"] for info in seats if "bot" not in info}
            self.clock.started(game_id, started, ended, set(hooks), humans)
        if hooks:
            queue_messages(
                self.notify_queue, hooks, self._messages(game_id, version, events, new_turns, hooks)
            )
        if game.is_finished(state):
            self.redis.hset(keys.meta(game_id), "status", "finished")
            self._index(game_id, "finished", float(meta["created"]))

    @staticmethod
    def _messages(game_id, version, events, new_turns, hooks) -> list[dict[str, Any]]:
        messages = []
        deadlines = {e["seat"]: e["deadline"] for e in events if e["type"] == "turn_started"}
        for seat in new_turns:
            extra = {"deadline": deadlines[seat]} if seat in deadlines else {}
            messages.append(message(game_id, seat, "your_turn", version, **extra))
        for event in events:
            if event["type"] in ("hand_ended", "game_ended"):
                kind = event["type"]
                result = {
                    k: event.get(k) for k in ("winner", "winners", "scores", "hand") if k in event
                }
                messages += [message(game_id, seat, kind, version, result=result) for seat in hooks]
        return messages

    def bot_history(self, game_id: str, seat: int, state: Any, game: Game) -> list[dict]:
        """The current hand's events as `seat` saw them: a bot's memory, nothing more."""
        history: list[dict[str, Any]] = []
        newest = "+"
        while True:
            batch = self.redis.xrevrange(keys.events(game_id), newest, "-", count=128)
            for _entry_id, fields in batch:
                event = json.loads(fields[b"e"])
                history.append(table.redact(game, event, seat, state))
                if event["type"] in ("hand_dealt", "game_created"):
                    history.reverse()
                    return history
            if len(batch) < 128:
                history.reverse()
                return history
            newest = "(" + batch[-1][0].decode()

    @staticmethod
    def _replayed(record: dict[str, Any], request_digest: str) -> dict[str, Any]:
        if record["request"] != request_digest:
            raise ServiceError(
                422,
                "idempotency_key_reused",
                "This Idempotency-Key was already used for a different request.",
                "Idempotency-Key",
            )
        return record["response"]
