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


@main.command()
@click.option("--game", "game_name", default="rummy", show_default=True)
@click.option(
    "--bots",
    default="strong,greedy",
    show_default=True,
    help="One bot level per seat, comma-separated (random, greedy, strong).",
)
@click.option(
    "--games",
    "count",
    default=200,
    show_default=True,
    type=int,
    help="Deals; each is played once per seat rotation (mirrored).",
)
@click.option("--seed", default="simulate", show_default=True)
@click.option("--preset", default=None)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def simulate(
    game_name: str, bots: str, count: int, seed: str, preset: str | None, as_json: bool
) -> None:
    """Bot-vs-bot games in-process (no Redis), every deal mirrored across the seats."""
    import json
    import sys

    from tqdm import tqdm

    from engine.tournament import run_tournament

    names = [name.strip() for name in bots.split(",") if name.strip()]
    with tqdm(total=count * len(names), unit="game", file=sys.stderr, disable=as_json) as bar:

        def progress(done: int, total: int) -> None:
            bar.update(done - bar.n)

        summary = run_tournament(names, count, seed, game_name, preset, progress=progress)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    click.echo(
        f"{summary['games']} games ({count} deals × {len(names)} rotations), "
        f"{summary['hands']} hands"
    )
    for label, figures in summary["bots"].items():
        low, high = figures["win_rate_ci95"]
        click.echo(
            f"  {label:>10}: won {figures['wins']:g}/{figures['games']} "
            f"= {figures['win_rate']:.1%} (95% CI {low:.1%}–{high:.1%}), "
            f"{figures['points_per_hand']:.1f} points/hand, decisions "
            f"{figures['decision_ms_mean']:.2f} ms mean, {figures['decision_ms_p99']:.2f} ms p99"
        )
