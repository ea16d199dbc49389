"""The production topology on one machine: HAProxy in front of several app servers on one
PostgreSQL database, for the deployment tests, `benchmarks/bench_load.py --balancer` and
`scripts/cluster.sh` (not shipped with the package).

The balancer's configuration is rendered by `haproxy_config`, the one place that says how the
app is deployed behind a proxy: sticky sessions by cookie (Streamlit keeps each session's state
in one server's memory), websockets (HTTP/1.1 upgrade, a long tunnel timeout), health checks on
`/_stcore/health`, and the security headers Streamlit cannot set itself. `deploy/haproxy.cfg`,
used by `compose.yaml`, is this function's output for three containers called app1..app3 (a test
keeps the two equal; `python -m support.cluster --write-deploy` rewrites it).

    python -m support.cluster --servers 3 --port 8500 --database-url URL   # until Ctrl-C
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from annotate.app.security_headers import (
    SECURITY_HEADERS,
    content_security_policy,
)
from annotate.config import (
    SESSION_SECRET_ENV,
    SESSION_SECRET_FILE_ENV,
    new_session_secret,
    session_secret,
)
from support.appserver import AppServer, free_port

ROOT = Path(__file__).resolve().parents[1]
DEPLOY_CONFIG = ROOT / "deploy" / "haproxy.cfg"
STICKY_COOKIE = "PRBSERVER"
COOKIE_SECRET_ENV = "STREAMLIT_SERVER_COOKIE_SECRET"  # the same on every server: XSRF survives
COMPOSE_SERVERS = (("app1", "app1:8501"), ("app2", "app2:8501"), ("app3", "app3:8501"))
COMPOSE_DNS = "127.0.0.11:53"  # Docker's embedded nameserver


AGENT_API_REFUSAL = [
    "    # Streamlit's test-only agent API never reaches the outside, even if switched on.",
    "    http-request deny deny_status 404 if { path_beg /_stcore/agent }",
]
# Streamlit's scripts and styles come gzipped from the app server itself (zlib, once per file:
# annotate/app/static_compression.py), and HAProxy passes an encoded answer through. HAProxy's
# own compressor (libslz in Debian's build, which ignores tune.comp.maxlevel) only halves them,
# so it is left the rest: the page, host-config and any server run without the launch wrapper.
# Fonts (woff2) and images are compressed already.
COMPRESSION = [
    "    compression algo gzip",
    "    compression type text/html text/css text/javascript application/javascript"
    " application/json image/svg+xml",
]
LOG_FORMAT = (
    '"%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc '
    '%ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %HM %{+Q}HP %HV"'
)
"""HAProxy's `option httplog` line with the request's path (`%HP`) in place of the whole
request line (`%r`, which holds the query string)."""


def haproxy_config(
    servers: Sequence[tuple[str, str]],
    bind: str = "*:8500",
    dns: str | None = None,
    refuse_agent_api: bool = True,
) -> str:
    """HAProxy's configuration for these (name, host:port) app servers behind `bind`.

    `dns` (a nameserver's host:port, such as Docker's 127.0.0.11:53) makes HAProxy resolve the
    servers' names again while it runs, for containers that start after it or move. Only the
    load tests pass `refuse_agent_api=False`: they drive sessions through Streamlit's agent API.
    """
    headers = {"Content-Security-Policy": content_security_policy(), **SECURITY_HEADERS}
    header_lines = [f'    http-response set-header {k} "{v}"' for k, v in headers.items()]
    resolving = " resolvers dns" if dns else ""
    server_lines = [
        f"    server {name} {address} check cookie {name} inter 2s fall 2 rise 2{resolving}"
        for name, address in servers
    ]
    resolver_lines = ["resolvers dns", f"    nameserver dns1 {dns}", ""] if dns else []
    return "\n".join(
        [
            "# Rendered by support/cluster.py (haproxy_config); do not edit by hand:",
            "#   python -m support.cluster --write-deploy",
            "global",
            "    maxconn 4000  # ~2 connections per annotator (page + websocket); needs ~8,000 fds",
            "    log stdout format raw local0",
            "    tune.comp.maxlevel 6  # zlib builds; Debian's libslz has no levels",
            "",
            "defaults",
            "    mode http",
            "    log global",
            "    # httplog's fields, but the path without its query string: a login token, a crowd",
            "    # link's key and a participant's platform ids never reach the log (issue 24.4).",
            f"    log-format {LOG_FORMAT}",
            "    option redispatch  # a dead server's annotators go to a live one",
            "    retries 2",
            "    timeout connect 5s",
            "    timeout client 60s",
            "    timeout server 120s",
            "    timeout tunnel 2h  # an open websocket: one rating session",
            "    timeout http-request 15s",
            "",
            *resolver_lines,
            "frontend annotate",
            f"    bind {bind}",
            *(AGENT_API_REFUSAL if refuse_agent_api else []),
            *header_lines,
            *COMPRESSION,
            "    default_backend app_servers",
            "",
            "backend app_servers",
            "    balance roundrobin",
            f"    cookie {STICKY_COOKIE} insert indirect nocache httponly",
            "    option httpchk GET /_stcore/health",
            "    http-check expect string ok",
            "    # Start even when a server's name does not resolve yet (containers starting).",
            "    default-server init-addr last,libc,none",
            *server_lines,
            "",
        ]
    )


def _given_secret() -> str | None:
    """The session secret this process was given ($PRB_SESSION_SECRET or its file), if any."""
    if os.environ.get(SESSION_SECRET_ENV) or os.environ.get(SESSION_SECRET_FILE_ENV):
        return session_secret()
    return None


def _wait_for_port(port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


@dataclass
class Cluster:
    """`size` app servers on `database_url` behind HAProxy on 127.0.0.1, in `folder`.

    `extra_flags` go to every app server (the load tests turn the agent API on; the balancer
    still refuses it from outside unless `agent_api_through_balancer`), and so does
    `environment` (the load tests' rating view, `support.loadtest.AGENT_ENVIRONMENT`). Every
    server gets the same `session_secret` (by default this process's, else a new one): a session
    value goes on working on another server (issue 32.1).
    """

    database_url: str
    folder: Path
    size: int = 2
    extra_flags: Sequence[str] = ()
    environment: Mapping[str, str] = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    agent_api_through_balancer: bool = False
    session_secret: str = field(default_factory=lambda: _given_secret() or new_session_secret())
    servers: list[AppServer] = field(default_factory=list)
    balancer: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def config(self) -> str:
        addresses = [(f"app{i + 1}", f"127.0.0.1:{s.port}") for i, s in enumerate(self.servers)]
        return haproxy_config(
            addresses,
            bind=f"127.0.0.1:{self.port}",
            refuse_agent_api=not self.agent_api_through_balancer,
        )

    def start(self) -> Cluster:
        if shutil.which("haproxy") is None:
            raise RuntimeError("haproxy is not installed (apt-get install haproxy)")
        secret = secrets.token_urlsafe(32)
        self.servers = [
            AppServer(
                self.database_url,
                self.folder / f"app{i + 1}.log",
                extra_flags=self.extra_flags,
                environment={
                    **self.environment,
                    COOKIE_SECRET_ENV: secret,
                    SESSION_SECRET_ENV: self.session_secret,
                },
            )
            for i in range(self.size)
        ]
        for server in self.servers:
            server.start()
        config = self.folder / "haproxy.cfg"
        config.write_text(self.config(), encoding="utf-8")
        with (self.folder / "haproxy.log").open("ab") as log:
            self.balancer = subprocess.Popen(
                ["haproxy", "-db", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT
            )
        _wait_for_port(self.port, 10)
        self.wait_until_all_up()
        return self

    def wait_until_all_up(self, timeout: float = 20.0) -> None:
        """Until the balancer answers through each live server (its health checks passed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            answered = set()
            for name in (f"app{i + 1}" for i, s in enumerate(self.servers) if s.running):
                request = urllib.request.Request(
                    f"{self.url}/_stcore/health", headers={"Cookie": f"{STICKY_COOKIE}={name}"}
                )
                try:
                    with urllib.request.urlopen(request, timeout=2) as answer:
                        if answer.read().strip() == b"ok":
                            answered.add(name)
                except OSError:
                    pass
            if len(answered) == sum(s.running for s in self.servers):
                return
            time.sleep(0.2)
        raise RuntimeError("the balancer did not reach every app server")

    def stop(self) -> None:
        if self.balancer is not None and self.balancer.poll() is None:
            self.balancer.send_signal(signal.SIGTERM)
            try:
                self.balancer.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.balancer.kill()
        for server in self.servers:
            server.stop()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", type=int, default=3)
    parser.add_argument("--port", type=int, default=8500)
    parser.add_argument("--database-url", default="postgresql+psycopg://postgres@127.0.0.1/prb")
    parser.add_argument("--folder", type=Path, default=Path("cluster"))
    parser.add_argument("--write-deploy", action="store_true", help="rewrite deploy/haproxy.cfg")
    args = parser.parse_args(argv)
    if args.write_deploy:
        DEPLOY_CONFIG.write_text(haproxy_config(COMPOSE_SERVERS, dns=COMPOSE_DNS), encoding="utf-8")
        print(f"wrote {DEPLOY_CONFIG}")
        return
    args.folder.mkdir(parents=True, exist_ok=True)
    cluster = Cluster(args.database_url, args.folder, size=args.servers, port=args.port).start()
    print(f"{args.servers} app servers behind HAProxy at {cluster.url} (logs in {args.folder})")
    if _given_secret() is None:
        print(
            f"one new session secret for every server (set ${SESSION_SECRET_ENV} or "
            f"${SESSION_SECRET_FILE_ENV} to keep sessions across restarts of the cluster)"
        )
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop as on Ctrl-C
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
