"""The `cardtrail` command. Heavy imports stay inside commands so `--help` is instant."""

import contextlib
import functools
import os
from pathlib import Path

import click

from cardtrail.local_redis import DEFAULT_DATA_DIR


@click.group()
def main() -> None:
    """cardtrail: card games where every move is on the record."""


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option(
    "--data-dir",
    default=DEFAULT_DATA_DIR,
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
@click.option(
    "--notify-workers",
    default=2,
    show_default=True,
    type=int,
    help="RQ worker processes for webhook deliveries (they run concurrently).",
)
def serve(
    host: str, port: int, data_dir: str, web_workers: int, bot_workers: int, notify_workers: int
) -> None:
    """Run the web app, its workers (restarted if they die) and, without REDIS_URL, an
    embedded Redis; one serve per data folder."""
    from cardtrail.serve import run

    run(
        host,
        port,
        data_dir,
        workers=web_workers,
        bot_workers=bot_workers,
        notify_workers=notify_workers,
    )


def _data_dir_option(command):
    return click.option(
        "--data-dir",
        default=DEFAULT_DATA_DIR,
        show_default=True,
        help="Without REDIS_URL: the data directory of the cardtrail serve whose Redis to use.",
    )(command)


def _archive(data_dir: str):
    """The archive store of sealed games: CARDTRAIL_ARCHIVE, else the data directory's
    (where a local serve seals them)."""
    from service import archives

    return archives.open_store(os.environ.get(archives.ENV) or str(Path(data_dir) / "archives"))


def _redis_url(data_dir: str) -> str:
    """REDIS_URL, else the Redis of the serve running on `data_dir`; else a usage error that
    says where it looked."""
    from cardtrail.local_redis import NoRedis, redis_url

    try:
        return redis_url(data_dir)
    except NoRedis as error:
        raise click.UsageError(str(error)) from None


@main.command()
@click.option("--burst", is_flag=True, help="Stop when the queue is empty.")
@click.option("--name", default=None, help="Worker name (default: RQ's).")
@click.option(
    "--queues",
    default="turns,notify",
    show_default=True,
    help="turns (bot turns, deadlines, reminders), notify (webhook deliveries), or both, "
    "in the order they are served.",
)
def worker(burst: bool, name: str | None, queues: str) -> None:
    """Run an RQ worker (REDIS_URL, or RQ_REDIS_URL for the queue)."""
    from workers.run import QUEUES, run_worker

    chosen = [queue.strip() for queue in queues.split(",") if queue.strip()]
    unknown = [queue for queue in chosen if queue not in QUEUES]
    if unknown or not chosen:
        raise click.BadParameter(f"choose from {', '.join(QUEUES)}", param_hint="--queues")
    run_worker(burst=burst, name=name, queues=chosen)


@main.command()
@click.argument("export_file", type=click.File("rb"))  # lines split at \n only
@click.option(
    "--receipts",
    "receipts_file",
    type=click.File("rb"),
    default=None,
    help="A player's receipts, one per line as the API returned them: each must match.",
)
@click.option(
    "--keys",
    "keys_file",
    type=click.File("rb"),
    default=None,
    help="The server's public keys (GET /keys), instead of those the export carries.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
def audit(export_file, receipts_file, keys_file, as_json: bool) -> None:
    """Audit an exported game (JSON Lines) offline: chain, receipts, seed, deals, moves."""
    import json

    from replays.audit import audit_export
    from replays.receipts import BadReceipts, parse_keys, parse_receipts

    try:
        receipts = parse_receipts(receipts_file) if receipts_file else []
        keys = parse_keys(json.loads(keys_file.read())) if keys_file else None
    except (BadReceipts, ValueError) as error:
        raise click.UsageError(str(error)) from None
    verdict = audit_export(export_file, receipts, keys)
    click.echo(json.dumps(verdict.as_dict(), indent=2) if as_json else verdict.summary())
    raise SystemExit(0 if verdict.ok else 1)


@main.command()
@click.argument("game_id")
@click.option("--hand", "number", type=int, default=None, help="Hand number (default: last).")
@click.option("--token", default=None, help="Your seat's token, to replay a hand in play.")
@_data_dir_option
def replay(game_id: str, number: int | None, token: str | None, data_dir: str) -> None:
    """Print a hand step by step (from REDIS_URL, else a local serve's Redis)."""
    from cardtrail.terminal import print_replay

    raise SystemExit(print_replay(_redis_url(data_dir), game_id, number, token, _archive(data_dir)))


@main.group()
def rebuild() -> None:
    """Recompute a projection from the event streams alone (REDIS_URL, else a local
    serve's Redis)."""


@rebuild.command("ratings")
@_data_dir_option
def rebuild_ratings(data_dir: str) -> None:
    """Every rating pool folded again from the finished games' logs, in the order they
    ended; the same numbers the workers keep up to date (docs/ratings.md)."""
    from service.ratings import Ratings
    from service.redis_server import connect
    from service.repository import Repository

    client = connect(_redis_url(data_dir))
    events = Repository(client, archive=_archive(data_dir)).events  # hot and sealed logs
    for pool, count in sorted(Ratings(client, events).rebuild().items()):
        click.echo(f"{pool}: {count} rated game{'' if count == 1 else 's'}")


@main.command()
@click.option(
    "--all-finished",
    is_flag=True,
    required=True,
    help="Seal every game that ended and is still in Redis (finished, forfeited, abandoned).",
)
@_data_dir_option
def archive(all_finished: bool, data_dir: str) -> None:
    """Seal the games that ended into the archive store (CARDTRAIL_ARCHIVE, else the data
    directory's) and drop their logs from Redis: for a store kept from before sealing."""
    from service import archives
    from service.redis_server import connect
    from service.sealing import seal_all_finished
    from service.signing import configured

    if os.environ.get("REDIS_URL") and not os.environ.get(archives.ENV):
        # that Redis's games belong in its deployment's store, not this data directory's
        raise click.UsageError(
            "REDIS_URL names a Redis of its own: say where its games are archived with "
            f"{archives.ENV} (the same setting its web and worker processes have)"
        )
    client = connect(_redis_url(data_dir))
    store = _archive(data_dir)
    assert store is not None  # a directory at least
    counts = seal_all_finished(client, store, configured())
    click.echo(", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items())) or "0 games")


@main.command()
@click.option("--game", "game_name", default="rummy", show_default=True)
@click.option(
    "--bots",
    default=None,
    help="Bot levels (the game's own, e.g. random, greedy, strong), comma-separated: one "
    "per seat, or, in a game played by sides (Spades pairs, suicide, whiz, mirror), one "
    "per side: a partnership match [default: strong,greedy].",
)
@click.option(
    "--players",
    type=click.IntRange(1, 12),
    default=None,
    help="Instead of bots: this many seats each playing a uniformly random legal move "
    "straight from the engine (fast, not mirrored); figures per seat.",
)
@click.option(
    "--games",
    "count",
    default=200,
    show_default=True,
    type=int,
    help="Deals; with --bots, each played once per seat rotation, or per side swap in a "
    "partnership match (mirrored).",
)
@click.option("--seed", default="simulate", show_default=True)
@click.option("--preset", default=None)
@click.option(
    "--workers",
    type=click.IntRange(0, 256),
    default=1,
    show_default=True,
    help="Processes playing the bots' games at once (0: one per CPU). The figures are the "
    "same for any number; decision times are each process's own.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def simulate(
    game_name: str,
    bots: str | None,
    players: int | None,
    count: int,
    seed: str,
    preset: str | None,
    workers: int,
    as_json: bool,
) -> None:
    """Bot-vs-bot (or, with --players, random-vs-random) games in-process, no Redis."""
    import json
    import sys

    from tqdm import tqdm

    from engine.errors import InvalidOptions
    from engine.simulation.tournament import run_match

    if players is not None:
        if bots is not None:
            raise click.UsageError("--players plays random moves: give --players or --bots.")
        _simulate_random(game_name, players, count, seed, preset, as_json)
        return
    names = [name.strip() for name in (bots or "strong,greedy").split(",") if name.strip()]
    with tqdm(unit="game", file=sys.stderr, disable=as_json) as bar:

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        try:
            with _game_mapper(workers) as mapper:
                summary = run_match(
                    names, count, seed, game_name, preset, progress=progress, mapper=mapper
                )
        except InvalidOptions as error:  # a wrong number of names, an unknown bot or preset
            raise click.UsageError(str(error)) from None
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        _print_match(summary)


def _print_match(summary: dict) -> None:
    games, deals, hands = summary["games"], summary["deals"], summary["hands"]
    if summary["sides"]:
        click.echo(
            f"{games} games ({deals} deals × 2 side swaps), {hands} hands; "
            "each bot plays both seats of its side"
        )
    else:
        rotations = summary["mirrored"]
        click.echo(f"{games} games ({deals} deals × {rotations} rotations), {hands} hands")
    for label, figures in summary["bots"].items():
        low, high = figures["win_rate_ci95"]
        click.echo(
            f"  {label:>10}: won {figures['wins']:g}/{figures['games']} "
            f"= {figures['win_rate']:.1%} (95% CI {low:.1%}–{high:.1%}), "
            f"{figures['points_per_hand']:.1f} points/hand, decisions "
            f"{figures['decision_ms_mean']:.2f} ms mean, {figures['decision_ms_p99']:.2f} ms p99"
        )


@contextlib.contextmanager
def _game_mapper(workers: int):
    """`map` in this process, or a process pool's map (games in order, a few per task)."""
    if workers == 1:
        yield map
        return
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers or None) as pool:
        yield functools.partial(pool.map, chunksize=2)


def _simulate_random(
    game_name: str, players: int, count: int, seed: str, preset: str | None, as_json: bool
) -> None:
    """`simulate --players`: random games (engine.simulation), a progress bar, figures per seat."""
    import json
    import sys
    import time

    from tqdm import tqdm

    from engine.errors import InvalidOptions
    from engine.simulation.random_play import simulate_random

    started = time.perf_counter()
    with tqdm(total=count, unit="game", file=sys.stderr, disable=as_json) as bar:
        try:
            summary = simulate_random(
                game_name, players, count, seed, preset, progress=lambda done: bar.update(1)
            )
        except InvalidOptions as error:
            raise click.UsageError(str(error)) from None
    seconds = time.perf_counter() - started
    summary.update(seconds=seconds, hands_per_second=summary["hands"] / seconds)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    click.echo(
        f"{count} games of {game_name} ({preset or 'default preset'}), {players} random seats: "
        f"{summary['hands']} hands, {summary['hands_per_game']:.1f} hands/game, "
        f"{seconds:.2f} s ({summary['hands_per_second']:.0f} hands/s)"
    )
    for figures in summary["seats"]:
        click.echo(
            f"  seat {figures['seat'] + 1}: won {figures['wins']:g}/{count} "
            f"= {figures['win_rate']:.1%}, {figures['points_per_hand']:.1f} points/hand"
        )


if __name__ == "__main__":
    main()
