"""docker-compose.yml cannot run here (no Docker engine), so this test starts the
same processes by hand, with the commands read from the compose file itself: Redis
with its AOF settings, the web app under gunicorn, the bot workers and the webhook
notifiers; then a game against a bot is played over HTTP with a webhook on the seat.
The web's healthcheck command is run as Docker would run it: it fails while no worker
serves a queue and once Redis is gone, and passes while the service can play."""

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import redis
import yaml

from service.archives import ENV as ARCHIVE_ENV
from service.redis_server import redis_binary
from tests.service.live import ALLOW_PRIVATE, Receiver, wait_until

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_REDIS = "redis://redis:6379"
DEFAULTED = re.compile(r"\$\{\w+:-([^}]*)\}")  # `${NAME:-default}`, NAME unset here


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _call(port, method, path, body=None, token=None):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode() if body is not None else None,
        method=method,
        headers={"Content-Type": "application/json"},
    )
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


def _command(service: dict) -> list[str]:
    """The service's command, its program taken from this environment's bin folder."""
    command = list(service["command"])
    command[0] = str(Path(sys.executable).with_name(command[0]))
    return command


def _environment(service: dict, redis_port: int, volumes: Path) -> dict[str, str]:
    """The service's environment as compose gives it with no variable set, its Redis and
    its volumes (`/keys`, `/data`) found here, and a home of its own, as a container has
    (gunicorn keeps its control socket there)."""
    env = {
        name: DEFAULTED.sub(r"\1", value)
        .replace(COMPOSE_REDIS, f"redis://127.0.0.1:{redis_port}")
        .replace("/keys/", f"{volumes}/keys/")
        .replace("/data/", f"{volumes}/data/")
        for name, value in service["environment"].items()
    }
    # The receiver runs on localhost, which webhooks refuse unless allowed.
    return {**env, ALLOW_PRIVATE: "1", "PATH": "", "HOME": str(volumes / "home")}


def _healthcheck(service: dict, port: int) -> list[str]:
    """The service's healthcheck as Docker runs it in the container, with this
    environment's Python and the port the web was bound to here."""
    kind, program, *args = service["healthcheck"]["test"]
    assert kind == "CMD" and program == "python"
    bound = service["command"][service["command"].index("--bind") + 1].rsplit(":", 1)[1]
    assert f"127.0.0.1:{bound}/health/ready" in args[-1]
    return [sys.executable, *args[:-1], args[-1].replace(f":{bound}/", f":{port}/")]


def _passes(command: list[str]) -> bool:
    return subprocess.run(command, capture_output=True, timeout=10).returncode == 0


def test_compose_services_run_as_declared(tmp_path):
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"redis", "web", "worker", "notifier", "postgres"}
    assert "--appendonly" in services["redis"]["command"]
    assert services["worker"]["command"][-2:] == ["--queues", "turns"]
    assert services["notifier"]["command"][-2:] == ["--queues", "notify"]
    assert {name: s.get("restart") for name, s in services.items()} == dict.fromkeys(
        services, "unless-stopped"
    )
    assert services["notifier"]["deploy"]["replicas"] == 2

    redis_port, web_port = _free_port(), _free_port()
    redis_args = services["redis"]["command"][1:]
    processes = [
        subprocess.Popen(
            [redis_binary(), *redis_args, "--port", str(redis_port), "--dir", str(tmp_path)],
            stdout=subprocess.DEVNULL,
        )
    ]
    web_cmd = _command(services["web"])
    web_cmd[web_cmd.index("--bind") + 1] = f"127.0.0.1:{web_port}"
    receiver = Receiver()
    try:
        client = redis.Redis(port=redis_port)
        wait_until(lambda: _ping(client), 10, "Redis")
        assert client.config_get("appendonly")["appendonly"] == "yes"
        processes.append(
            subprocess.Popen(
                web_cmd, env=_environment(services["web"], redis_port, tmp_path), cwd=ROOT
            )
        )
        wait_until(lambda: _live(web_port), 20, "the web app")
        healthcheck = _healthcheck(services["web"], web_port)
        assert not _passes(healthcheck)  # it answers, but no worker serves the queues yet
        for name in ("worker", "notifier"):
            for _ in range(services[name]["deploy"]["replicas"]):
                processes.append(
                    subprocess.Popen(
                        _command(services[name]),
                        env=_environment(services[name], redis_port, tmp_path),
                        cwd=ROOT,
                        start_new_session=True,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                )
        wait_until(lambda: _passes(healthcheck), 30, "the web's healthcheck to pass")
        # each gunicorn worker keeps its own answer for a second: both say ready soon
        wait_until(lambda: all(_healthy(web_port) for _ in range(4)), 5, "every answer ready")
        # gunicorn's control socket: under the home, which in a container is its own
        assert (tmp_path / "home" / ".gunicorn" / "gunicorn.ctl").is_socket()

        seats = [{"name": "ann", "webhook": receiver.url}, {"bot": "greedy"}]
        options = {"first_dealer": 1}  # ann plays first
        status, created = _call(web_port, "POST", "/games", {"seats": seats, "options": options})
        assert status == 201
        game_id, token = created["id"], created["seats"][0]["token"]
        base = f"/games/{game_id}"
        for _ in range(2):  # ann draws, then discards
            _, view = _call(web_port, "GET", base, token=token)
            legal = view["you"]["legal_moves"]
            move = next((m for m in legal if m["type"] == "discard"), legal[0])
            assert _call(web_port, "POST", f"{base}/moves", move, token=token)[0] == 200
        # The bot's reply, played by a worker started from the compose command.
        wait_until(lambda: _call(web_port, "GET", base)[1]["turn"] == 0, 20, "the bot's turn")
        # Ann's two your_turn messages, delivered by the notifier.
        wait_until(lambda: len(receiver.messages("your_turn")) == 2, 20, "the notifier")
        assert any(tmp_path.glob("appendonly*"))
        # Ann resigns: the game ends, and a worker seals it into the shared archives volume.
        assert _call(web_port, "POST", f"{base}/moves", {"type": "forfeit"}, token=token)[0] == 200
        archives = tmp_path / "data" / "archives"
        wait_until(lambda: any(archives.rglob("*.zst")), 20, "a worker to seal the game")
        wait_until(lambda: not client.exists(f"cardtrail:game:{{{game_id}}}:events"), 10, "purge")
        status, final = _call(web_port, "GET", base, token=token)
        assert status == 200 and final["status"] == "finished"  # read from the archive
        assert client.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"
        # Both gunicorn workers sign with the one key the compose file names, kept 0600.
        key_file = tmp_path / "keys" / "signing-key.pem"
        assert key_file.stat().st_mode & 0o077 == 0
        assert "signing-keys:/keys" in services["web"]["volumes"]
        listed = _call(web_port, "GET", "/keys")[1]["keys"]
        assert [key["key_id"] for key in listed] == [created["receipt"]["key_id"]]
        processes[0].kill()  # Redis
        processes[0].wait(10)
        wait_until(lambda: not _passes(healthcheck), 10, "the healthcheck to fail without Redis")
        assert _live(web_port)
    finally:
        receiver.close()
        for proc in reversed(processes):
            with contextlib.suppress(ProcessLookupError):
                if os.getpgid(proc.pid) == proc.pid:  # a worker: its scheduler goes with it
                    os.killpg(proc.pid, signal.SIGTERM)
                else:
                    proc.terminate()
        for proc in processes:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_archives_are_shared_and_postgresql_is_opt_in():
    """Web and workers name one archive store: by default a directory on a volume both
    mount; PostgreSQL runs only under its profile, and the image can reach it."""
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    for name in ("web", "worker", "notifier"):
        assert services[name]["environment"][ARCHIVE_ENV] == "${CARDTRAIL_ARCHIVE:-/data/archives}"
        assert "archives:/data/archives" in services[name]["volumes"]
    postgres = services["postgres"]
    assert postgres["profiles"] == ["postgres"]
    assert postgres["image"] == "postgres:16"
    assert postgres["environment"]["POSTGRES_DB"] == "cardtrail"
    assert postgres["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:-")
    assert postgres["healthcheck"]["test"][:2] == ["CMD", "pg_isready"]
    assert any(volume.endswith(":/var/lib/postgresql/data") for volume in postgres["volumes"])
    assert 'pip install --no-cache-dir ".[postgresql]"' in (ROOT / "Dockerfile").read_text()


def _ping(client: redis.Redis) -> bool:
    try:
        return client.ping()
    except redis.ConnectionError:
        return False


def _answers(port: int, path: str) -> bool:
    try:
        return _call(port, "GET", path)[0] == 200
    except OSError:  # refused, or an HTTPError (a 503)
        return False


def _live(port: int) -> bool:
    """The process answers (it may have no worker yet)."""
    return _answers(port, "/health/live")


def _healthy(port: int) -> bool:
    """Ready to play: Redis answers and a live worker serves each queue."""
    return _answers(port, "/health/ready")
