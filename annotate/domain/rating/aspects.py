"""The per-aspect checklist (issue 14, item 1): for each rubric aspect of the pair and each
response, the annotator marks its coverage, 0 = not covered, 1 = partly, 2 = well (the scale of
the benchmark's own judge prompt, Personalized-RewardBench `prompts/evaluation.txt`: "0 = The
answer does not cover this aspect. 1 = The answer somewhat covers this aspect. 2 = The answer
covers this aspect very well.").

Blinding: the page sends marks by side (A, B) as one list per side in the pair's aspect order;
`save_marks` maps each side to its response here, on the server, like the scores. A changed mark
keeps its earlier value as a revision (`AspectMarkRevision`). These functions work in the
caller's transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session, select

from annotate.db.tables import AspectMark, AspectMarkRevision, Assignment, Pair, Study, stored_id
from annotate.domain.assignment.blinding import response_on
from annotate.domain.rating.revisions import AnswerTable, save_answers
from annotate.vocabulary import COVERAGE_POINTS, SIDES

AspectMarks = Mapping[str, Sequence[int | None]]
"""side ('A' or 'B') -> coverage of each rubric aspect, in the pair's order (None: not given)."""


def aspect_text(aspect: object) -> str:
    """The words of one rubric aspect (`{aspect, evidence, reason}`), as the page shows them."""
    return str(aspect.get("aspect", "")) if isinstance(aspect, dict) else str(aspect)


def missing(n_aspects: int, marks: AspectMarks | None) -> list[str]:
    """Names of the marks still to be given, in page terms ('Aspect 2, Response B')."""
    given = marks or {}
    return [
        f"Aspect {index + 1}, Response {side}"
        for index in range(n_aspects)
        for side in SIDES
        if _at(given.get(side, ()), index) is None
    ]


def _at(values: Sequence[int | None], index: int) -> int | None:
    return values[index] if index < len(values) else None


def problems(study: Study, n_aspects: int, marks: AspectMarks | None) -> list[str]:
    """What is wrong with submitted marks for this study and pair (empty: they can be saved)."""
    if not study.aspect_checklist:
        return ["this study does not use the aspect checklist"] if marks else []
    gaps = missing(n_aspects, marks)
    found = ["Missing aspect marks: " + "; ".join(gaps)] if gaps else []
    for side, values in (marks or {}).items():
        if side not in SIDES or len(values) > n_aspects:
            found.append(f"aspect marks for Response {side}: the pair has {n_aspects} aspects")
            continue
        for index, value in enumerate(values):
            valid = isinstance(value, int) and not isinstance(value, bool)
            if value is not None and not (valid and value in COVERAGE_POINTS):
                found.append(
                    f"Aspect {index + 1}, Response {side}: {value!r} is not one of "
                    + ", ".join(map(str, COVERAGE_POINTS))
                )
    return found


MARKS = AnswerTable(
    row=AspectMark,
    key=("response", "aspect_index"),
    compared="coverage",
    revision=AspectMarkRevision,
    revision_of="mark_id",
    kept=("coverage",),
)


def save_marks(
    session: Session, assignment: Assignment, marks: AspectMarks, now: datetime
) -> tuple[bool, int]:
    """Store the checked marks by response; return (any stored before, how many changed)."""
    given: dict[tuple[str, int], dict[str, Any]] = {}
    for side in SIDES:
        response = response_on(side, assignment.chosen_side)
        for index, value in enumerate(marks[side]):
            assert value is not None  # `problems` refused a missing mark
            given[(response, index)] = {"coverage": int(value)}
    return save_answers(session, MARKS, stored_id(assignment), given, now)


def marks_by_side(
    session: Session, assignment: Assignment, pair: Pair
) -> dict[str, list[int | None]]:
    """The marks already given, by side, in the pair's aspect order (for the page)."""
    by_side: dict[str, list[int | None]] = {s: [None] * len(pair.rubric_aspects) for s in SIDES}
    side_of: dict[str, str] = {response_on(s, assignment.chosen_side): s for s in SIDES}
    for mark in session.exec(select(AspectMark).where(AspectMark.assignment_id == assignment.id)):
        if mark.aspect_index < len(pair.rubric_aspects):
            by_side[side_of[mark.response]][mark.aspect_index] = mark.coverage
    return by_side
