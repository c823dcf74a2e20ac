"""The web processes: gunicorn's settings for cardtrail, one place for `cardtrail serve`
and docker-compose alike."""

from typing import Any


def gunicorn_options(host: str, port: int, workers: int, threads: int) -> dict[str, Any]:
    """gthread workers: long-polls hold a thread each, so threads are plentiful."""
    return {
        "bind": f"{host}:{port}",
        "workers": workers,
        "worker_class": "gthread",
        "threads": threads,
        "timeout": 60,
        "graceful_timeout": 5,
        "accesslog": None,
    }
