"""An LLM judge's aspect scores (`prb-annotate judge import`): read, checked and stored all or
nothing, for comparison with the annotators' aspect checklist.

The file is JSONL (or a JSON array, or Parquet), one record per pair, in the shape of the
benchmark's judge prompt (Personalized-RewardBench `prompts/evaluation.txt`: "Return a list of
match_score values, in the same order as the aspects", each 0, 1 or 2):

    {"id": "<the pair's record id>", "chosen": [2, 1, 2], "rejected": [0, 0, 1]}

It also reads the benchmark's own judge output, the eval shape that `BoN/evaluate.py` and
`PPO/evaluate.py` write (`{"id", "query", "answer", "aspects", "scores", "average_score"}`, one
response per record): the response a record scores is named by the caller (`response`, chosen
or rejected) or found by its text (`answer` equal to the pair's chosen or rejected response).
Several files may be given (e.g. one for each response). An answer the judge did not give
properly (an empty list, numbers outside 0/1/2, another count than the pair's aspects: the
script's regular expression takes every number it finds) is stored in the judge's `unparsed`
list and counted, never scored, dropped or cut to length.

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
from annotate.domain.dataset.readers import RecordLimit, read_raw
from annotate.domain.dataset.strict_json import describe_type, record_with_id
from annotate.domain.models.model_files import check_model_name
from annotate.domain.study.studies import get_study
from annotate.errors import Conflict
from annotate.vocabulary import COVERAGE_POINTS, RESPONSES


@dataclass(frozen=True)
class JudgeRecord:
    record_id: str
    location: str
    scores: dict[str, list[int]]  # response -> coverage per aspect, in the pair's order


@dataclass(frozen=True)
class EvalAnswer:
    """One record of the eval shape: the judge's scores of one response, as written."""

    record_id: str
    file: str
    location: str
    answer: str
    scores: list[float]


@dataclass
class StagedJudge:
    file: str
    records: list[JudgeRecord] = field(default_factory=list)
    answers: list[EvalAnswer] = field(default_factory=list)
    response: str | None = None  # the eval shape's response, when the caller names it

    def content_hash(self) -> str:
        rows = sorted((r.record_id, r.scores) for r in self.records)
        if not self.answers:  # the native shape hashes as it always did
            text = json.dumps(rows, sort_keys=True, ensure_ascii=False)
        else:
            answers = sorted((a.record_id, a.answer, a.scores) for a in self.answers)
            text = json.dumps([rows, answers, self.response], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class JudgeImportSummary:
    study: str
    judge: str
    outcome: str  # "added", "replaced" or "unchanged"
    n_pairs: int
    n_unparsed: int = 0


def stage_judge_file(path: Path) -> StagedJudge:
    """Read and check every record (no database); DatasetError listing every problem."""
    return stage_judge_files([path])


def stage_judge_files(paths: list[Path], response: str | None = None) -> StagedJudge:
    """Read and check every record of the files, in either shape (no database); DatasetError
    listing every problem. `response`: the response every eval-shape record scores (None:
    found by its text when stored)."""
    log, staged = ProblemLog(), StagedJudge(", ".join(map(str, paths)), response=response)
    limit = RecordLimit()
    for path in paths:
        _stage_one(log, staged, path, limit)
    if not staged.records and not staged.answers and not log:
        log.add(Problem(staged.file, "file", "no records"))
    if staged.records and staged.answers:
        message = "mixes the native shape (chosen, rejected) with the eval shape (answer, scores)"
        log.add(Problem(staged.file, "file", message))
    if log:
        raise log.error()
    return staged


def _stage_one(log: ProblemLog, staged: StagedJudge, path: Path, limit: RecordLimit) -> None:
    seen: dict[str, str] = {}
    if not path.is_file():
        log.add(Problem(str(path), "file", "no such file"))
        return
    try:
        for location, value in read_raw(path, limit=limit):
            if isinstance(value, dict) and "scores" in value and "answer" in value:
                answer = _eval_answer(log, str(path), location, value)
                if answer is not None:
                    staged.answers.append(answer)
                continue
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


def _eval_answer(
    log: ProblemLog, file: str, location: str, value: dict[str, Any]
) -> EvalAnswer | None:
    """An eval-shape record: {id, query, answer, aspects, scores, average_score}."""
    record_id, answer, scores = value.get("id"), value.get("answer"), value.get("scores")
    problems = []
    if not isinstance(record_id, str) or not record_id:
        got = describe_type(record_id)
        problems.append(("id", f"expected the pair's id as a string, got {got}"))
    if not isinstance(answer, str):
        got = describe_type(answer)
        problems.append(("answer", f"expected the response as a string, got {got}"))
    numbers = isinstance(scores, list) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in scores
    )
    if not numbers:
        got = describe_type(scores)
        problems.append(("scores", f"expected the judge's list of numbers, got {got}"))
    for name, message in problems:
        log.add(Problem(file, location, message, name))
    if problems or not isinstance(scores, list):
        return None
    return EvalAnswer(str(record_id), file, location, str(answer), [float(v) for v in scores])


def _record(log: ProblemLog, file: str, location: str, value: Any) -> JudgeRecord | None:
    if isinstance(value, Problem):
        log.add(value)
        return None
    record = record_with_id(log, file, location, value, "the pair's")
    if record is None:
        return None
    scores: dict[str, list[int]] = {}
    for response in RESPONSES:
        given = record.get(response)
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
    done = len(scores) == len(RESPONSES)
    return JudgeRecord(record["id"], location, scores) if done else None


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
    records, unparsed = _resolved(log, staged, pairs)
    for record in records:
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
            return JudgeImportSummary(
                target.name, name, "unchanged", existing.n_pairs, len(existing.unparsed)
            )
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
        n_pairs=len({r.record_id for r in records}),
        unparsed=unparsed,
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
        for record in records
        for response, values in record.scores.items()
        for index, value in enumerate(values)
    ]
    if rows:
        session.execute(insert(AspectJudgeScore), rows)
    return JudgeImportSummary(target.name, name, outcome, judge.n_pairs, len(unparsed))


def _resolved(
    log: ProblemLog, staged: StagedJudge, pairs: dict[str, Pair]
) -> tuple[list[JudgeRecord], list[dict[str, Any]]]:
    """The native records as they are; each eval answer given its response (named, or found by
    its text) and, when usable, turned into a record of that response, else kept as unparsed."""
    if not staged.answers:
        return staged.records, []
    records: list[JudgeRecord] = []
    unparsed: list[dict[str, Any]] = []
    seen: dict[tuple[str, str], str] = {}
    for answer in staged.answers:
        pair = pairs.get(answer.record_id)
        if pair is None:
            message = f"id {answer.record_id!r} is not a pair of the study"
            log.add(Problem(answer.file, answer.location, message, "id"))
            continue
        response = staged.response or _response_of(pair, answer.answer)
        if response is None:
            message = "the answer is not the pair's chosen or rejected text; pass --response"
            log.add(Problem(answer.file, answer.location, message, "answer"))
            continue
        first = seen.get((answer.record_id, response))
        if first is not None:
            message = f"id {answer.record_id!r} scores {response} again (first at {first})"
            log.add(Problem(answer.file, answer.location, message, "id"))
            continue
        seen[(answer.record_id, response)] = f"{answer.file}, {answer.location}"
        problem = _unusable(answer.scores, len(pair.rubric_aspects))
        if problem is not None:
            unparsed.append(
                {"pair_id": answer.record_id, "response": response,
                 "scores": answer.scores, "problem": problem}
            )  # fmt: skip
            continue
        points = {response: [int(v) for v in answer.scores]}
        records.append(JudgeRecord(answer.record_id, answer.location, points))
    return records, unparsed


def _response_of(pair: Pair, text: str) -> str | None:
    matches = [r for r, t in (("chosen", pair.chosen), ("rejected", pair.rejected)) if t == text]
    return matches[0] if len(matches) == 1 else None


def _unusable(scores: list[float], n_aspects: int) -> str | None:
    """Why an eval answer cannot be scored ('empty', 'out_of_scale', 'wrong_count'), or None."""
    if not scores:
        return "empty"
    if any(s not in COVERAGE_POINTS for s in scores):
        return "out_of_scale"
    return None if len(scores) == n_aspects else "wrong_count"
