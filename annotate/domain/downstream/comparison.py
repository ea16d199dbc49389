"""Comparison studies (issue 25, item 2): two downstream conditions of a benchmark study on the
same questions (best-of-1 against best-of-16 of one reward model, two reward models at the same
k, a base policy against its PPO-trained version), each question a blinded A/B pair.

The new study's pairs are ordinary pairs: the question, profile, narrative and rubric of the
benchmark record, the expected condition's output as `chosen` and the other's as `rejected`.
The rating page, the blinding (the side drawn per annotator), the aspect checklist and the
exports then work unchanged, and which condition is expected to win stays on the server as it
does for every pair (`study.comparison` names both; nothing of it is in a pair's texts, ids or
extra fields). Questions whose two outputs are identical (common: best-of-k takes the first k
samples, so best-of-1's pick is often best-of-16's too) get no pair: their ids are kept in
`study.comparison["identical"]` and count as zero gain in the analysis. The judge's usable
scores of both outputs come along as the study's judge `DOWNSTREAM_JUDGE` (its unusable answers
in that judge's `unparsed`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, col, select

from annotate.db.tables import AspectJudge, AspectJudgeScore, DownstreamOutput, Pair, stored_id
from annotate.domain.dataset.records import content_hash
from annotate.domain.downstream.conditions import parse_condition
from annotate.domain.downstream.files import OK
from annotate.domain.downstream.outputs import require_condition
from annotate.domain.study.studies import create_study, get_study
from annotate.errors import Invalid

DOWNSTREAM_JUDGE = "downstream-judge"
COMPARISON_KEYS = ("source_study", "expected", "baseline", "identical", "n_questions")


@dataclass(frozen=True)
class ComparisonSummary:
    study: str
    source_study: str
    expected: str
    baseline: str
    n_questions: int
    n_pairs: int
    n_identical: int


def is_comparison(comparison: dict[str, Any] | None) -> bool:
    """Whether a study's `comparison` field makes it a comparison study (no verdict shown)."""
    return bool(comparison and comparison.get("expected"))


def create_comparison(
    session: Session,
    *,
    source_study: str,
    name: str,
    expected: str,
    baseline: str,
    **settings: Any,
) -> ComparisonSummary:
    """Create study `name` from two conditions of `source_study`, in the caller's transaction.

    `settings` are the new study's (overlap, seed, ...); the aspect checklist is on, so that
    the humans score the judge's own 0/1/2 per aspect.
    """
    if parse_condition(expected) == parse_condition(baseline):
        raise Invalid("a comparison needs two different conditions")
    source = get_study(session, source_study)
    first = require_condition(session, source_study, parse_condition(expected).name)
    second = require_condition(session, source_study, parse_condition(baseline).name)
    win, base = _outputs(session, stored_id(first)), _outputs(session, stored_id(second))
    questions = sorted(set(win) & set(base))
    if not questions:
        raise Invalid(f"conditions {first.name!r} and {second.name!r} share no question")
    pairs = _source_pairs(session, stored_id(source), [win[q].pair_id for q in questions])
    identical = [pairs[win[q].pair_id].record_id for q in questions if _same(win[q], base[q])]
    shown = [q for q in questions if not _same(win[q], base[q])]
    settings.setdefault("aspect_checklist", True)
    study = create_study(session, name, **settings)
    study.comparison = {
        "source_study": source.name,
        "expected": first.name,
        "baseline": second.name,
        "identical": identical,
        "n_questions": len(questions),
    }
    session.add(study)
    session.flush()
    new_ids = _copy_pairs(session, stored_id(study), shown, pairs, win, base)
    records = {s: pairs[s].record_id for s in shown}
    _judge(session, stored_id(study), records, new_ids, win, base)
    return ComparisonSummary(
        study.name, source.name, first.name, second.name, len(questions), len(shown), len(identical)
    )


def _outputs(session: Session, condition_id: int) -> dict[int, DownstreamOutput]:
    query = select(DownstreamOutput).where(col(DownstreamOutput.condition_id) == condition_id)
    return {o.pair_id: o for o in session.exec(query)}


def _source_pairs(session: Session, study_id: int, ids: list[int]) -> dict[int, Pair]:
    query = select(Pair).where(col(Pair.study_id) == study_id, col(Pair.id).in_(ids))
    return {stored_id(p): p for p in session.exec(query)}


def _same(first: DownstreamOutput, second: DownstreamOutput) -> bool:
    return first.output == second.output


def _copy_pairs(
    session: Session,
    study_id: int,
    shown: list[int],
    pairs: dict[int, Pair],
    win: dict[int, DownstreamOutput],
    base: dict[int, DownstreamOutput],
) -> dict[int, int]:
    """The comparison's pairs; source pair id -> new pair id."""
    rows = []
    for source_id in shown:
        pair = pairs[source_id]
        data = {
            "id": pair.record_id,
            "question": pair.question,
            "profile": pair.profile,
            "rubric_aspects": pair.rubric_aspects,
            "narrative": pair.narrative,
            "category": pair.category,
            "chosen": win[source_id].output,
            "rejected": base[source_id].output,
        }
        rows.append(
            {
                "study_id": study_id,
                "record_id": pair.record_id,
                "domain": pair.domain,
                "category": pair.category,
                "question": pair.question,
                "narrative": pair.narrative,
                "profile": pair.profile,
                "rubric_aspects": pair.rubric_aspects,
                "chosen": data["chosen"],
                "rejected": data["rejected"],
                "conversation": pair.conversation,
                "extra": {},
                "content_hash": content_hash(data, pair.conversation),
            }
        )
    if rows:
        session.execute(insert(Pair), rows)
    query = select(Pair.record_id, Pair.id).where(col(Pair.study_id) == study_id)
    by_record = {r: int(i or 0) for r, i in session.exec(query)}
    return {s: by_record[pairs[s].record_id] for s in shown}


def _judge(
    session: Session,
    study_id: int,
    records: dict[int, str],
    new_ids: dict[int, int],
    win: dict[int, DownstreamOutput],
    base: dict[int, DownstreamOutput],
) -> None:
    """The judge's scores of both outputs of each pair: usable ones as scores, the rest in
    `unparsed` (nothing when neither condition was judged)."""
    scores: list[dict[str, Any]] = []
    unparsed: list[dict[str, Any]] = []
    judged: set[int] = set()
    for source_id, record_id in records.items():
        for response, output in (("chosen", win[source_id]), ("rejected", base[source_id])):
            if output.judge_status is None:
                continue
            if output.judge_status != OK:
                unparsed.append(_unparsed(record_id, response, output))
                continue
            judged.add(source_id)
            scores.extend(
                {
                    "pair_id": new_ids[source_id],
                    "response": response,
                    "aspect_index": index,
                    "coverage": int(value),
                }
                for index, value in enumerate(output.judge_scores or [])
            )
    if not scores and not unparsed:
        return
    judge = AspectJudge(
        study_id=study_id,
        name=DOWNSTREAM_JUDGE,
        source_file="(downstream eval files)",
        content_hash=content_hash({"scores": scores, "unparsed": unparsed}),
        n_pairs=len(judged),
        unparsed=unparsed,
    )
    session.add(judge)
    session.flush()
    for row in scores:
        row["judge_id"] = stored_id(judge)
    if scores:
        session.execute(insert(AspectJudgeScore), scores)


def _unparsed(record_id: str, response: str, output: DownstreamOutput) -> dict[str, Any]:
    return {
        "pair_id": record_id,
        "response": response,
        "scores": output.judge_scores,
        "problem": output.judge_status,
    }
