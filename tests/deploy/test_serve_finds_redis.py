"""`cardtrail replay` and `cardtrail rebuild ratings` beside a running `cardtrail serve`, with
no REDIS_URL: they find its embedded Redis from the data directory (the address serve
keeps there while it runs), and say clearly when no serve is running."""

import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.deploy.test_compose_shape import _call, _healthy
from tests.deploy.test_serve import CARDTRAIL, _free_port, _interrupt, _serve
from tests.service.live import wait_until

RECORD = "redis-url"


def _command(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """A cardtrail command as typed in a shell where no REDIS_URL is set."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "RQ_REDIS_URL")}
    return subprocess.run(
        [CARDTRAIL, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def _finished_game(port: int) -> str:
    """A two-player game that ann resigns: over, so anyone may replay it face up."""
    status, created = _call(port, "POST", "/games", {"seats": [{"name": "ann"}, {"name": "bob"}]})
    assert status == 201
    game_id, token = created["id"], created["seats"][0]["token"]
    moved = _call(port, "POST", f"/games/{game_id}/moves", {"type": "forfeit"}, token=token)
    assert moved[0] == 200
    assert _call(port, "GET", f"/games/{game_id}")[1]["status"] == "finished"
    return game_id


def test_replay_and_rebuild_find_a_local_serves_redis(tmp_path):
    port, data = _free_port(), tmp_path / ".cardtrail"  # serve's default folder, in tmp_path
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    before = _command("replay", "some-game", cwd=tmp_path)
    assert before.returncode == 2
    assert f"no cardtrail serve is running on {data}" in before.stderr

    served = _serve(port, data)
    try:
        wait_until(lambda: _healthy(port), 30, "cardtrail serve")
        record = data / RECORD
        assert record.read_text().strip() == f"unix://{data / 'redis' / 'redis.sock'}"
        assert stat.S_IMODE(record.stat().st_mode) == 0o600
        game_id = _finished_game(port)

        replayed = _command("replay", game_id, cwd=tmp_path)  # the default ./.cardtrail
        assert replayed.returncode == 0, replayed.stderr
        assert f"Game {game_id}, hand 1:" in replayed.stdout and "(face up)" in replayed.stdout
        named = _command("replay", game_id, "--data-dir", str(data), cwd=elsewhere)
        assert named.returncode == 0 and named.stdout == replayed.stdout
        rebuilt = _command("rebuild", "ratings", cwd=tmp_path)
        assert rebuilt.returncode == 0, rebuilt.stderr
    finally:
        _interrupt(served)

    assert not (data / RECORD).exists()  # serve took its address away when it stopped
    after = _command("replay", game_id, cwd=tmp_path)
    assert after.returncode == 2 and f"no cardtrail serve is running on {data}" in after.stderr
    # A serve killed outright leaves its address behind; the Redis it names is gone.
    (data / RECORD).write_text(f"unix://{data / 'redis' / 'redis.sock'}\n")
    (data / RECORD).chmod(0o600)  # as serve leaves it
    stale = _command("rebuild", "ratings", cwd=tmp_path)
    assert stale.returncode == 2
    assert f"the cardtrail serve of {data} is not running" in stale.stderr


def test_a_record_that_serve_did_not_write_is_refused(tmp_path, monkeypatch):
    """A link, a file others may read, junk or a directory: each a clear refusal, never a
    traceback, and never a Redis someone else named."""
    from cardtrail import local_redis

    monkeypatch.delenv("REDIS_URL", raising=False)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("redis://127.0.0.1:6390/0\n")
    cases = {}
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "redis-url").symlink_to(elsewhere)
    cases["link"] = linked
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "redis-url").write_text("redis://127.0.0.1:6390/0\n")
    (shared / "redis-url").chmod(0o644)
    cases["shared"] = shared
    for name, content in (("junk", b"not a url\n"), ("bytes", b"\xff\xfe")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "redis-url").write_bytes(content)
        (folder / "redis-url").chmod(0o600)
        cases[name] = folder
    folder = tmp_path / "directory"
    (folder / "redis-url").mkdir(parents=True)
    cases["directory"] = folder
    for name, data_dir in cases.items():
        with pytest.raises(local_redis.NoRedis):
            local_redis.redis_url(data_dir)
        assert name  # each case refused


def test_a_password_in_the_address_is_not_shown(tmp_path, monkeypatch):
    from cardtrail import local_redis

    monkeypatch.delenv("REDIS_URL", raising=False)
    local_redis.record(tmp_path, "redis://:s3cretpw@127.0.0.1:1/0")
    with pytest.raises(local_redis.NoRedis) as refused:
        local_redis.redis_url(tmp_path)
    assert "s3cretpw" not in str(refused.value) and "***@127.0.0.1:1/0" in str(refused.value)
