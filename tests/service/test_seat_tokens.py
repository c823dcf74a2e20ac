"""A seat's token never begins like a personal token (`ctp_`): `token_urlsafe` can give
one (about one draw in 17 million), and the server would read it as a player's and
refuse it for good. Such a draw is drawn again."""

import secrets

import service.auth
from service.credentials import is_personal_token
from tests.service.helpers import auth, create_game


def test_a_draw_that_begins_like_a_personal_token_is_drawn_again(client, monkeypatch):
    real = secrets.token_urlsafe
    unlucky = iter([True, True])  # the first seat's first draw, the second seat's first

    def token_urlsafe(nbytes=None):
        made = real(nbytes)
        return "ctp_" + made[4:] if nbytes == 32 and next(unlucky, False) else made

    monkeypatch.setattr(service.auth.secrets, "token_urlsafe", token_urlsafe)
    created = create_game(client, seed="unlucky token")
    for seat in created["seats"]:
        assert not is_personal_token(seat["token"])
        answer = client.get(f"/games/{created['id']}", headers=auth(seat["token"]))
        assert answer.status_code == 200 and "you" in answer.get_json()
