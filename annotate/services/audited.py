"""The one way an admin service changes a study: a write transaction that checks the admin
role and adds an audit entry (`annotate.domain.study.audit`) in the same transaction, so no change
goes unrecorded and no entry records a change that was rolled back."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Study
from annotate.domain.study import audit, studies
from annotate.domain.study.permissions import Actor, require_admin


@dataclass
class AdminChange:
    """The open transaction of an admin action; the service fills in `before` and `after`
    (and `study`, when it creates one), and clears `changed` when the action turned out to
    change nothing (a re-import of known pairs): no entry then."""

    session: Session
    account: Annotator | None
    study: Study | None
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    changed: bool = True


@contextmanager
def admin_change(
    engine: Engine, actor: Actor, action: str, study: str | None = None
) -> Iterator[AdminChange]:
    """Open a write transaction, check the admin role, find `study` (if named), let the caller
    act, then record the action; an error anywhere rolls all of it back."""
    with write_session(engine) as session:
        account = require_admin(session, actor)
        target = studies.get_study(session, study) if study is not None else None
        change = AdminChange(session, account, target)
        yield change
        if change.changed:
            audit.record(session, account, change.study, action, change.before, change.after)


def audit_entries(
    engine: Engine, actor: Actor, study: str | None = None, limit: int = audit.DEFAULT_LIMIT
) -> list[audit.AuditLine]:
    """The audit log, newest first (of one study, when named)."""
    with read_session(engine) as session:
        require_admin(session, actor)
        study_id = None if study is None else studies.get_study(session, study).id
        return audit.entries(session, study_id, limit)
