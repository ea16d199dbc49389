"""Adjudication (admin): the queue of disputed pairs, the study's threshold, and sending a pair
to an adjudicator; every change is audited (`annotate.services.audited`)."""

from __future__ import annotations

from sqlalchemy.engine import Engine

from annotate.db import read_session
from annotate.domain.operations import adjudication
from annotate.domain.operations.adjudication import Candidate
from annotate.domain.study import studies
from annotate.domain.study.permissions import Actor, require_admin
from annotate.services.audited import admin_change


def queue(engine: Engine, actor: Actor, study: str) -> tuple[float | None, list[Candidate]]:
    """The study's threshold and its adjudication queue."""
    with read_session(engine) as session:
        require_admin(session, actor)
        target = studies.get_study(session, study)
        return target.adjudication_threshold, adjudication.candidates(session, target)


def eligible(engine: Engine, actor: Actor, study: str, record_id: str) -> list[str]:
    """Who may adjudicate the pair: active annotators who never had it."""
    with read_session(engine) as session:
        require_admin(session, actor)
        return adjudication.eligible(session, studies.get_study(session, study), record_id)


def set_threshold(engine: Engine, actor: Actor, *, study: str, threshold: float | None) -> None:
    """Set (or, with None, switch off) the disagreement that sends a pair to adjudication."""
    with admin_change(engine, actor, "study.adjudication_threshold", study) as change:
        assert change.study is not None
        change.before = {"adjudication_threshold": change.study.adjudication_threshold}
        studies.update_study(change.session, study, adjudication_threshold=threshold)
        change.after = {"adjudication_threshold": threshold}


def send(engine: Engine, actor: Actor, *, study: str, record_id: str, adjudicator: str) -> None:
    """Send a pair of the queue to an adjudicator (a new assignment at the end of their queue)."""
    with admin_change(engine, actor, "pair.adjudicate", study) as change:
        assert change.study is not None
        made = adjudication.send(change.session, change.study, record_id, adjudicator)
        change.after = {"pair": record_id, "adjudicator": adjudicator, "assignment": made.id}
