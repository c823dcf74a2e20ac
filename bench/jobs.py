"""Jobs used only by the benchmarks (the worker imports them by name)."""

from rq import get_current_job


def noop(stream: str) -> None:
    """The baseline job: does nothing but say it ran, the way a bot's move becomes visible."""
    get_current_job().connection.xadd(stream, {"done": "1"})
