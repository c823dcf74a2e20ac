"""Accounts for the service tests: sign up, log in, personal tokens, over the HTTP API."""

from dataclasses import dataclass

from tests.service.helpers import auth

CSRF = "X-CSRF-Token"


@dataclass
class Account:
    id: str
    name: str
    password: str
    token: str  # a personal token (ctp_…)

    @property
    def headers(self) -> dict[str, str]:
        return auth(self.token)


def sign_up(client, name: str, password: str | None = None) -> dict:
    password = password or f"{name}'s long password"
    response = client.post("/players", json={"name": name, "password": password})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def log_in(client, name: str, password: str) -> str:
    """A session on `client`'s cookies; the CSRF token its writes must send."""
    response = client.post("/session", json={"name": name, "password": password})
    assert response.status_code == 200, response.get_json()
    return response.get_json()["csrf"]


def account(app, name: str, label: str = "tests") -> Account:
    """A player with a personal token, made as a client would: sign up, log in (a cookie
    client of its own), ask for a token with the session's CSRF token."""
    browser = app.test_client()
    password = f"{name}'s long password"
    player = sign_up(browser, name, password)
    csrf = log_in(browser, name, password)
    response = browser.post("/players/me/tokens", json={"label": label}, headers={CSRF: csrf})
    assert response.status_code == 201, response.get_json()
    return Account(player["id"], player["name"], password, response.get_json()["token"])


def bare(app):
    """A client that keeps no cookies: only what it sends in headers counts."""
    return app.test_client(use_cookies=False)
