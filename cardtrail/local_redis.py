"""How the commands that read the game store (`replay`, `rebuild ratings`) find
the Redis of a `cardtrail serve` running on this machine, with no REDIS_URL typed by hand.

While it runs, serve keeps the address of its Redis (the embedded one's Unix socket, or
the REDIS_URL it was given) in `redis-url` in its data directory, readable by its owner
only like the rest of the folder, and removes it when it stops. REDIS_URL, when set,
still wins; otherwise a command reads that file in its own `--data-dir` (the same
default as serve's, `./.cardtrail`) and checks that the Redis answers, so a serve that
was killed outright is told apart from one that runs.
"""

import contextlib
import os
from pathlib import Path

RECORD_FILE = "redis-url"
DEFAULT_DATA_DIR = "./.cardtrail"
PING_TIMEOUT_S = 2.0


class NoRedis(Exception):
    """No Redis to be found: the message says where it was looked for and what to do."""


def record(data_dir: Path, url: str) -> Path:
    """Write the address for the other commands (0600, replaced in one rename)."""
    path = data_dir / RECORD_FILE
    partial = path.with_name(RECORD_FILE + ".new")
    with contextlib.suppress(FileNotFoundError):
        partial.unlink()  # a leftover (or a link planted there) is never written through
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(url + "\n")
    partial.replace(path)
    return path


def forget(data_dir: Path) -> None:
    """Remove the address when serve stops: no command should find a Redis that is gone."""
    with contextlib.suppress(FileNotFoundError):
        (data_dir / RECORD_FILE).unlink()


def redis_url(data_dir: str | os.PathLike = DEFAULT_DATA_DIR) -> str:
    """REDIS_URL, else the address a serve running on `data_dir` keeps there; raises NoRedis
    when there is none, or when its Redis does not answer."""
    named = os.environ.get("REDIS_URL")
    if named:
        return named
    folder = Path(data_dir).resolve()
    try:
        url = _read_record(folder / RECORD_FILE)
    except FileNotFoundError:
        raise NoRedis(
            f"no cardtrail serve is running on {folder} (no {RECORD_FILE} there): start "
            "`cardtrail serve`, give its --data-dir, or set REDIS_URL to the server's Redis"
        ) from None
    if not _answers(url):
        raise NoRedis(
            f"the cardtrail serve of {folder} is not running: its Redis ({_shown(url)}) does "
            "not answer; start `cardtrail serve` again, or set REDIS_URL"
        )
    return url


def _read_record(path: Path) -> str:
    """The address in the record, if serve (this user) wrote it: a regular file, not a
    link, owned by us and readable by nobody else — a record someone else planted in a
    folder we run from would send our commands to their Redis."""
    try:
        found = path.lstat()
        if not path.is_file() or path.is_symlink():
            raise NoRedis(f"{path} is not a file cardtrail serve wrote; remove it")
        if found.st_uid != os.getuid() or found.st_mode & 0o077:
            raise NoRedis(f"{path} is not private to you (serve writes it 0600); remove it")
        url = path.read_text(encoding="utf-8").strip()
    except (UnicodeDecodeError, PermissionError, IsADirectoryError) as error:
        raise NoRedis(f"{path} cannot be read ({error}); remove it") from None
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise NoRedis(f"{path} holds no Redis address; remove it")
    return url


def _shown(url: str) -> str:
    """An address as a message may show it: without its password."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    return f"{scheme}{sep}***@{host}" if at and credentials else url


def _answers(url: str) -> bool:
    import redis

    try:
        client = redis.Redis.from_url(
            url, socket_timeout=PING_TIMEOUT_S, socket_connect_timeout=PING_TIMEOUT_S
        )
    except ValueError:  # not an address redis-py can read
        return False
    try:
        return bool(client.ping())
    except (redis.RedisError, OSError):
        return False
    finally:
        client.close()
