"""The `cardtrail` command. Heavy imports stay inside commands so `--help` is instant."""

import click


@click.group()
def main() -> None:
    """cardtrail: card games where every move is on the record."""


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option(
    "--data-dir",
    default="./.cardtrail",
    show_default=True,
    help="Where the embedded Redis keeps its data and AOF (without REDIS_URL).",
)
@click.option("--web-workers", default=1, show_default=True, type=int)
@click.option(
    "--bot-workers",
    default=1,
    show_default=True,
    type=int,
    help="RQ worker processes started alongside (they play the bots).",
)
def serve(host: str, port: int, data_dir: str, web_workers: int, bot_workers: int) -> None:
    """Run the web app (and, with the embedded Redis, its bot workers)."""
    from service.serve import run

    run(host, port, data_dir, workers=web_workers, bot_workers=bot_workers)


@main.command()
@click.option("--burst", is_flag=True, help="Stop when the queue is empty.")
@click.option("--name", default=None, help="Worker name (default: RQ's).")
def worker(burst: bool, name: str | None) -> None:
    """Run an RQ worker that plays bot turns (REDIS_URL, or RQ_REDIS_URL for the queue)."""
    from workers.run import run_worker

    run_worker(burst=burst, name=name)


@main.command()
@click.argument("export_file", type=click.File("rb"))  # lines split at \n only
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
def audit(export_file, as_json: bool) -> None:
    """Audit an exported game (JSON Lines) offline: chain, seed, deals, moves."""
    import json

    from replays.audit import audit_export

    verdict = audit_export(export_file)
    click.echo(json.dumps(verdict.as_dict(), indent=2) if as_json else verdict.summary())
    raise SystemExit(0 if verdict.ok else 1)


@main.command()
@click.argument("game_id")
@click.option("--hand", "number", type=int, default=None, help="Hand number (default: last).")
@click.option("--token", default=None, help="Your seat's token, to replay a hand in play.")
def replay(game_id: str, number: int | None, token: str | None) -> None:
    """Print a hand step by step (REDIS_URL names the server's Redis)."""
    from replays.terminal import print_replay

    raise SystemExit(print_replay(game_id, number, token))
