"""The benchmark's downstream files read and checked as its scripts write them (no database).

Shapes (read in the repository `Martin-qyma/Personalized-RewardBench` at commit d8a0cdaa):

- Best-of-N outputs, `BoN/score.py` (`select_best_of_k`): one line per question,
  `{"id", "query", "output", "aspects", "score"}`: the response the reward model scored highest
  among the first k samples, and that score; `aspects` is the rubric as the samples carried it
  (a string).
- PPO outputs, `PPO/infer.py` (`batch_generate`): `{"id", "question", "profile", "evaluation",
  "aspects"}`: the policy's response is `evaluation`; `aspects` is the record's
  `rubric_aspects` list.
- The judge's answers, `BoN/evaluate.py` and `PPO/evaluate.py` (`evaluate_answers`, the same
  code): `{"id", "query", "answer", "aspects", "scores", "average_score"}`. `scores` is parsed
  from the judge's text (`prompts/evaluation.txt` asks for a list of 0/1/2 match scores, one
  per aspect, in order) by a regular expression that takes every number it finds, so an answer
  the judge did not give properly shows up as an empty list (its `average_score` then 0.0),
  numbers outside {0, 1, 2}, or a list of another length than the rubric. Those are kept as
  written and counted (`judge_problem`; the length is checked against the pair's rubric when
  stored), never dropped or cut to length.

All three are read as JSONL, a JSON array or Parquet (`annotate.domain.dataset.readers`); extra
fields are ignored. Every problem is located (file, line, field) and all are reported at once.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeGuard

from annotate.domain.dataset.problems import DatasetError, Problem, ProblemLog
from annotate.domain.dataset.readers import RecordLimit, read_raw
from annotate.domain.dataset.strict_json import describe_type, record_with_id
from annotate.domain.downstream.conditions import BON, Condition
from annotate.vocabulary import COVERAGE_POINTS

EMPTY, OUT_OF_SCALE, WRONG_COUNT, OK = "empty", "out_of_scale", "wrong_count", "ok"
JUDGE_STATUSES = (OK, EMPTY, OUT_OF_SCALE, WRONG_COUNT)
"""How the judge answered one output: usable, or how it failed (`downstreamoutput.judge_status`)."""
OUTPUT_FIELDS = {BON: "output", "ppo": "evaluation"}


@dataclass(frozen=True)
class OutputRecord:
    """One question's output in one condition, as read (judge fields None without eval file)."""

    record_id: str
    file: str
    location: str
    output: str
    rm_score: float | None = None
    judge_scores: list[float] | None = None
    judge_average: float | None = None

    def judge_status(self, n_aspects: int) -> str | None:
        """'ok', or why the judge's answer cannot be used (`JUDGE_STATUSES`); None: not judged."""
        scores = self.judge_scores
        if scores is None:
            return None
        if not scores:
            return EMPTY
        if any(s not in COVERAGE_POINTS for s in scores):
            return OUT_OF_SCALE
        return OK if len(scores) == n_aspects else WRONG_COUNT


@dataclass
class StagedCondition:
    """A condition's checked records by question id, and the files they came from."""

    condition: Condition
    files: list[str] = field(default_factory=list)
    records: dict[str, OutputRecord] = field(default_factory=dict)

    def content_hash(self) -> str:
        rows = [
            (r.record_id, r.output, r.rm_score, r.judge_scores, r.judge_average)
            for r in sorted(self.records.values(), key=lambda r: r.record_id)
        ]
        text = json.dumps([self.condition.name, rows], ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()


def stage_condition(
    condition: Condition, outputs: Path | None = None, judged: Path | None = None
) -> StagedCondition:
    """Read the outputs file and/or the judge's eval file of one condition, checked (with both,
    every eval answer must be the output of the same id); DatasetError listing every problem."""
    if outputs is None and judged is None:
        problem = Problem("(none)", "file", "give an outputs file, an eval file or both")
        raise DatasetError([problem])
    log, staged = ProblemLog(), StagedCondition(condition)
    seen: set[str] = set()
    limit = RecordLimit()
    found = _read(log, outputs, lambda f, loc, v: _output(log, condition, f, loc, v), seen, limit)
    judge_seen: set[str] = set()
    judge = _read(log, judged, lambda f, loc, v: _eval(log, f, loc, v), judge_seen, limit)
    staged.files = [str(p) for p in (outputs, judged) if p is not None]
    if outputs is None:
        staged.records = judge
    elif judged is None:
        staged.records = found
    else:
        staged.records = _joined(log, found, judge, str(judged), (seen, judge_seen))
    if not staged.records and not log:
        log.add(Problem(staged.files[0], "file", "no records"))
    if log:
        raise log.error()
    return staged


def _read(
    log: ProblemLog,
    path: Path | None,
    parse: Any,
    seen: set[str] | None = None,
    limit: RecordLimit | None = None,
) -> dict[str, OutputRecord]:
    """Every record of `path` parsed by `parse(file, location, value)`, by id (once each);
    `seen` collects every id found, of records with problems too."""
    records: dict[str, OutputRecord] = {}
    if path is None:
        return records
    if not path.is_file():
        log.add(Problem(str(path), "file", "no such file"))
        return records
    try:
        for location, value in read_raw(path, limit=limit):
            if isinstance(value, Problem):
                log.add(value)
                continue
            if seen is not None and isinstance(value, dict) and isinstance(value.get("id"), str):
                seen.add(value["id"])
            record = parse(str(path), location, value)
            if record is None:
                continue
            first = records.get(record.record_id)
            if first is not None:
                message = f"id {record.record_id!r} again (first at {first.location})"
                log.add(Problem(str(path), location, message, "id"))
                continue
            records[record.record_id] = record
    except DatasetError as error:
        log.absorb(error)
    return records


def _text(log: ProblemLog, file: str, location: str, value: dict[str, Any], name: str) -> bool:
    if isinstance(value.get(name), str):
        return True
    got = describe_type(value[name]) if name in value else "no such field"
    log.add(Problem(file, location, f"expected the response as a string, got {got}", name))
    return False


def _number(value: object) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _output(
    log: ProblemLog, condition: Condition, file: str, location: str, value: Any
) -> OutputRecord | None:
    """A BoN `{id, query, output, aspects, score}` or PPO `{id, question, evaluation, ...}`."""
    item = record_with_id(log, file, location, value, "the question's")
    name = OUTPUT_FIELDS[condition.kind]
    if item is None or not _text(log, file, location, item, name):
        return None
    score = item.get("score")
    if condition.kind == BON and not _number(score):
        message = f"expected the reward model's score as a number, got {describe_type(score)}"
        log.add(Problem(file, location, message, "score"))
        return None
    rm_score = float(score) if _number(score) else None
    return OutputRecord(item["id"], file, location, item[name], rm_score)


def _eval(log: ProblemLog, file: str, location: str, value: Any) -> OutputRecord | None:
    """A judge's answer `{id, query, answer, aspects, scores, average_score}`."""
    item = record_with_id(log, file, location, value, "the question's")
    if item is None or not _text(log, file, location, item, "answer"):
        return None
    scores, average = item.get("scores"), item.get("average_score")
    if not isinstance(scores, list):
        message = f"expected the judge's list of scores, got {describe_type(scores)}"
        log.add(Problem(file, location, message, "scores"))
        return None
    wrong = [f"item {i + 1} is {json.dumps(v)}" for i, v in enumerate(scores) if not _number(v)]
    if wrong:
        log.add(Problem(file, location, f"expected numbers only: {'; '.join(wrong)}", "scores"))
        return None
    if not _number(average):
        message = f"expected the mean of the scores as a number, got {describe_type(average)}"
        log.add(Problem(file, location, message, "average_score"))
        return None
    points = [float(s) for s in scores]
    return OutputRecord(item["id"], file, location, item["answer"], None, points, float(average))


def _joined(
    log: ProblemLog,
    outputs: dict[str, OutputRecord],
    judged: dict[str, OutputRecord],
    file: str,
    seen: tuple[set[str], set[str]],
) -> dict[str, OutputRecord]:
    """The outputs with the judge's scores; every id in both files, the same text (a record
    with a problem of its own, `seen` in the outputs or the eval file but not read, is reported
    there only)."""
    joined: dict[str, OutputRecord] = {}
    for record_id, answer in judged.items():
        output = outputs.get(record_id)
        if output is None and record_id in seen[0]:
            continue
        if output is None:
            message = f"id {record_id!r} is not in the outputs file"
            log.add(Problem(file, answer.location, message, "id"))
        elif output.output != answer.output:
            message = f"the answer differs from the output at {output.file}, {output.location}"
            log.add(Problem(file, answer.location, message, "answer"))
        else:
            joined[record_id] = replace(
                output, judge_scores=answer.judge_scores, judge_average=answer.judge_average
            )
    for record_id in _missing(outputs, judged, seen[1]):
        output = outputs[record_id]
        message = f"id {record_id!r} has no judge's answer in {file}"
        log.add(Problem(output.file, output.location, message, "id"))
    return joined


def _missing(
    first: dict[str, OutputRecord], second: dict[str, OutputRecord], seen: set[str]
) -> Iterator[str]:
    return (r for r in first if r not in second and r not in seen)
