"""The payments and approval export of a crowd study (issue 24.3, admin): each participant's
platform id, status (with the exclusion rules that exclude them), completion code and time
taken, and the median time taken to set a fair pay. The only export holding platform ids:
for the admin's bulk approval on the platform, never to be published."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Engine

from analysis.designs.exclusion_rules import check_rules, excluded_by
from annotate.db import read_session
from annotate.db.tables import stored_id
from annotate.domain.crowd import participants
from annotate.domain.crowd.participants import PAYMENT_COLUMNS, ParticipantRow
from annotate.domain.exports.spreadsheet import inert_csv
from annotate.domain.study.permissions import Actor, require_admin
from annotate.domain.study.studies import get_study
from annotate.services.results.study_annotators import annotator_facts, study_pseudonyms

HOLDS_PLATFORM_IDS = (
    "This file holds the participants' platform ids: keep it private, use it on the platform "
    "only, never publish it."
)


@dataclass(frozen=True)
class Payments:
    study: str
    rows: list[ParticipantRow]
    median_minutes: float | None

    def pay_for(self, hourly_rate: float) -> float | None:
        """The pay per participant at `hourly_rate` for the median time taken (rounded up to
        the cent), or None before anyone completed."""
        if self.median_minutes is None:
            return None
        cents = -(-hourly_rate * self.median_minutes * 100 // 60)
        return float(cents) / 100


def participant_payments(engine: Engine, actor: Actor, study: str) -> Payments:
    """Every crowd participant of `study` with what to pay and approve."""
    with read_session(engine) as session:
        require_admin(session, actor)
        target = get_study(session, study)
        rows = participants.participant_rows(session, target)
        names = study_pseudonyms(session, stored_id(target))
        rules = check_rules(target.exclusion_rules or {})
        excluded = excluded_by(rules, annotator_facts(session, stored_id(target))) if rules else {}
    for row in rows:
        row.pseudonym = names.get(row.name, "")
        hits = excluded.get(row.name)
        if hits and row.status in (participants.COMPLETED, participants.PARTIAL):
            row.status, row.excluded_by = participants.EXCLUDED, "; ".join(hits)
    return Payments(study, rows, participants.median_minutes(rows))


def payments_csv(payments: Payments) -> str:
    """The export as CSV (`PAYMENT_COLUMNS`; times in UTC to the second), every text cell inert
    (`annotate.domain.exports.spreadsheet`: a platform id comes from the study link's address)."""
    rows = (
        [
            r.participant_id,
            r.status,
            r.excluded_by,
            r.completion_code,
            r.pairs_done,
            r.pro_rata,
            r.outcome_reason,
            "" if r.minutes_taken is None else r.minutes_taken,
            "" if r.started_at is None else f"{r.started_at:%Y-%m-%dT%H:%M:%SZ}",
            "" if r.finished_at is None else f"{r.finished_at:%Y-%m-%dT%H:%M:%SZ}",
            r.pseudonym,
        ]
        for r in payments.rows
    )
    return inert_csv(PAYMENT_COLUMNS, rows)
