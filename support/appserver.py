"""The app server as a child process on 127.0.0.1, for the tests and the benchmarks (not shipped:
the product's own server command is `annotate.cli.server`)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path

from annotate.cli.server import server_environment, streamlit_command
from annotate.config import SESSION_SECRET_ENV, SESSION_SECRET_FILE_ENV, new_session_secret


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def ensure_session_secret() -> None:
    """Give this process (and the servers it starts) a new session secret unless it has one:
    for the benchmarks that start the app without `AppServer`."""
    if not os.environ.get(SESSION_SECRET_ENV) and not os.environ.get(SESSION_SECRET_FILE_ENV):
        os.environ[SESSION_SECRET_ENV] = new_session_secret()


def wait_healthy(url: str, process: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait until the server at `url` answers its health check (False: it exited or timed out)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.read().strip() == b"ok":
                    return True
        except OSError:
            time.sleep(0.1)
    return False


class AppServer:
    """The app server as a child process on 127.0.0.1, for tests and benchmarks.

    Runs the production command (plus `extra_flags`), waits until `/_stcore/health` answers,
    and can be stopped politely or killed like a crashed host, then started again. Its session
    secret is the one in `environment` or in this process's environment, else one of its own
    (kept when it starts again: its sessions survive a restart).
    """

    def __init__(
        self,
        db: str,
        log_path: Path,
        *,
        port: int | None = None,
        extra_flags: Sequence[str] = (),
        environment: Mapping[str, str] | None = None,
    ) -> None:
        self.db = db
        self.environment = dict(environment or {})
        given = {**os.environ, **self.environment}
        if not given.get(SESSION_SECRET_ENV) and not given.get(SESSION_SECRET_FILE_ENV):
            self.environment[SESSION_SECRET_ENV] = new_session_secret()
        self.log_path = log_path
        self.port = port or free_port()
        self.extra_flags = list(extra_flags)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, timeout: float = 60.0) -> AppServer:
        with socket.socket() as probe:  # else the health check could reach another server
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
            probe.bind(("127.0.0.1", self.port))
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                streamlit_command(self.port, "127.0.0.1") + self.extra_flags,
                env={**server_environment(self.db), **self.environment},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: kill() takes every child
            )
        self._wait_healthy(timeout)
        return self

    def _wait_healthy(self, timeout: float) -> None:
        assert self.process is not None
        if wait_healthy(self.url, self.process, timeout):
            return
        self.stop()
        log = self.log_path.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"the app server did not start; the end of its log:\n{log}")

    def kill(self) -> None:
        """SIGKILL: no shutdown handlers, nothing flushed; as when a host dies."""
        if self.running:
            assert self.process is not None
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.running:
            assert self.process is not None
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def memory_mb(self) -> float:
        """The server's resident memory (Linux), or 0 when it is not running."""
        if not self.running:
            return 0.0
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        rss_kb = next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS"))
        return int(rss_kb) / 1024
