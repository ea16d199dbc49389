"""An LLM judge's aspect scores (`prb-annotate judge import`): read, checked and stored all or
nothing, for comparison with the annotators' aspect checklist.

The file is JSONL (or a JSON array, or Parquet), one record per pair, in the shape of the
benchmark's judge prompt (Personalized-RewardBench `prompts/evaluation.txt`: "Return a list of
match_score values, in the same order as the aspects", each 0, 1 or 2):

    {"id": "<the pair's record id>", "chosen": [2, 1, 2], "rejected": [0, 0, 1]}

Every problem is located (file, line, field, what was expected) and all of them are reported in
one run (`annotate.domain.dataset.problems`); a list must have exactly as many scores as the pair
has rubric aspects. The same scores again change nothing (content hash); other scores under a
judge name already imported are refused unless replaced.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import delete, insert
from sqlmodel import Session, col, select

from annotate.db.tables import AspectJudge, AspectJudgeScore, Pair, stored_id, utcnow
from annotate.domain.dataset.problems import DatasetError, Problem, ProblemLog
from annotate.domain.dataset.readers import read_raw
from annotate.domain.dataset.strict_json import describe_type
from annotate.domain.models.model_files import check_model_name
from annotate.domain.study.studies import get_study
from annotate.errors import Conflict
from annotate.vocabulary import COVERAGE_POINTS, RESPONSES


@dataclass(frozen=True)
class JudgeRecord:
    record_id: str
    location: str
    scores: dict[str, list[int]]  # response -> coverage per aspect, in the pair's order


@dataclass
class StagedJudge:
    file: str
    records: list[JudgeRecord] = field(default_factory=list)

    def content_hash(self) -> str:
        rows = sorted((r.record_id, r.scores) for r in self.records)
        text = json.dumps(rows, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class JudgeImportSummary:
    study: str
    judge: str
    outcome: str  # "added", "replaced" or "unchanged"
    n_pairs: int


def stage_judge_file(path: Path) -> StagedJudge:
    """Read and check every record (no database); DatasetError listing every problem."""
    log, staged = ProblemLog(), StagedJudge(str(path))
    seen: dict[str, str] = {}
    if not path.is_file():
        raise DatasetError([Problem(str(path), "file", "no such file")])
    try:
        for location, value in read_raw(path):
            record_id = value.get("id") if isinstance(value, dict) else None
            if isinstance(record_id, str) and record_id in seen:
                message = f"id {record_id!r} again (first at {seen[record_id]})"
                log.add(Problem(str(path), location, message, "id"))
                continue
            if isinstance(record_id, str):
                seen[record_id] = location
            record = _record(log, str(path), location, value)
            if record is not None:
                staged.records.append(record)
    except DatasetError as error:
        log.absorb(error)
    if not staged.records and not log:
        log.add(Problem(str(path), "file", "no records"))
    if log:
        raise log.error()
    return staged


def _record(log: ProblemLog, file: str, location: str, value: Any) -> JudgeRecord | None:
    if isinstance(value, Problem):
        log.add(value)
        return None
    if not isinstance(value, dict):
        log.add(Problem(file, location, f"expected a JSON object, got {describe_type(value)}"))
        return None
    record_id = value.get("id")
    if not isinstance(record_id, str) or not record_id:
        got = describe_type(record_id)
        log.add(Problem(file, location, f"expected the pair's id as a string, got {got}", "id"))
        return None
    scores: dict[str, list[int]] = {}
    for response in RESPONSES:
        given = value.get(response)
        points = ", ".join(map(str, COVERAGE_POINTS))
        if not isinstance(given, list):
            message = f"expected a list of {points} (one per aspect), got {describe_type(given)}"
            log.add(Problem(file, location, message, response))
            continue
        wrong = [
            f"item {i + 1} is {json.dumps(v)}"
            for i, v in enumerate(given)
            if isinstance(v, bool) or not isinstance(v, int) or v not in COVERAGE_POINTS
        ]
        if wrong:
            log.add(
                Problem(file, location, f"expected {points} only: {'; '.join(wrong)}", response)
            )
            continue
        scores[response] = list(given)
    return JudgeRecord(record_id, location, scores) if len(scores) == len(RESPONSES) else None


def store_judge(
    session: Session, staged: StagedJudge, *, study: str, name: str, replace: bool = False
) -> JudgeImportSummary:
    """Write the staged scores into `study` in the caller's transaction (all or nothing)."""
    name = check_model_name(name)
    target = get_study(session, study)
    study_id = stored_id(target)
    pairs = {
        p.record_id: p for p in session.exec(select(Pair).where(col(Pair.study_id) == study_id))
    }
    log = ProblemLog()
    for record in staged.records:
        pair = pairs.get(record.record_id)
        if pair is None:
            message = f"id {record.record_id!r} is not a pair of study {study!r}"
            log.add(Problem(staged.file, record.location, message, "id"))
            continue
        n = len(pair.rubric_aspects)
        for response, values in record.scores.items():
            if len(values) != n:
                message = f"expected {n} scores (the pair's rubric aspects), got {len(values)}"
                log.add(Problem(staged.file, record.location, message, response))
    if log:
        raise log.error()
    digest = staged.content_hash()
    existing = session.exec(
        select(AspectJudge).where(
            col(AspectJudge.study_id) == study_id, col(AspectJudge.name) == name
        )
    ).first()
    outcome = "added"
    if existing is not None:
        if existing.content_hash == digest:
            return JudgeImportSummary(target.name, name, "unchanged", existing.n_pairs)
        if not replace:
            raise Conflict(
                f"judge {name!r} already has other scores in study {study!r}; "
                "pass --replace to swap them"
            )
        session.execute(
            delete(AspectJudgeScore).where(col(AspectJudgeScore.judge_id) == existing.id)
        )
        session.delete(existing)
        session.flush()
        outcome = "replaced"
    judge = AspectJudge(
        study_id=study_id,
        name=name,
        source_file=Path(staged.file).name,
        content_hash=digest,
        n_pairs=len(staged.records),
        imported_at=utcnow(),
    )
    session.add(judge)
    session.flush()
    rows = [
        {
            "judge_id": stored_id(judge),
            "pair_id": stored_id(pairs[record.record_id]),
            "response": response,
            "aspect_index": index,
            "coverage": value,
        }
        for record in staged.records
        for response, values in record.scores.items()
        for index, value in enumerate(values)
    ]
    if rows:
        session.execute(insert(AspectJudgeScore), rows)
    return JudgeImportSummary(target.name, name, outcome, len(staged.records))
