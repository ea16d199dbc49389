"""Starting the Streamlit app server on a database."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from annotate.config import (
    APP_URL_ENV,
    DATABASE_ENV,
    MAX_UPLOAD_MB,
    SESSION_SECRET_ENV,
    SESSION_SECRET_FILE_ENV,
    database_url,
    ensure_secret_file,
    session_secret,
)

APP_ENTRY = Path(__file__).resolve().parent.parent / "app" / "main.py"
DEMO_SECRET_FILE = "prb_session_secret"
"""The demo's session secret, made once in the current directory (next to its database)."""


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
    # The data grids' own "Download as CSV" (and copy) write participants' text unescaped: off.
    # The product's downloads escape formulas (annotate.app.downloads lists them).
    "client.disableDataExport": "true",
    # "none": a generic message in the browser, the details only in the server log. (The old
    # value "false" now means "stacktrace": the traceback shown to every user.)
    "client.showErrorDetails": "none",
    # Streamlit's default full garbage collection after every script run costs ~75% of the
    # server's CPU under load (a large heap: pandas, plotly); Python's own generational
    # collector still runs.
    "runner.postScriptGC": "false",
}
# The look: a calm blue for the primary button and focus (Streamlit's default red reads as
# "danger" on Submit and as an error on a focused text box).
THEME_OPTIONS = {"theme.primaryColor": "#1f5fa8", "theme.base": "light"}


def streamlit_command(port: int, address: str = "0.0.0.0") -> list[str]:
    """The `streamlit run` command line for the app, production flags included."""
    options = {
        "server.port": str(port),
        "server.address": address,
        **THEME_OPTIONS,
        **PRODUCTION_OPTIONS,
    }
    flags = [part for name, value in options.items() for part in (f"--{name}", value)]
    # Streamlit's command line, started by annotate.app.launch (it imports the database layer
    # first, so the first visitor does not wait for it).
    return [sys.executable, "-m", "annotate.app.launch", "run", str(APP_ENTRY), *flags]


def server_environment(db: str | None, app_url: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env[DATABASE_ENV] = database_url(db)
    if app_url:
        env[APP_URL_ENV] = app_url
    return env


def serve(db: str | None, port: int, address: str = "0.0.0.0") -> None:
    """Replace this process with the Streamlit server (never returns).

    One process serves: a signal (SIGTERM from `kill` or `docker stop`, Ctrl+C) reaches the
    server itself, which shuts down and frees the port. Without a good session secret
    (`annotate.config.session_secret`) it does not start: `SessionSecretError`.
    """
    session_secret()
    command = streamlit_command(port, address)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execvpe(command[0], command, server_environment(db))


def use_demo_secret(folder: Path) -> None:
    """Unless a session secret is given, the demo's: its file in `folder`, made once (mode 600)
    and reused, so a restarted demo keeps its sessions."""
    if os.environ.get(SESSION_SECRET_ENV) or os.environ.get(SESSION_SECRET_FILE_ENV):
        return
    os.environ[SESSION_SECRET_FILE_ENV] = str(ensure_secret_file(folder / DEMO_SECRET_FILE))
