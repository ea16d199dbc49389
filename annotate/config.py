"""Where the database lives and how the app is reached: one place for settings."""

from __future__ import annotations

import os
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


def session_secret() -> str:
    """$PRB_SESSION_SECRET: mixed into the pages' session values (`annotate.domain.study.accounts`)
    so that someone who can read the database still cannot make one; empty when unset (the
    values then rest on the stored token hashes alone). The same on every app server."""
    return os.environ.get(SESSION_SECRET_ENV, "")


def app_url() -> str:
    """The base URL printed in login links."""
    return os.environ.get(APP_URL_ENV, DEFAULT_APP_URL).rstrip("/")
