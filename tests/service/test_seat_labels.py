"""Every seat reads apart: bots and open seats are labelled by the game's name for the
seat (compass points at Spades, "Seat N" counted from 1 elsewhere), and the same label
is what the seats show (`label`), the sentences say and the sides are called.

No worker runs here, so the bots never move: the tests read the table as it was dealt.
"""

from engine import games
from service.table_records import Seat, Table
from tests.service.helpers import create_game, events, view

SPADES = games.get("spades")
THREE_STRONG_BOTS = [{"bot": "strong"}] * 3
SPADES_LABELS = ["ann", "West (strong bot)", "North (strong bot)", "East (strong bot)"]


def spades_with_three_bots(client) -> dict:
    """ann and three strong bots; seat 1 (West) deals, so North is first to act."""
    return create_game(
        client,
        seed="seat labels",
        game="spades",
        preset="pairs",
        seats=[{"name": "ann"}, *THREE_STRONG_BOTS],
        options={"first_dealer": 1},
    )


def labels(seats: list[dict]) -> list[str]:
    return [seat["label"] for seat in seats]


def test_spades_bots_of_one_level_read_apart_in_every_answer(client):
    created = spades_with_three_bots(client)
    game_id, token = created["id"], created["seats"][0]["token"]
    assert labels(created["seats"]) == SPADES_LABELS
    assert labels(view(client, game_id)["seats"]) == SPADES_LABELS
    assert labels(view(client, game_id, token)["seats"]) == SPADES_LABELS
    listed = client.get("/games?status=playing").get_json()["items"]
    assert labels(next(item for item in listed if item["id"] == game_id)["seats"]) == SPADES_LABELS
    # the partner sits opposite: North, seat 2, the same side as ann
    assert view(client, game_id)["sides"][0] == [0, 2]


def test_sentences_call_the_seats_by_their_labels(client):
    created = spades_with_three_bots(client)
    game_id, token = created["id"], created["seats"][0]["token"]
    told = {e["type"]: e["description"] for e in events(client, game_id, token)["events"]}
    assert told["hand_dealt"] == "Hand 1 was dealt by West (strong bot)."
    replay = client.get(
        f"/games/{game_id}/hands/1/replay", headers={"Authorization": f"Bearer {token}"}
    )
    assert replay.status_code == 200, replay.get_json()
    assert replay.get_json()["names"] == SPADES_LABELS


def test_the_sides_are_told_by_the_labels():
    """A hand's result names each side by its seats' labels: the same the seats show."""
    seats = (Seat(0, "ann"), *(Seat(n, bot="strong") for n in (1, 2, 3)))
    table = Table("g", "spades", "pairs", seats, "seed", 0.0, "playing")
    ended = {
        "type": "hand_ended",
        "hand": 1,
        "sides": [{"seats": [0, 2], "points": 60}, {"seats": [1, 3], "points": -40}],
    }
    told = SPADES.describe(ended, table.names())
    assert told == (
        "Hand 1 ended: ann & North (strong bot) +60, West (strong bot) & East (strong bot) -40."
    )


def test_other_games_count_their_seats_from_one(client):
    created = create_game(
        client, seed="rummy labels", seats=[{"name": "ann"}, {"bot": "greedy"}, {"bot": "greedy"}]
    )
    expected = ["ann", "Seat 2 (greedy bot)", "Seat 3 (greedy bot)"]
    assert labels(created["seats"]) == expected
    assert labels(view(client, created["id"])["seats"]) == expected
    waiting = create_game(client, seed="open label", seats=[{"open": True}, {"name": "bob"}])
    assert labels(waiting["seats"]) == ["Seat 1 (open)", "bob"]
    assert labels(view(client, waiting["id"])["seats"]) == ["Seat 1 (open)", "bob"]


def test_an_invited_seat_reads_as_the_awaited_player():
    seats = (Seat(0, "ann"), Seat(1, "bob", player="p-bob", reserved=True))
    table = Table("g", "rummy", None, seats, "seed", 0.0, "waiting")
    assert table.names() == ["ann", "bob (invited)"]
    assert [seat["label"] for seat in table.public_seats()] == ["ann", "bob (invited)"]
