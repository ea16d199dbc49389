"""The shared assignment join (`annotate.db.queries`): its rows, and that it is the only one."""

from __future__ import annotations

import re
from pathlib import Path

from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.queries import joined_assignments
from annotate.db.tables import Annotator, Assignment, Pair, Rating
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study
from annotate.services.admin.data import import_files
from annotate.services.participant.rating import submit_rating

ROOT = Path(__file__).resolve().parents[3]
USERS = [
    "annotate/domain/exports/export.py",
    "annotate/domain/exports/aspect_export.py",
    "annotate/domain/rating/quality.py",
    "annotate/domain/rating/progress.py",
]
SCORES = {
    s: dict.fromkeys(("factuality", "relevance", "helpfulness", "rubric_alignment"), 3)
    for s in "AB"
}


def test_one_row_per_assignment_or_per_score(engine, tmp_path, write_records, make_record):
    path = write_records(tmp_path / "Art_test.jsonl", [make_record(f"0_{i}_0") for i in range(3)])
    with write_session(engine) as session:
        get_or_create_study(session, "s", seed=1)
    import_files(engine, SYSTEM, [path], study="s")
    with write_session(engine) as session:
        study = get_or_create_study(session, "s")
        alice, _ = accounts.create_account(session, "alice")
        first, *_ = assign_pairs(session, study, alice, study_pairs(session, study))
        first_id = first.id
    submit_rating(engine, annotator_id=alice.id, assignment_id=first_id, scores=SCORES, seconds=4)
    with read_session(engine) as session:
        per_item = session.exec(joined_assignments(Annotator.name, Pair.record_id)).all()
        per_score = session.exec(
            joined_assignments(Assignment.id, Rating.dimension, ratings=True)
        ).all()
        raw = session.exec(select(Rating.assignment_id)).all()
    assert sorted(r[1] for r in per_item) == ["0_0_0", "0_1_0", "0_2_0"]
    assert {r[0] for r in per_item} == {"alice"}
    assert len(per_score) == len(raw) == 8
    assert {r[0] for r in per_score} == {first_id}


def test_the_domain_writes_the_assignment_join_only_through_queries():
    users = USERS + [
        str(p.relative_to(ROOT)) for p in (ROOT / "annotate/domain/assignment").glob("*.py")
    ]
    own_join = re.compile(r"\.join\(\s*(Pair|Assignment|Rating)\b[^)]*(pair_id|assignment_id)")
    for name in users:
        text = (ROOT / name).read_text(encoding="utf-8")
        assert not own_join.search(text), f"{name} writes its own assignment join"
    for name in USERS:  # the exports through export_rows, which is built on joined_assignments
        text = (ROOT / name).read_text(encoding="utf-8")
        assert "joined_assignments" in text or "export_rows" in text, name
