"""Flagged and skipped pairs (admin): the queue, resolving, adjudication marks and exclusions
from the analysis; every change is audited (`annotate.services.audited`)."""

from __future__ import annotations

from sqlalchemy.engine import Engine

from annotate.db import read_session
from annotate.db.tables import stored_id
from annotate.domain.operations import flags
from annotate.domain.operations.flags import Exclusion, FlagItem, PairText
from annotate.domain.study import audit, studies
from annotate.domain.study.permissions import Actor, require_admin
from annotate.services.audited import admin_change


def flag_queue(engine: Engine, actor: Actor, study: str, open_only: bool = False) -> list[FlagItem]:
    with read_session(engine) as session:
        require_admin(session, actor)
        return flags.flag_queue(session, stored_id(studies.get_study(session, study)), open_only)


def pair_text(engine: Engine, actor: Actor, study: str, record_id: str) -> PairText:
    with read_session(engine) as session:
        require_admin(session, actor)
        return flags.pair_text(session, studies.get_study(session, study), record_id)


def resolve_flag(
    engine: Engine,
    actor: Actor,
    *,
    study: str,
    assignment_id: int,
    action: str,
    note: str,
    replaces: str | None = flags.UNHANDLED,
) -> None:
    """Resolve a flagged or skipped assignment with a note, or send it to adjudication;
    refused if the item was handled otherwise since the caller saw it (`flags.resolve`)."""
    with admin_change(engine, actor, f"flag.{action}", study) as change:
        assert change.study is not None
        earlier, new = flags.resolve(
            change.session,
            change.study,
            assignment_id,
            action,
            note,
            audit.who(change.account),
            replaces=replaces,
        )
        change.before = {"assignment": assignment_id}
        if earlier is not None:
            change.before |= {"action": earlier.action, "note": earlier.note}
        change.after = {"assignment": assignment_id, "action": new.action, "note": new.note}


def exclude_pair(engine: Engine, actor: Actor, *, study: str, record_id: str, reason: str) -> None:
    """Leave a pair out of the analysis, with the reason."""
    with admin_change(engine, actor, "pair.exclude", study) as change:
        assert change.study is not None
        by = audit.who(change.account)
        flags.exclude_pair(change.session, change.study, record_id, reason, by)
        change.after = {"pair": record_id, "reason": reason.strip()}


def restore_pair(engine: Engine, actor: Actor, *, study: str, record_id: str) -> None:
    """Take an excluded pair back into the analysis (the exclusion stays on record)."""
    with admin_change(engine, actor, "pair.restore", study) as change:
        assert change.study is not None
        reason = flags.restore_pair(
            change.session, change.study, record_id, audit.who(change.account)
        )
        change.before = {"pair": record_id, "reason": reason}


def exclusions(engine: Engine, actor: Actor, study: str) -> list[Exclusion]:
    with read_session(engine) as session:
        require_admin(session, actor)
        return flags.exclusions(session, stored_id(studies.get_study(session, study)))
