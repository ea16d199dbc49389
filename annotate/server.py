"""Starting the Streamlit app server on a database."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from annotate.config import APP_URL_ENV, DATABASE_ENV, MAX_UPLOAD_MB, database_url

APP_ENTRY = Path(__file__).resolve().parent / "app" / "main.py"


# Given on the command line, so a config.toml or STREAMLIT_* variable cannot weaken them.
PRODUCTION_OPTIONS = {
    "server.headless": "true",
    "browser.gatherUsageStats": "false",
    "server.fileWatcherType": "none",
    "server.runOnSave": "false",
    "global.developmentMode": "false",
    "server.enableAgentApi": "false",  # the experimental API that drives the app over HTTP
    "server.enableXsrfProtection": "true",
    "server.enableCORS": "true",
    "server.maxUploadSize": str(MAX_UPLOAD_MB),
    "client.toolbarMode": "minimal",
    # "none": a generic message in the browser, the details only in the server log. (The old
    # value "false" now means "stacktrace": the traceback shown to every user.)
    "client.showErrorDetails": "none",
    # Streamlit's default full garbage collection after every script run costs ~75% of the
    # server's CPU under load (a large heap: pandas, plotly); Python's own generational
    # collector still runs.
    "runner.postScriptGC": "false",
}


def streamlit_command(port: int, address: str = "0.0.0.0") -> list[str]:
    """The `streamlit run` command line for the app, production flags included."""
    options = {"server.port": str(port), "server.address": address, **PRODUCTION_OPTIONS}
    flags = [part for name, value in options.items() for part in (f"--{name}", value)]
    return [sys.executable, "-m", "streamlit", "run", str(APP_ENTRY), *flags]


def server_environment(db: str | None, app_url: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env[DATABASE_ENV] = database_url(db)
    if app_url:
        env[APP_URL_ENV] = app_url
    return env


def serve(db: str | None, port: int, address: str = "0.0.0.0") -> int:
    """Run the app in the foreground until it stops; return its exit code."""
    command = streamlit_command(port, address)
    return subprocess.call(command, env=server_environment(db))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class AppServer:
    """The app server as a child process on 127.0.0.1, for tests and benchmarks.

    Runs the production command (plus `extra_flags`), waits until `/_stcore/health` answers,
    and can be stopped politely or killed like a crashed host, then started again.
    """

    def __init__(
        self, db: str, log_path: Path, *, port: int | None = None, extra_flags: Sequence[str] = ()
    ) -> None:
        self.db = db
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
                env=server_environment(self.db),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: kill() takes every child
            )
        self._wait_healthy(timeout)
        return self

    def _wait_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                break
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as answer:
                    if answer.read().strip() == b"ok":
                        return
            except OSError:
                time.sleep(0.1)
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
