"""`cardtrail serve`: the web app under gunicorn, its RQ workers, and an embedded Redis when
no REDIS_URL names one — every one a child process that this process watches and restarts.

One serve per data directory: before anything else it takes an exclusive lock on
`serve.lock` there (and passes it to the web and the workers, so a serve killed outright
whose children live on still holds the folder). A second serve on the folder exits at
once, naming the first one's pid, having touched none of its files.

gunicorn runs in a child process of its own rather than in this one: its arbiter reaps
every child of the process it runs in (`waitpid(-1)`), which would take the Redis and
worker exit statuses from the thread that watches them. A child that dies is started
again after a back-off (FIRST_DELAY_S doubling to MAX_DELAY_S, back to the first once it
had run HEALTHY_AFTER_S), and each restart is logged on stderr. A restarted Redis has the
same socket and data folder, so its AOF brings the games back; the web processes and the
workers reconnect by themselves (redis-py retries with back-off, RQ waits for Redis).
gunicorn's control socket is this serve's own, in the data directory.
"""

import contextlib
import fcntl
import functools
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where used: the web child must import no Redis client before
    # gunicorn's gevent worker patches the standard library
    from service.redis_server import EmbeddedRedis

LOCK_FILE = "serve.lock"
CONTROL_SOCKET = "gunicorn.ctl"
FIRST_DELAY_S = 0.5
MAX_DELAY_S = 30.0
HEALTHY_AFTER_S = 60.0
WATCH_EVERY_S = 0.2
STOP_WAIT_S = 10.0
# gunicorn's exit statuses when a worker cannot boot or the app cannot load: a restart
# would fail the same way, so serve stops and says so, as gunicorn itself would.
FATAL_WEB_EXITS = (3, 4)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_WORKER = "from workers.run import run_worker; run_worker(queues=[{!r}])"
_WEB = "from cardtrail.serve import serve_web; serve_web({!r}, {!r}, {!r}, {!r}, {!r})"


def log(message: str) -> None:
    print(f"cardtrail: {message}", file=sys.stderr, flush=True)


# -- one serve per data directory ----------------------------------------------------


def lock_data_dir(data_dir: Path) -> int:
    """The folder's lock, held (as an open descriptor) until this process and every child
    it passed it to are gone; exits non-zero if another serve holds it."""
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(data_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
        os.close(fd)
        raise SystemExit(in_use_message(data_dir, holder)) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def in_use_message(data_dir: Path, holder: str) -> str:
    folder = data_dir.resolve()
    if not holder.isdigit():  # it has the lock and is about to write its pid
        return f"cardtrail: {folder} is in use by another cardtrail serve; stop it first"
    if _alive(int(holder)):
        return (
            f"cardtrail: {folder} is in use by another cardtrail serve (pid {holder}); "
            "stop it first, or choose another --data-dir"
        )
    return (
        f"cardtrail: {folder} is still held by processes that cardtrail serve pid {holder} "
        "started (it is gone: its web or workers live on); stop them first"
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, and someone else's
        pass
    return True


# -- children and their back-off -----------------------------------------------------


def next_delay(previous: float | None, ran_for: float) -> float:
    """The wait before a restart: the first, or double the last, up to MAX_DELAY_S; a child
    that had run HEALTHY_AFTER_S starts over at the first."""
    if previous is None or ran_for >= HEALTHY_AFTER_S:
        return FIRST_DELAY_S
    return min(previous * 2, MAX_DELAY_S)


def describe(returncode: int) -> str:
    return f"signal {-returncode}" if returncode < 0 else f"exit {returncode}"


def _unreaped(process: subprocess.Popen) -> bool | None:
    """True: the child ended and is not reaped yet, so its pid (and its process group id)
    is still ours; False: it runs; None: it was reaped already."""
    if process.returncode is not None:
        return None
    try:
        found = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return None
    return found is not None


def exited(process: subprocess.Popen) -> bool:
    """Whether the child has ended (without reaping it)."""
    return _unreaped(process) is not False


def reap(process: subprocess.Popen) -> int:
    """An ended child's status, after ending what is left of its process group (an RQ
    worker's scheduler, gunicorn's workers) while the group id cannot name anyone else."""
    if _unreaped(process):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    return process.wait()


@dataclass
class Child:
    """A process serve keeps running: how to start it, the one running, its back-off."""

    name: str
    start: Callable[[], subprocess.Popen]
    fatal_exits: tuple[int, ...] = ()
    process: subprocess.Popen | None = None
    started_at: float = 0.0
    delay: float | None = None  # the last restart's wait
    restart_at: float | None = None  # set while it is dead, waiting to start again

    def launch(self) -> None:
        self.process = self.start()
        self.started_at = time.monotonic()
        self.restart_at = None


class Supervisor:
    """A thread that notices a child that ended and starts it again, with back-off."""

    def __init__(self, children: list[Child]) -> None:
        self.children = children
        self.failure: str | None = None  # why serve must stop, if a child cannot go on
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # a start or a check, never both with stop()
        self._thread = threading.Thread(target=self._watch, name="supervisor", daemon=True)

    def start(self) -> None:
        """Start every child in order (a failure here is the caller's: nothing runs yet
        that could mend it), then watch them."""
        for child in self.children:
            child.launch()
        self._thread.start()

    def _watch(self) -> None:
        while not self._stopping.wait(WATCH_EVERY_S):
            with self._lock:
                for child in self.children:
                    if self._stopping.is_set():
                        return
                    self._check(child)

    def _check(self, child: Child) -> None:
        now = time.monotonic()
        if child.restart_at is None:
            if child.process is None or not exited(child.process):
                return
            status = reap(child.process)
            if status in child.fatal_exits:
                self.failure = f"{child.name} cannot start ({describe(status)}); stopping"
                self._stopping.set()
                return
            child.delay = next_delay(child.delay, now - child.started_at)
            child.restart_at = now + child.delay
            log(f"{child.name} died ({describe(status)}); restarting in {child.delay:.1f} s")
        elif now >= child.restart_at:
            try:
                child.launch()
            except (OSError, RuntimeError) as error:
                child.delay = next_delay(child.delay, 0.0)
                child.restart_at = time.monotonic() + child.delay
                log(f"{child.name} did not start ({error}); retrying in {child.delay:.1f} s")

    def stop(self, redis: "EmbeddedRedis | None") -> None:
        """Stop watching, then stop every child: the web and the workers together, Redis
        last (their last writes land)."""
        self._stopping.set()
        with self._lock:  # waits for a restart under way
            running = [c.process for c in self.children if c.process and c.restart_at is None]
            others = [p for p in running if redis is None or p is not redis.process]
            for process in others:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGTERM)
            for process in others:
                _wait_then_reap(process)
            if redis is not None:
                redis.stop()


def _wait_then_reap(process: subprocess.Popen) -> None:
    deadline = time.monotonic() + STOP_WAIT_S
    while not exited(process) and time.monotonic() < deadline:
        time.sleep(0.05)
    reap(process)


# -- what serve starts -----------------------------------------------------------------


def _start_worker(queue: str, lock_fd: int) -> subprocess.Popen:
    """An RQ worker (workers/run.py) sharing this process's REDIS_URL, in a session of its
    own: Ctrl-C reaches serve alone, which stops it and its scheduler in order."""
    return subprocess.Popen(
        [sys.executable, "-c", _WORKER.format(queue)], start_new_session=True, pass_fds=(lock_fd,)
    )


@dataclass(frozen=True)
class Plan:
    """What one serve runs: where the web listens, and how many of each process."""

    host: str
    port: int
    data_dir: Path
    web_workers: int = 1
    threads: int = 32
    bot_workers: int = 1
    notify_workers: int = 2


def _start_web(plan: Plan, lock_fd: int) -> subprocess.Popen:
    """gunicorn (see serve_web), in a session of its own like the workers."""
    control = str(plan.data_dir.resolve() / CONTROL_SOCKET)
    code = _WEB.format(plan.host, plan.port, plan.web_workers, plan.threads, control)
    return subprocess.Popen(
        [sys.executable, "-c", code], start_new_session=True, pass_fds=(lock_fd,)
    )


def serve_web(host: str, port: int, workers: int, threads: int, control_socket: str) -> None:
    """The web child: gunicorn with cardtrail's settings and a control socket of its own
    (gunicorn's default is one file under the home directory, shared by every instance)."""
    from gunicorn.app.base import BaseApplication

    from cardtrail.web import gunicorn_options

    options = {**gunicorn_options(host, port, workers, threads), "control_socket": control_socket}

    class Gunicorn(BaseApplication):
        def load_config(self) -> None:
            for key, value in options.items():
                self.cfg.set(key, value)

        def load(self) -> Any:
            from service.api import create_app

            return create_app()

    Gunicorn().run()


def children(plan: Plan, lock_fd: int, redis: "EmbeddedRedis | None") -> list[Child]:
    """Redis first (the others need it), then the workers, then the web."""
    started: list[Child] = []
    if redis is not None:
        started.append(Child("redis", functools.partial(_redis_process, redis)))
    for queue, count in (("turns", plan.bot_workers), ("notify", plan.notify_workers)):
        started += [
            Child(f"worker {queue}-{number}", functools.partial(_start_worker, queue, lock_fd))
            for number in range(1, count + 1)
        ]
    web = functools.partial(_start_web, plan, lock_fd)
    started.append(Child("web", web, fatal_exits=FATAL_WEB_EXITS))
    return started


def _redis_process(redis: "EmbeddedRedis") -> subprocess.Popen:
    """Start (or start again) the embedded Redis: the same socket, the same data."""
    process = redis.start().process
    assert process is not None
    return process


# -- serve -----------------------------------------------------------------------------


@contextlib.contextmanager
def stop_requests() -> Iterator[list[int]]:
    """Ctrl-C, SIGTERM and a hang-up each ask serve to stop (the list gets the signal):
    serve, not the default handlers, ends its children in order."""
    asked: list[int] = []

    def ask(number: int, _frame: Any) -> None:
        asked.append(number)

    previous = {sig: signal.signal(sig, ask) for sig in STOP_SIGNALS}
    try:
        yield asked
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run(
    host: str,
    port: int,
    data_dir: str,
    workers: int = 1,
    threads: int = 32,
    bot_workers: int = 1,
    notify_workers: int = 2,
) -> None:
    """Serve until asked to stop; stops the embedded Redis and every process it started.
    `bot_workers` play bot turns and clocks, `notify_workers` deliver webhooks."""
    from cardtrail import local_redis
    from service import archives
    from service.redis_server import EmbeddedRedis
    from service.signing import KEY_FILE_ENV

    folder = Path(data_dir)
    lock_fd = lock_data_dir(folder)  # before anything else: exits if the folder is served
    folder.chmod(0o700)  # server seeds, decks and the signing key: the owner's only
    redis = None
    if not os.environ.get("REDIS_URL"):
        redis = EmbeddedRedis(folder / "redis", appendfsync="always", keep_fds=(lock_fd,))
        os.environ["REDIS_URL"] = redis.url
    # One signing key for every process this serve starts, kept (mode 0600) beside the data.
    os.environ.setdefault(KEY_FILE_ENV, str(folder.resolve() / "signing-key.pem"))
    # Games that ended are sealed out of Redis into the data directory (docs/archives.md).
    os.environ.setdefault(archives.ENV, str(folder.resolve() / "archives"))
    plan = Plan(host, port, folder, workers, threads, bot_workers, notify_workers)
    supervisor = Supervisor(children(plan, lock_fd, redis))
    try:
        with stop_requests() as asked:
            supervisor.start()
            # for `cardtrail replay` and `rebuild ratings` run beside it (cardtrail/local_redis.py)
            local_redis.record(folder, os.environ["REDIS_URL"])
            print(f"cardtrail: open http://{host}:{port}/  (Redis at {os.environ['REDIS_URL']})")
            sys.stdout.flush()
            while not asked and supervisor.failure is None:
                time.sleep(0.1)
    finally:
        local_redis.forget(folder)
        supervisor.stop(redis)
        os.close(lock_fd)
    if supervisor.failure:
        raise SystemExit(f"cardtrail: {supervisor.failure}")
