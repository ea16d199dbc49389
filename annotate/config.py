"""Where the database lives and how the app is reached: one place for settings."""

from __future__ import annotations

import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

DATABASE_ENV = "PRB_DATABASE_URL"
APP_URL_ENV = "PRB_APP_URL"
DEFAULT_DATABASE_FILE = "prb_annotate.db"
DEFAULT_APP_URL = "http://localhost:8501"
MAX_UPLOAD_MB = 200
"""The largest file any import reads (datasets, models, judge and downstream outputs, aspects),
by the page or the command line; the server refuses bigger upload bodies."""
MAX_RECORD_MB = 8
"""The largest single record (a JSONL line, a JSON array's element, a Parquet row) an import
reads; a benchmark record with 120 profile posts is about 35 KB."""
MAX_RECORDS = 200_000
"""The most records one import reads, all its files together (the benchmark has 2,830 pairs;
a model's pointwise scores are two records a pair): memory stays bounded whatever is sent."""

ENROLMENT_CAP_ENV = "PRB_ENROLMENT_CAP"
STARTS_PER_MINUTE_ENV = "PRB_STARTS_PER_MINUTE"
FIRST_RESERVATION_ENV = "PRB_FIRST_RESERVATION_MINUTES"
UNPROVEN_SHARE_ENV = "PRB_UNPROVEN_SHARE_PERCENT"
SESSION_SECRET_ENV = "PRB_SESSION_SECRET"
SESSION_SECRET_FILE_ENV = "PRB_SESSION_SECRET_FILE"
SESSION_SECRET_MIN_CHARS = 43  # 32 random bytes: 43 characters in URL-safe base64, 64 in hex
SESSION_SECRET_MIN_DISTINCT = 10  # refuses "aaaa..." and "0123456789" repeated
PROLIFIC_TOKEN_ENV = "PRB_PROLIFIC_TOKEN"
PROLIFIC_TOKEN_FILE_ENV = "PRB_PROLIFIC_TOKEN_FILE"
PROLIFIC_API_ENV = "PRB_PROLIFIC_API_URL"
DEFAULT_PROLIFIC_API = "https://api.prolific.com"


@dataclass(frozen=True)
class EnrolmentLimits:
    """What one crowd study link may do, so that someone holding the link (every participant
    does) cannot reserve the whole pool with made-up participant ids."""

    cap: int = 1000
    """participants of one study holding or having done work (lapsed first pairs not counted)"""
    starts_per_minute: int = 60
    """participants of one study who may press Start (reserve their first pair) per minute"""
    first_reservation_minutes: int = 10
    """a crowd participant's pairs are reserved this long (at most) until they submit one"""
    unproven_share_percent: int = 25
    """participants who have submitted nothing hold at most this share of the study's slots
    (pairs x overlap) at once, at least one: a burst of made-up ids on a small study leaves the
    rest to the others"""


def enrolment_limits() -> EnrolmentLimits:
    """The limits, from $PRB_ENROLMENT_CAP, $PRB_STARTS_PER_MINUTE,
    $PRB_FIRST_RESERVATION_MINUTES and $PRB_UNPROVEN_SHARE_PERCENT (positive whole numbers) or
    the defaults."""
    default = EnrolmentLimits()
    return EnrolmentLimits(
        cap=_positive(ENROLMENT_CAP_ENV, default.cap),
        starts_per_minute=_positive(STARTS_PER_MINUTE_ENV, default.starts_per_minute),
        first_reservation_minutes=_positive(
            FIRST_RESERVATION_ENV, default.first_reservation_minutes
        ),
        unproven_share_percent=min(
            100, _positive(UNPROVEN_SHARE_ENV, default.unproven_share_percent)
        ),
    )


def _positive(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"${name} must be a positive whole number, got {value!r}")
    return int(value)


def database_url(path_or_url: str | None = None) -> str:
    """Turn `--db PATH_OR_URL`, `$PRB_DATABASE_URL` or the default into a SQLAlchemy URL.

    A value containing `://` is taken as a URL; anything else is a SQLite file path.
    """
    value = path_or_url or os.environ.get(DATABASE_ENV) or DEFAULT_DATABASE_FILE
    if "://" in value:
        return value
    return f"sqlite:///{Path(value).expanduser().resolve()}"


class SessionSecretError(ValueError):
    """The server's session secret is missing, too short or readable by others: it refuses to
    start (the message says what to do)."""


def new_session_secret() -> str:
    """32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


def session_secret() -> str:
    """The server's secret that keys the pages' session values (`annotate.domain.study.accounts`):
    $PRB_SESSION_SECRET, else the file named by $PRB_SESSION_SECRET_FILE (readable by its owner
    only). Never stored in the database, so a database or backup reader cannot make a session
    value; the same on every app server; changing it ends every session. Raises
    `SessionSecretError` when it is missing or weak."""
    value = os.environ.get(SESSION_SECRET_ENV, "").strip()
    source = f"${SESSION_SECRET_ENV}"
    file_name = os.environ.get(SESSION_SECRET_FILE_ENV, "").strip()
    if not value and file_name:
        value, source = _secret_file(Path(file_name)), file_name
    if not value:
        raise SessionSecretError(
            f"no session secret: set ${SESSION_SECRET_ENV} or ${SESSION_SECRET_FILE_ENV} to 32 "
            'random bytes or more (python -c "import secrets; print(secrets.token_urlsafe(32))"), '
            "the same on every app server"
        )
    _check_strength(value, source)
    return value


def _check_strength(value: str, source: str) -> None:
    if len(value) < SESSION_SECRET_MIN_CHARS or len(set(value)) < SESSION_SECRET_MIN_DISTINCT:
        raise SessionSecretError(
            f"the session secret in {source} is too weak: expected 32 random bytes or more "
            f"({SESSION_SECRET_MIN_CHARS}+ characters of URL-safe base64, or 64 hex digits), got "
            f"{len(value)} characters, {len(set(value))} distinct"
        )


def _secret_file(
    path: Path, what: str = "session secret", error: type[Exception] = SessionSecretError
) -> str:
    """The secret in `path`, refused when the group or others may read or write it."""
    try:
        mode = path.stat().st_mode
        if mode & 0o077:
            raise error(
                f"{path}: the {what} file is readable or writable by others "
                f"(mode {stat.filemode(mode)}); expected the owner only: chmod 600 {path}"
            )
        return path.read_text(encoding="utf-8").strip()
    except OSError as problem:
        raise error(f"{path}: cannot read the {what} file ({problem.strerror})") from problem


class PlatformTokenError(Exception):
    """The crowd platform's API token is missing or its file is readable by others (the
    message says what to do, never the token)."""


def prolific_token() -> str:
    """Prolific's API token: $PRB_PROLIFIC_TOKEN, else the file named by
    $PRB_PROLIFIC_TOKEN_FILE (readable by its owner only), read the way the session secret is.
    Never stored in the database, never logged, never in a message. Raises
    `PlatformTokenError` when there is none."""
    value = os.environ.get(PROLIFIC_TOKEN_ENV, "").strip()
    file_name = os.environ.get(PROLIFIC_TOKEN_FILE_ENV, "").strip()
    if not value and file_name:
        value = _secret_file(Path(file_name), "Prolific API token", PlatformTokenError)
    if not value:
        raise PlatformTokenError(
            f"no Prolific API token: set ${PROLIFIC_TOKEN_ENV} or ${PROLIFIC_TOKEN_FILE_ENV} "
            "(a file readable by its owner only) to a token made in Prolific's settings"
        )
    return value


def prolific_api_url() -> str:
    """Where Prolific's API answers: $PRB_PROLIFIC_API_URL (tests: a local fake) or Prolific's."""
    return os.environ.get(PROLIFIC_API_ENV, DEFAULT_PROLIFIC_API).rstrip("/")


def ensure_secret_file(path: Path) -> Path:
    """Create `path` with a new secret, readable by its owner only, unless it exists (then it
    is kept: the sessions it keyed go on working). For the demo."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(new_session_secret() + "\n")
    return path


def app_url() -> str:
    """The base URL printed in login links."""
    return os.environ.get(APP_URL_ENV, DEFAULT_APP_URL).rstrip("/")


RATING_VIEW_ENV = "PRB_RATING_VIEW"
RATING_VIEWS = ("component", "streamlit")


def rating_view() -> str:
    """How the rating page draws a pair, from $PRB_RATING_VIEW: "component" (the default: our own
    `annotate.app.participant.pair_component`, issue 36) or "streamlit" (Streamlit's own widgets,
    the fallback: no spans, no held next pair, no entries kept in the tab)."""
    value = os.environ.get(RATING_VIEW_ENV, "").strip().lower() or RATING_VIEWS[0]
    if value not in RATING_VIEWS:
        raise ValueError(
            f"${RATING_VIEW_ENV} must be one of {', '.join(RATING_VIEWS)}, got {value!r}"
        )
    return value


CACHE_DIR_ENV = "PRB_CACHE_DIR"


def cache_dir() -> Path:
    """Where the server keeps what it can make again but would rather not (Streamlit's bundle
    at Brotli's best level: `annotate.app.static_compression`): $PRB_CACHE_DIR, else
    $XDG_CACHE_HOME/prb-annotate, else ~/.cache/prb-annotate."""
    chosen = os.environ.get(CACHE_DIR_ENV, "").strip()
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(base) / "prb-annotate"
