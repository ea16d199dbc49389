"""Starting the Streamlit app server on a database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from annotate.config import APP_URL_ENV, DATABASE_ENV, MAX_UPLOAD_MB, database_url

APP_ENTRY = Path(__file__).resolve().parent.parent / "app" / "main.py"


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
