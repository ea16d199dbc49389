"""The audit log of admin actions: who did what to which study, when, with the values before
and after. Entries are only ever added; the services write one in the same transaction as the
change they record (`annotate.services.audited`)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from annotate.db.tables import Annotator, AuditEntry, Study

SYSTEM_NAME = "system"
"""The `who` of an action taken at the command line (the `SYSTEM` actor)."""
DEFAULT_LIMIT = 500
ERASED_PREFIX = "erased-"


def erased_alias(key: bytes, account_id: int) -> str:
    """The name an erased account's audit entries carry instead of its name and platform id:
    one per account (the same in every entry, so its actions still read as one person's),
    `erased-` and 12 hex digits of HMAC-SHA256 keyed by the database's pseudonym secret, so it
    cannot be computed from the name or linked to the study pseudonyms (`a-...`) of a published
    card."""
    digest = hmac.new(key, f"audit:{account_id}".encode(), hashlib.sha256).hexdigest()
    return ERASED_PREFIX + digest[:12]


@dataclass(frozen=True)
class AuditLine:
    """An audit entry as the page and the CLI show it."""

    at: datetime
    who: str
    study: str | None
    action: str
    before: dict[str, Any]
    after: dict[str, Any]


def who(account: Annotator | None) -> str:
    """The name recorded for the acting account (None: the command line)."""
    return SYSTEM_NAME if account is None else account.name


def record(
    session: Session,
    account: Annotator | None,
    study: Study | None,
    action: str,
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
) -> AuditEntry:
    """Add one entry; values must be JSON-serialisable (dates as ISO text)."""
    entry = AuditEntry(
        study_id=None if study is None else study.id,
        who=who(account),
        action=action,
        before=_plain(before or {}),
        after=_plain(after or {}),
    )
    session.add(entry)
    session.flush()
    return entry


def _plain(values: Mapping[str, Any]) -> dict[str, Any]:
    return {key: _jsonable(value) for key, value in values.items()}


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Mapping):
        return _plain(value)
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    return value


def changed(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Only the keys whose value differs: (old values, new values)."""
    keys = [k for k in after if before.get(k) != after[k]]
    return {k: before.get(k) for k in keys}, {k: after[k] for k in keys}


def entries(
    session: Session, study_id: int | None = None, limit: int = DEFAULT_LIMIT
) -> list[AuditLine]:
    """The newest entries first (of one study, when `study_id` is given)."""
    query = select(AuditEntry, Study.name).join(
        Study, col(AuditEntry.study_id) == col(Study.id), isouter=True
    )
    if study_id is not None:
        query = query.where(col(AuditEntry.study_id) == study_id)
    query = query.order_by(col(AuditEntry.at).desc(), col(AuditEntry.id).desc()).limit(limit)
    return [
        AuditLine(entry.at, entry.who, name, entry.action, dict(entry.before), dict(entry.after))
        for entry, name in session.exec(query).all()
    ]
