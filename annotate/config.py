"""Where the database lives and how the app is reached: one place for settings."""

from __future__ import annotations

import os
from pathlib import Path

DATABASE_ENV = "PRB_DATABASE_URL"
APP_URL_ENV = "PRB_APP_URL"
DEFAULT_DATABASE_FILE = "prb_annotate.db"
DEFAULT_APP_URL = "http://localhost:8501"
MAX_UPLOAD_MB = 200  # the admin page's dataset upload; the server refuses bigger bodies


def database_url(path_or_url: str | None = None) -> str:
    """Turn `--db PATH_OR_URL`, `$PRB_DATABASE_URL` or the default into a SQLAlchemy URL.

    A value containing `://` is taken as a URL; anything else is a SQLite file path.
    """
    value = path_or_url or os.environ.get(DATABASE_ENV) or DEFAULT_DATABASE_FILE
    if "://" in value:
        return value
    return f"sqlite:///{Path(value).expanduser().resolve()}"


def app_url() -> str:
    """The base URL printed in login links."""
    return os.environ.get(APP_URL_ENV, DEFAULT_APP_URL).rstrip("/")
