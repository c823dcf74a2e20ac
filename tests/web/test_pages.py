"""The web pages as the server serves them (no browser): HTML, ES modules, CSS."""

import json
import re

import pytest

PAGES = ["/", "/play/some-game", "/replay/some-game"]


@pytest.fixture
def client(web_app):
    return web_app.test_client()


@pytest.mark.parametrize("path", PAGES)
def test_pages_are_html_with_their_module(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert '<meta name="viewport"' in html
    module = re.search(r'<script type="module" src="([^"]+)"', html).group(1)
    script = client.get(module)
    assert script.status_code == 200
    assert script.mimetype in ("text/javascript", "application/javascript")
    assert response.headers["Referrer-Policy"] == "no-referrer"


def test_lobby_offers_the_games_presets_and_bot_levels(client):
    html = client.get("/").get_data(as_text=True)
    found = re.search(r'<script type="application/json" id="config">(.*?)</script>', html)
    config = json.loads(found.group(1))
    rummy = next(game for game in config["games"] if game["name"] == "rummy")
    assert {"pagat", "block", "wrotham"} <= set(rummy["presets"])
    assert config["bot_levels"] == ["random", "greedy", "strong"]


def test_every_module_and_stylesheet_is_served(client):
    for name in ("api", "cards", "lobby", "play", "replay"):
        response = client.get(f"/assets/js/{name}.js")
        assert response.status_code == 200, name
        for imported in re.findall(r'from "\./([a-z]+\.js)"', response.get_data(as_text=True)):
            assert client.get(f"/assets/js/{imported}").status_code == 200
    css = client.get("/assets/css/cardtrail.css")
    assert css.status_code == 200 and css.mimetype == "text/css"


def test_game_ids_are_escaped_into_the_page(client):
    html = client.get('/play/"><script>alert(1)</script>').get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html


def test_pages_stay_out_of_the_api_contract(client):
    paths = client.get("/openapi.json").get_json()["paths"]
    assert not any(p == "/" or p.startswith(("/play", "/replay", "/assets")) for p in paths)


def test_unknown_assets_are_problems(client):
    response = client.get("/assets/js/nothing.js")
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"
