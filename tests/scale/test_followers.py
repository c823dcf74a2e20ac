"""Thousands of followers on one web process (`cardtrail serve`'s gunicorn settings:
cooperative workers, the follower hub), real sockets on loopback: each follower hears of
each move of its game within a second, while health checks and moves stay quick."""

import pytest

from bench.followers import run


def check(figures: dict) -> None:
    assert figures["followers_connected"] == figures["followers"], figures
    assert not figures["follower_errors"], figures
    assert figures["missed"] == 0 and figures["late_over_1s"] == 0, figures
    assert figures["health_loaded_max_ms"] < 250, figures
    assert figures["ready_max_ms"] < 250, figures
    assert figures["move_max_ms"] < 250, figures


def test_a_thousand_followers_hear_every_move_within_a_second():
    check(run(followers=1000, games=100, moves=30, workers=True))


@pytest.mark.slow
def test_five_thousand_followers_hear_every_move_within_a_second():
    check(run(followers=5000, games=100, moves=40, workers=True))
