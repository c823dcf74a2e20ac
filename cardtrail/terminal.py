"""`cardtrail replay`: a hand, step by step, in the terminal."""

from typing import Any

import click

from engine import games
from engine.cards import pretty


def _cards(cards: list[str]) -> str:
    return " ".join(pretty(card) for card in cards) or "—"


def print_replay(
    url: str, game_id: str, number: int | None, token: str | None, archive: Any = None
) -> int:
    """The hand from the Redis at `url` (a sealed game's from `archive`); the exit
    status (1: the server refused)."""
    from service.errors import ServiceError
    from service.history import History
    from service.redis_server import connect
    from service.repository import Repository

    history = History(Repository(connect(url), archive=archive))
    try:
        hands = history.hands(game_id)["hands"]
        if not hands:
            click.echo("This game has not been dealt yet.")
            return 0
        chosen = number if number is not None else hands[-1]["number"]
        steps = history.replay(game_id, chosen, token, None)
        last = history.replay(game_id, chosen, token, steps["steps"])["state"]
    except ServiceError as error:
        click.echo(f"{error.code}: {error.detail}", err=True)
        return 1
    click.echo(
        f"Game {game_id}, hand {chosen}: {steps['steps']} steps"
        + (" (face up)" if steps["face_up"] else "")
    )
    for step, event in enumerate(steps["events"]):
        click.echo(f"{step:>4}  {event['description']}")
    click.echo("")
    _print_table(last, steps["names"])
    return 0


def _print_table(last: dict[str, Any], names: list[str]) -> None:
    """Each seat's cards (or how many, when hidden) and score, then the public cards."""
    for seat, name in enumerate(names):
        cards = last.get("hands", [None] * len(names))[seat]
        if cards is None and last.get("you", {}).get("seat") == seat:
            cards = last["you"]["hand"]
        counts = last.get("hand_counts") or []
        hidden = f"{counts[seat]} cards" if seat < len(counts) else "hidden"
        shown = _cards(cards) if cards is not None else hidden
        click.echo(f"  {name}: {shown}   score {last['scores'][seat]}")
    game = games.get(last["game"])
    for field, kind in game.view_fields.items():  # the game's public card fields
        value = last.get(field)
        if kind == "card_list" and value is not None:
            click.echo(f"  {field.replace('_', ' ')}: {_cards(value)}")
        elif kind == "dicts" and value:
            for item in value:
                if isinstance(item, dict) and "cards" in item:
                    label = item.get("id", "")
                    click.echo(f"  {field.rstrip('s')} {label}: {_cards(item['cards'])}")
