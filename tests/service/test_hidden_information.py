"""Hidden information: no response shows a seat another seat's hand or the stock.

The truth is the engine state folded from the store. After every move, every
seat and a spectator fetch the view and the whole event feed; the mover's own
move response is checked too. A card is allowed in a response only if it is the
viewer's own, or was public in that hand (upcard, discards, melds, lay-offs,
cards taken from the discard pile, hands shown when the hand ended).
"""

import random

from engine import games, table
from engine.cards import VALID_CARDS
from service.store import EventStore
from tests.service.accounts import account, bare
from tests.service.helpers import cards_in, create_game, move, tokens

GAME = games.get("rummy")
PLAYERS = 3
SEED = "hidden information"
# Short hands with a reshuffled stock: hands end, the stock is reused (a secret
# order), a second hand is dealt and the game finishes, all in ~70 moves.
OPTIONS = {
    "hand_size": 16,
    "stock_exhausted": "shuffle",
    "max_stock_reuses": 1,
    "game_end": "deals",
    "deals": 2,
}


class Truth:
    """What is secret when, computed from the stored (unredacted) events."""

    def __init__(self, raw_events):
        self.state = None
        self.hand_of_version = {}
        self.public = {}  # hand number -> cards shown to everyone in that hand
        self.final_stock = {}  # hand number -> its stock when it ended (never shown)
        self.dealt = {}  # hand number -> each seat's dealt cards
        hand = 0
        for version, event in enumerate(raw_events, start=1):
            self.state = table.fold(GAME, [event], self.state)
            kind = event["type"]
            if kind == "hand_dealt":
                hand = event["hand"]
                self.public[hand] = set(self.state.hand.discard_pile)  # the upcard
                self.dealt[hand] = [list(h) for h in self.state.hand.hands]
            self.hand_of_version[version] = hand
            shown = self.public.get(hand)
            if kind == "discarded" or (kind == "card_drawn" and event["source"] == "discard"):
                shown.add(event["card"])
            elif kind == "melded":
                shown.update(event["meld"]["cards"])
            elif kind in ("laid_off", "joker_swapped"):
                shown.add(event["card"])
                shown.update(event["result"]["cards"])
            elif kind == "hand_ended":
                for cards in event["hands"]:
                    shown.update(cards)
                self.final_stock[hand] = set(self.state.hand.stock)
        assert self.state == table.fold(GAME, raw_events)

    def secret(self, hand: int, viewer: int | None) -> set[str]:
        """Cards `viewer` must not see in anything about `hand`."""
        if hand == 0:
            return set(VALID_CARDS)  # the game's creation shows no card at all
        if hand in self.final_stock:
            return self.final_stock[hand] - self.public[hand]
        live = self.state.hand
        assert live.number == hand
        hidden = set(live.stock)
        for seat, cards in enumerate(live.hands):
            if seat != viewer:
                hidden.update(cards)
        return hidden - self.public[hand]


def check_events(truth, shown_events, viewer, where):
    assert shown_events, where
    for shown in shown_events:
        hand = truth.hand_of_version[shown["version"]]
        leaked = cards_in(shown) & truth.secret(hand, viewer)
        assert not leaked, (where, viewer, shown, leaked)
        kind = shown["type"]
        if kind == "hand_dealt":
            assert "deck" not in shown and "shuffle_key" not in shown, shown
            assert shown["hand"] == hand  # the hand's number
            if viewer is None:
                assert "cards" not in shown, shown
            else:
                assert shown["cards"] == truth.dealt[hand][viewer]
        elif kind == "stock_replenished":
            assert "stock" not in shown and shown["stock_count"] > 0, shown
        elif kind == "card_drawn" and shown["source"] == "stock":
            assert ("card" in shown) is (shown["seat"] == viewer), (viewer, shown)


def check_view(truth, view, viewer, where):
    hand = view["hand_number"]
    assert hand == truth.state.hand.number
    public_part = {k: v for k, v in view.items() if k not in ("last_hand", "result")}
    leaked = cards_in(public_part) & truth.secret(hand, viewer)
    assert not leaked, (where, viewer, leaked)
    if view["last_hand"] is not None:
        ended = view["last_hand"]["hand"]
        assert not cards_in(view["last_hand"]) & truth.secret(ended, viewer)
    assert not cards_in(view["result"])
    assert view["stock_count"] == len(truth.state.hand.stock)
    assert view["hand_counts"] == [len(h) for h in truth.state.hand.hands]
    if viewer is None:
        assert "you" not in view
    else:
        assert view["you"]["hand"] == list(truth.state.hand.hands[viewer])
        assert cards_in(view["you"]["legal_moves"]) <= set(truth.state.hand.hands[viewer])


def check_seed(truth, response):
    """The server seed (with the public client seeds, every deck) stays secret until the end."""
    if truth.state.status != "finished":
        assert SEED not in response.get_data(as_text=True)


def test_no_response_shows_another_seats_hand_or_the_stock(client, redis_client):
    created = create_game(client, seed=SEED, names=("ann", "bob", "cid"), options=OPTIONS)
    game_id, toks = created["id"], tokens(created)
    store = EventStore(redis_client)
    viewers = [*range(PLAYERS), None]
    rng = random.Random(3)
    seen_kinds = set()
    secrets_checked = 0
    moves = 0

    while True:
        raw = store.read(game_id)
        truth = Truth(raw)
        # The check has teeth: the stored events do hold what the responses must not.
        if truth.state.status == "playing":
            assert cards_in(raw) & truth.secret(truth.state.hand.number, None)
        views = {}
        for viewer in viewers:
            token = None if viewer is None else toks[viewer]
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            response = client.get(f"/games/{game_id}", headers=headers)
            check_seed(truth, response)
            views[viewer] = response.get_json()
            check_view(truth, views[viewer], viewer, "view")
            response = client.get(f"/games/{game_id}/events?after=0", headers=headers)
            check_seed(truth, response)
            feed = response.get_json()
            assert len(feed["events"]) == len(raw) == feed["version"]
            check_events(truth, feed["events"], viewer, "events")
            secrets_checked += len(truth.secret(truth.state.hand.number, viewer))
        if views[None]["status"] == "finished":
            break
        turn = views[None]["turn"]
        command = rng.choice(views[turn]["you"]["legal_moves"])
        response = move(client, game_id, toks[turn], command)
        assert response.status_code == 200, response.get_json()
        moves += 1
        after = Truth(store.read(game_id))
        check_seed(after, response)
        body = response.get_json()
        check_events(after, body["events"], turn, "move response")
        seen_kinds.update(event["type"] for event in body["events"])

    assert moves > 40
    assert {"stock_replenished", "hand_ended", "hand_dealt", "game_ended"} <= seen_kinds
    # Once the game is over the seed is revealed, so anyone can check the deals.
    assert feed["events"][-1].pop("description").startswith("The server's seed was revealed")
    assert feed["events"][-1] == {
        "type": "seed_revealed",
        "v": 1,
        "server_seed": SEED,
        "version": len(raw),
    }
    assert secrets_checked > 1000
    # The game list is public too: it shows no card at all.
    assert not cards_in(client.get("/games").get_json())


def test_no_inbox_notice_or_player_page_shows_a_hidden_card(app, redis_client):
    """The same truth, for what players see besides the table: after every move each
    player's inbox entry (whose newest event is told as their seat sees it) may show
    only what their seat may see; their notices (the player stream's frames) and public
    pages show no card at all."""
    ann, bob, cid = (account(app, name) for name in ("ann", "bob", "cid"))
    http = bare(app)
    seats = [{"me": True}, {"player": "bob"}, {"player": "cid"}]
    created = http.post("/games", json={"seats": seats, "options": OPTIONS}, headers=ann.headers)
    game_id = created.get_json()["id"]
    for player in (bob, cid):
        assert (
            http.post(f"/games/{game_id}/join", json={}, headers=player.headers).status_code == 201
        )
    players = [ann, bob, cid]  # seat 0, 1, 2
    shelf = app.extensions["cardtrail"].player_games
    store = EventStore(redis_client)
    rng = random.Random(5)
    checked = 0
    for _ in range(400):
        truth = Truth(store.read(game_id))
        for seat, player in enumerate(players):
            entry = next(g for g in http.get("/players/me/games", headers=player.headers)
                         .get_json()["items"] if g["id"] == game_id)  # fmt: skip
            told = entry.pop("last")
            assert not cards_in(entry), entry
            told_hand = truth.hand_of_version[told["version"]]
            assert not cards_in(told) & truth.secret(told_hand, seat), (seat, told)
            checked += bool(cards_in(told))
            assert not cards_in(shelf.news(player.id)), shelf.news(player.id)
            assert not cards_in(http.get(f"/players/{player.name}").get_json())
        shown = http.get(f"/games/{game_id}").get_json()
        if shown["status"] == "finished":
            break
        mover = players[shown["turn"]]
        mine = http.get(f"/games/{game_id}", headers=mover.headers).get_json()
        command = rng.choice(mine["you"]["legal_moves"])
        answer = http.post(f"/games/{game_id}/moves", json=command, headers=mover.headers)
        assert answer.status_code == 200, answer.get_json()
    else:
        raise AssertionError("the game did not finish")
    assert checked > 10  # the inbox did tell of cards a seat may see (its own draws, discards)
    kinds = {n["kind"] for player in players for n in shelf.news(player.id)}
    assert {"invited", "your_turn", "hand_ended", "game_ended"} <= kinds
