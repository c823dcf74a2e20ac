"""Spades through the same service as Rummy: created, played, replayed, exported and
audited with the same endpoints — no Spades code outside engine/."""

import random

from replays.audit import audit_export
from tests.service.helpers import auth


def test_a_spades_game_over_http_is_replayed_exported_and_audited(client):
    created = client.post(
        "/games",
        json={
            "game": "spades",
            "preset": "pairs",
            "options": {"max_hands": 2},
            "seats": [{"name": name} for name in ("ann", "bob", "cid", "dee")],
        },
    ).get_json()
    game_id = created["id"]
    tokens = [seat["token"] for seat in created["seats"]]
    rng = random.Random(4)
    for _ in range(1000):
        table = client.get(f"/games/{game_id}").get_json()
        if table["status"] == "finished":
            break
        token = tokens[table["turn"]]
        mine = client.get(f"/games/{game_id}", headers=auth(token)).get_json()
        assert "hands" not in mine
        move = rng.choice(mine["you"]["legal_moves"])
        answer = client.post(f"/games/{game_id}/moves", json=move, headers=auth(token))
        assert answer.status_code == 200, (move, answer.get_json())
    assert table["status"] == "finished"
    hands = client.get(f"/games/{game_id}/hands").get_json()["hands"]
    assert [hand["number"] for hand in hands] == [1, 2] and all(h["finished"] for h in hands)
    last = client.get(f"/games/{game_id}/hands/1/replay?step={hands[0]['steps']}").get_json()
    assert last["face_up"] and len(last["state"]["hands"]) == 4
    steps = client.get(f"/games/{game_id}/hands/1/replay").get_json()["events"]
    assert any(" bid " in step["description"] for step in steps)
    assert any(" played " in step["description"] for step in steps)
    assert client.get(f"/games/{game_id}/audit").get_json()["ok"]
    export = client.get(f"/games/{game_id}/export").get_data(as_text=True).splitlines()
    assert audit_export(export).ok
