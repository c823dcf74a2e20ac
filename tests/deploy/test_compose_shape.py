"""docker-compose.yml cannot run here (no Docker engine), so this test starts the
same processes by hand, with the commands read from the compose file itself:
Redis with its AOF settings, the web app under gunicorn, and a game played over HTTP."""

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import redis
import yaml

from service.redis_server import redis_binary

ROOT = Path(__file__).resolve().parents[2]


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


def test_compose_services_run_as_declared(tmp_path):
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) >= {"redis", "web", "worker"}
    assert "--appendonly" in services["redis"]["command"]

    redis_port, web_port = _free_port(), _free_port()
    redis_args = services["redis"]["command"][1:]
    redis_proc = subprocess.Popen(
        [redis_binary(), *redis_args, "--port", str(redis_port), "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )
    web_cmd = [a for a in services["web"]["command"]]
    web_cmd[web_cmd.index("--bind") + 1] = f"127.0.0.1:{web_port}"
    web_cmd[0] = str(Path(sys.executable).with_name(web_cmd[0]))
    env_url = services["web"]["environment"]["REDIS_URL"].replace(
        "redis://redis:6379", f"redis://127.0.0.1:{redis_port}"
    )
    web_proc = None
    try:
        client = redis.Redis(port=redis_port)
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        assert client.config_get("appendonly")["appendonly"] == "yes"
        web_proc = subprocess.Popen(web_cmd, env={"REDIS_URL": env_url, "PATH": ""}, cwd=ROOT)
        for _ in range(200):
            try:
                if _call(web_port, "GET", "/health")[0] == 200:
                    break
            except OSError:
                time.sleep(0.05)
        status, created = _call(
            web_port, "POST", "/games", {"seats": [{"name": "ann"}, {"name": "bob"}]}
        )
        assert status == 201
        tokens = [seat["token"] for seat in created["seats"]]
        _, view = _call(web_port, "GET", f"/games/{created['id']}", token=tokens[0])
        turn = view["turn"]
        status, moved = _call(
            web_port,
            "POST",
            f"/games/{created['id']}/moves",
            {"type": "draw", "source": "stock"},
            token=tokens[turn],
        )
        assert status == 200 and moved["version"] == created["version"] + 1
        assert (tmp_path / "appendonly.aof").exists() or any(tmp_path.glob("appendonly*"))
    finally:
        if web_proc:
            web_proc.terminate()
            web_proc.wait(10)
        redis_proc.terminate()
        redis_proc.wait(10)
