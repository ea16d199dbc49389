"""Downstream outputs stored all or nothing in a benchmark study, joined by id with its pairs
(the ids of the benchmark's BoN and PPO files are its pair ids), and read back.

Ids the study does not hold are refused, each located, unless the caller says to skip them
(then counted). The same content again changes nothing (content hash); other content under a
condition already imported is refused unless replaced. A judge answer that cannot be used is
stored as written with its status (`annotate.domain.downstream.files.JUDGE_STATUSES`) and
counted, never dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from sqlalchemy import delete, insert
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from annotate.db.tables import DownstreamCondition, DownstreamOutput, Pair, stored_id, utcnow
from annotate.domain.dataset.problems import Problem, ProblemLog
from annotate.domain.downstream.conditions import Condition
from annotate.domain.downstream.files import OK, OutputRecord, StagedCondition
from annotate.domain.study.studies import get_study
from annotate.errors import Conflict, NotFound

INSERT_BATCH = 1000


@dataclass(frozen=True)
class ConditionSummary:
    study: str
    condition: str
    outcome: str  # "added", "replaced" or "unchanged"
    n_records: int
    n_unknown: int
    n_judged: int
    n_unparsed: int


def store_condition(
    session: Session,
    staged: StagedCondition,
    *,
    study: str,
    skip_unknown: bool = False,
    replace: bool = False,
) -> ConditionSummary:
    """Write the staged outputs into `study` in the caller's transaction (all or nothing)."""
    target = get_study(session, study)
    study_id = stored_id(target)
    pairs = _pairs(session, study_id)
    known, unknown = _known(staged, pairs, skip_unknown)
    name = staged.condition.name
    existing = condition_row(session, study_id, name)
    digest = staged.content_hash()
    if existing is not None:
        if existing.content_hash == digest:
            return _summary(target.name, existing, "unchanged")
        if not replace:
            raise Conflict(
                f"condition {name!r} already has other outputs in study {study!r}; "
                "pass --replace to swap them"
            )
        _delete(session, existing)
    rows = [_row(record, pairs[record.record_id]) for record in known]
    condition = _condition(study_id, staged, digest, len(known) + unknown, unknown, rows)
    session.add(condition)
    session.flush()
    for row in rows:
        row["condition_id"] = stored_id(condition)
    for start in range(0, len(rows), INSERT_BATCH):
        session.execute(insert(DownstreamOutput), rows[start : start + INSERT_BATCH])
    return _summary(target.name, condition, "replaced" if existing is not None else "added")


def _pairs(session: Session, study_id: int) -> dict[str, tuple[int, int]]:
    """record id -> (pair id, number of rubric aspects), benchmark pairs only (no gold)."""
    query = select(Pair.record_id, Pair.id, Pair.rubric_aspects).where(
        col(Pair.study_id) == study_id, col(Pair.gold_preference).is_(None)
    )
    return {r: (int(i or 0), len(a or [])) for r, i, a in session.exec(query)}


def _known(
    staged: StagedCondition, pairs: dict[str, tuple[int, int]], skip_unknown: bool
) -> tuple[list[OutputRecord], int]:
    log = ProblemLog()
    known: list[OutputRecord] = []
    unknown = 0
    for record in staged.records.values():
        if record.record_id in pairs:
            known.append(record)
            continue
        unknown += 1
        if not skip_unknown:
            message = f"id {record.record_id!r} is not a benchmark pair of the study"
            log.add(Problem(record.file, record.location, message, "id"))
    if log:
        raise log.error()
    return known, unknown


def _row(record: OutputRecord, pair: tuple[int, int]) -> dict[str, Any]:
    return {
        "pair_id": pair[0],
        "output": record.output,
        "rm_score": record.rm_score,
        "judge_scores": record.judge_scores,
        "judge_average": record.judge_average,
        "judge_status": record.judge_status(pair[1]),
    }


def _condition(
    study_id: int,
    staged: StagedCondition,
    digest: str,
    n_records: int,
    n_unknown: int,
    rows: list[dict[str, Any]],
) -> DownstreamCondition:
    c = staged.condition
    statuses = [r["judge_status"] for r in rows if r["judge_status"] is not None]
    return DownstreamCondition(
        study_id=study_id,
        name=c.name,
        kind=c.kind,
        model=c.model,
        variant=c.variant,
        k=c.k,
        source_files=[Path(f).name for f in staged.files],
        content_hash=digest,
        n_records=n_records,
        n_unknown=n_unknown,
        n_judged=len(statuses),
        n_unparsed=sum(s != OK for s in statuses),
        imported_at=utcnow(),
    )


def _summary(study: str, row: DownstreamCondition, outcome: str) -> ConditionSummary:
    return ConditionSummary(
        study, row.name, outcome, row.n_records, row.n_unknown, row.n_judged, row.n_unparsed
    )


def _delete(session: Session, row: DownstreamCondition) -> None:
    session.execute(delete(DownstreamOutput).where(col(DownstreamOutput.condition_id) == row.id))
    session.delete(row)
    session.flush()


def condition_row(session: Session, study_id: int, name: str) -> DownstreamCondition | None:
    query = select(DownstreamCondition).where(
        col(DownstreamCondition.study_id) == study_id, col(DownstreamCondition.name) == name
    )
    return session.exec(query).first()


def require_condition(session: Session, study: str, name: str) -> DownstreamCondition:
    row = condition_row(session, stored_id(get_study(session, study)), name)
    if row is None:
        raise NotFound(f"study {study!r} has no downstream condition {name!r}")
    return row


def study_conditions(session: Session, study: str) -> list[DownstreamCondition]:
    """The study's conditions by name (rows detached from the session)."""
    study_id = stored_id(get_study(session, study))
    query = (
        select(DownstreamCondition)
        .where(col(DownstreamCondition.study_id) == study_id)
        .order_by(col(DownstreamCondition.name))
    )
    rows = list(session.exec(query))
    for row in rows:
        session.expunge(row)
    return rows


OUTPUT_COLUMNS = (
    "condition",
    "kind",
    "model",
    "variant",
    "k",
    "pair_id",
    "n_aspects",
    "rm_score",
    "judge_scores",
    "judge_average",
    "judge_status",
)
"""The outputs table the analysis reads (`analysis.downstream`): one row per condition and
question, without the texts; `judge_scores` as written (a list, or None)."""


def outputs_frame(
    session: Session, study: str, conditions: list[Condition] | None = None
) -> pd.DataFrame:
    """Every stored output of `study` (OUTPUT_COLUMNS), optionally of some conditions only."""
    study_id = stored_id(get_study(session, study))
    query = (
        sa_select(
            col(DownstreamCondition.name),
            col(DownstreamCondition.kind),
            col(DownstreamCondition.model),
            col(DownstreamCondition.variant),
            col(DownstreamCondition.k),
            col(Pair.record_id),
            col(Pair.id),
            col(DownstreamOutput.rm_score),
            col(DownstreamOutput.judge_scores),
            col(DownstreamOutput.judge_average),
            col(DownstreamOutput.judge_status),
        )
        .select_from(DownstreamOutput)
        .join(DownstreamCondition, col(DownstreamCondition.id) == DownstreamOutput.condition_id)
        .join(Pair, col(Pair.id) == DownstreamOutput.pair_id)
        .where(col(DownstreamCondition.study_id) == study_id)
        .order_by(col(DownstreamCondition.name), col(Pair.record_id))
    )
    if conditions is not None:
        query = query.where(col(DownstreamCondition.name).in_([c.name for c in conditions]))
    sizes = dict(_pairs(session, study_id).values())  # pair id -> aspects, one decode a pair
    rows = [(*r[:6], sizes.get(r[6], 0), *r[7:]) for r in session.execute(query)]
    return pd.DataFrame(rows, columns=list(OUTPUT_COLUMNS))
