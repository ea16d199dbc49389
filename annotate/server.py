"""Starting the Streamlit app server on a database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from annotate.config import APP_URL_ENV, DATABASE_ENV, database_url

APP_ENTRY = Path(__file__).resolve().parent / "app" / "main.py"


def streamlit_command(port: int, address: str = "0.0.0.0") -> list[str]:
    """The `streamlit run` command line for the app, production flags included."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP_ENTRY),
        "--server.port",
        str(port),
        "--server.address",
        address,
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
        "--server.runOnSave",
        "false",
        "--client.toolbarMode",
        "minimal",
        "--client.showErrorDetails",
        "false",
    ]


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
