"""The web pages as the server serves them (no browser): HTML, ES modules, CSS."""

import json
import posixpath
import re

import pytest

import service.api.pages
from engine import games

PAGES = {
    "/": "lobby",
    "/play/some-game": "play",
    "/replay/some-game": "replay",
    "/login": "login",
    "/me": "me",
    "/profile/ann": "profile",
    "/leaderboard": "leaderboard",
    "/leaderboard/rummy-2": "leaderboard",
}
MODULES = sorted(set(PAGES.values()))


@pytest.fixture
def client(web_app):
    return web_app.test_client()


@pytest.mark.parametrize("path", PAGES)
def test_pages_are_html_with_their_module(client, path):
    """Each page loads its own module first, then the top bar's (the account links)."""
    response = client.get(path)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert '<meta name="viewport"' in html
    modules = re.findall(r'<script type="module" src="([^"]+)"', html)
    assert modules == [f"/assets/js/{PAGES[path]}.js", "/assets/js/topbar.js"]
    for module in modules:
        script = client.get(module)
        assert script.status_code == 200
        assert script.mimetype in ("text/javascript", "application/javascript")
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert 'id="account-nav"' in html and 'href="/login"' in html


def test_lobby_offers_the_games_presets_and_bot_levels(client):
    html = client.get("/").get_data(as_text=True)
    found = re.search(r'<script type="application/json" id="config">(.*?)</script>', html)
    config = json.loads(found.group(1))
    presets = {game["name"]: set(game["presets"]) for game in config["games"]}
    assert {"pagat", "block", "wrotham"} <= presets["rummy"]
    assert presets["spades"] == {"pairs", "solo", "suicide", "whiz", "mirror"}
    bots = {game["name"]: game["bots"] for game in config["games"]}
    assert bots == {name: list(games.get(name).bots) for name in bots}  # each game's own
    assert bots["rummy"] == ["random", "greedy", "strong"]


def test_every_module_and_stylesheet_is_served(client):
    """Every page's module and everything it imports, followed through the import graph."""
    pending = [f"/assets/js/{name}.js" for name in (*MODULES, "topbar")]
    seen = set()
    while pending:
        url = pending.pop()
        if url in seen:
            continue
        seen.add(url)
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.mimetype in ("text/javascript", "application/javascript"), url
        for imported in re.findall(
            r'from "(\.{1,2}/[a-z/]+\.js)"', response.get_data(as_text=True)
        ):
            pending.append(posixpath.normpath(posixpath.join(posixpath.dirname(url), imported)))
    assert {
        "/assets/js/games/rummy.js",
        "/assets/js/games/spades.js",
        "/assets/js/cards.js",
        "/assets/js/account.js",
        "/assets/js/listing.js",
        "/assets/js/rematch.js",
    } <= seen
    css = client.get("/assets/css/cardtrail.css")
    assert css.status_code == 200 and css.mimetype == "text/css"


@pytest.mark.parametrize("page", ["/play/", "/replay/", "/profile/", "/leaderboard/"])
def test_names_in_the_address_are_escaped_into_the_page(client, page):
    html = client.get(page + '"><script>alert(1)</script>').get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html


def test_pages_stay_out_of_the_api_contract(client):
    paths = client.get("/openapi.json").get_json()["paths"]
    pages = ("/play", "/replay", "/assets", "/login", "/me", "/profile", "/leaderboard")
    assert not any(
        p == "/" or p in pages or p.startswith(tuple(f"{page}/" for page in pages)) for p in paths
    )


def test_unknown_assets_are_problems(client):
    response = client.get("/assets/js/nothing.js")
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"


def test_the_lobby_offers_exactly_the_games_the_pages_can_draw(client):
    """static/tables.json (what the lobby offers) names the modules games/index.js loads."""
    static = service.api.pages.PAGES / "static"
    offered = json.loads((static / "tables.json").read_text())
    index = (static / "js" / "games" / "index.js").read_text()
    loaded = re.findall(r'import (\w+) from "\./(\w+)\.js"', index)
    assert sorted(offered) == sorted(name for name, _ in loaded)
    assert all(name == module for name, module in loaded)
    assert set(offered) <= set(games.names())
