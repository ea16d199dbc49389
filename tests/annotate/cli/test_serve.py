"""`prb-annotate serve` becomes the server: one process, which SIGTERM stops, freeing the port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from annotate.cli.server import DEMO_SECRET_FILE
from support.appserver import free_port, wait_healthy

CLI = Path(sys.executable).parent / "prb-annotate"


def _children(pid: int) -> list[int]:
    """Processes whose parent is `pid` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            if parent == pid:
                found.append(int(entry.name))
    return found


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_serve_is_one_process_and_sigterm_leaves_nothing_listening(tmp_path: Path):
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                str(CLI),
                "--db",
                str(tmp_path / "serve.db"),
                "serve",
                "--port",
                str(port),
                "--address",
                "127.0.0.1",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        started = wait_healthy(f"http://127.0.0.1:{port}", process, 60)
        assert started, log.read_text(errors="replace")[-2000:]
        # The process started is the server itself (exec), not a parent waiting on a child.
        command = Path(f"/proc/{process.pid}/cmdline").read_bytes().split(b"\0")
        assert b"annotate.app.launch" in command, command
        assert b"run" in command, command
        assert _children(process.pid) == []

        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) is not None
        assert not _listening(port), "a process still serves the port after SIGTERM"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _listening_addresses(pid: int, port: int) -> set[str]:
    """The local IPv4 addresses the process listens on at `port` (Linux /proc/net/tcp)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, state, inode = fields[1], fields[3], fields[9]
        host, port_hex = local.split(":")
        if state == "0A" and int(port_hex, 16) == port and inode in inodes:  # 0A: LISTEN
            found.add(socket.inet_ntoa(bytes.fromhex(host)[::-1]))
    return found


@pytest.mark.parametrize(
    ("given", "listening"), [([], "127.0.0.1"), (["--address", "0.0.0.0"], "0.0.0.0")]
)
def test_demo_listens_on_this_computer_only_unless_told(tmp_path: Path, given, listening):
    """Issue 22.9: `prb-annotate demo` printed links with working tokens and listened on every
    address; it now listens on 127.0.0.1 unless `--address` says otherwise. On a machine with no
    session secret set (issue 32.1), it makes its own file, owner-only, and serves."""
    port = free_port()
    log = tmp_path / "demo.log"
    command = [CLI, "--db", tmp_path / "demo.db", "demo", "--port", str(port), "--simulated", "0"]
    fresh = {k: v for k, v in os.environ.items() if not k.startswith("PRB_SESSION_SECRET")}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*command, *given],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=tmp_path,
            env=fresh,
        )
    try:
        started = wait_healthy(f"http://127.0.0.1:{port}", process, 90)
        assert started, log.read_text(errors="replace")[-2000:]
        assert (tmp_path / DEMO_SECRET_FILE).stat().st_mode & 0o777 == 0o600
        assert _listening_addresses(process.pid, port) == {listening}
        printed = log.read_text(errors="replace")
        assert f"http://localhost:{port}/?token=" in printed
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=20)
