"""The list of games is tagged like a view, so a lobby polling it every few seconds is
answered 304 (no body) until a game comes, goes or changes, and sees the change at once."""


def test_the_list_is_answered_304_until_a_game_changes_it(client):
    empty = client.get("/games?status=waiting")
    tag = empty.headers["ETag"]
    assert empty.status_code == 200 and empty.get_json()["items"] == []
    again = client.get("/games?status=waiting", headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.get_data() == b""
    # Another page size is another answer, with its own tag.
    other = client.get("/games?status=waiting&page_size=5", headers={"If-None-Match": tag})
    assert other.status_code == 200 and other.headers["ETag"] != tag

    created = client.post("/games", json={"seats": [{"name": "ann"}, {"open": True}]})
    game_id = created.get_json()["id"]
    listed = client.get("/games?status=waiting", headers={"If-None-Match": tag})
    assert listed.status_code == 200
    assert [item["id"] for item in listed.get_json()["items"]] == [game_id]
    assert listed.headers["ETag"] != tag

    # Someone sitting down changes the list (the seat's name, the status) without a new game.
    seated = listed.headers["ETag"]
    assert client.post(f"/games/{game_id}/join", json={"name": "bob"}).status_code == 201
    after = client.get("/games?status=waiting", headers={"If-None-Match": seated})
    assert after.status_code == 200 and after.get_json()["items"] == []


def test_the_list_carries_no_private_marks(client):
    """The same for everyone: a tag, but no Vary on Authorization and no private caching."""
    listed = client.get("/games")
    assert listed.headers["ETag"]
    assert "Authorization" not in listed.headers.get("Vary", "")
    assert "private" not in listed.headers.get("Cache-Control", "")
