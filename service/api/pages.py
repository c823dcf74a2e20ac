"""The web pages: lobby, table, replay viewer, logging in, My games, a player's page and
the leaderboard, served by the API's own Flask app.

Plain Flask (not part of the OpenAPI contract): HTML pages and their static files (ES
modules and CSS, no build step). The pages talk to the JSON API only; a logged-in
player's session cookie goes with their requests, so the pages never see it.
A page's address never shadows an API path: a player's page is /profile/<name>
(/players/<name> is its JSON), the leaderboard /leaderboard (the JSON is /ratings).
Seat tokens never appear in a URL the server sees: pages keep them in the
browser's localStorage, and a shareable link carries one in the URL fragment.
"""

import json
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, render_template

from engine import games

PAGES = Path(__file__).resolve().parent.parent  # service/: static/ and templates/

web = Blueprint(
    "web",
    __name__,
    static_folder=PAGES / "static",
    static_url_path="/assets",
    template_folder=PAGES / "templates",
)


# The games the pages know how to draw (each has a module in static/js/games/): a list
# kept beside the pages' scripts, since drawing a game is the pages' business.
TABLE_GAMES = tuple(json.loads((PAGES / "static" / "tables.json").read_text()))


def _config() -> dict[str, Any]:
    """What the lobby's form offers: the games, their presets and their bots' levels."""
    offered = [games.get(name) for name in games.names() if name in TABLE_GAMES]
    return {
        "games": [
            {"name": game.name, "presets": list(game.presets), "bots": list(game.bots)}
            for game in offered
        ],
    }


def _page(template: str, **context: Any) -> Response:
    response = Response(render_template(template, config=_config(), **context))
    # The pages hold no secrets, but keep them out of shared caches and referrers.
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cache-Control"] = "no-cache"
    return response


@web.get("/")
def lobby() -> Response:
    return _page("lobby.html", page="lobby")


@web.get("/play/<game_id>")
def play(game_id: str) -> Response:
    return _page("play.html", page="play", game_id=game_id)


@web.get("/replay/<game_id>")
def replay(game_id: str) -> Response:
    return _page("replay.html", page="replay", game_id=game_id)


@web.get("/login")
def login() -> Response:
    return _page("login.html", page="login")


@web.get("/me")
def my_games() -> Response:
    return _page("me.html", page="me")


@web.get("/profile/<name>")
def profile(name: str) -> Response:
    return _page("profile.html", page="profile", player_name=name)


@web.get("/leaderboard")
@web.get("/leaderboard/<pool>")
def leaderboard(pool: str | None = None) -> Response:
    return _page("leaderboard.html", page="leaderboard", pool=pool)
