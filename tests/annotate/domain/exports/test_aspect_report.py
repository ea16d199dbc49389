"""The aspect checklist from the database to the report and the published folder: simulated
annotators' marks (services.simulated) and an imported judge reach `study_report`'s `aspects`
key through services.reporting; a study without the option has none."""

from __future__ import annotations

import json

import pandas as pd
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Pair
from annotate.domain.exports.publish import ASPECTS_FILE
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study, update_study
from annotate.services.admin.aspects import import_judge
from annotate.services.admin.data import import_files
from annotate.services.admin.publish import publish_study
from annotate.services.admin.simulated import store_simulated_ratings
from annotate.services.results.reporting import study_ratings, study_report


def _study(engine, demo_files, *, checklist: bool) -> None:
    with write_session(engine) as session:
        get_or_create_study(session, "s", seed=3)
        update_study(session, "s", aspect_checklist=checklist)
    import_files(engine, SYSTEM, demo_files, study="s")
    store_simulated_ratings(engine, "s", n_annotators=3, seed=1, count=True)


def test_a_study_with_the_checklist_reports_its_aspects(engine, demo_files, tmp_path):
    _study(engine, demo_files, checklist=True)
    with read_session(engine) as session:
        pairs = session.exec(select(Pair).where(Pair.gold_preference == None)).all()  # noqa: E711
    judge = tmp_path / "judge.jsonl"  # a judge that agrees with the manipulation: 2 vs 0
    judge.write_text(
        "".join(
            json.dumps({"id": p.record_id, "chosen": [2] * len(p.rubric_aspects),
                        "rejected": [0] * len(p.rubric_aspects)}) + "\n"
            for p in pairs
        ),
        encoding="utf-8",
    )  # fmt: skip
    import_judge(engine, SYSTEM, judge, study="s", judge="judge-1")
    data = study_ratings(engine, "s")
    assert data.snapshot.aspects is not None
    n_marks = 3 * 2 * sum(len(p.rubric_aspects) for p in pairs)
    assert len(data.snapshot.aspects) == n_marks
    report = study_report(data)
    aspects = report["aspects"]
    assert aspects["n_marks"] == n_marks
    assert aspects["n_annotators"] == 3
    assert aspects["overall"]["mean_diff"] > 0.5  # simulated: chosen covers more
    (overall, *by_place) = aspects["judges"]["judge-1"]
    assert overall["n"] == 2 * sum(len(p.rubric_aspects) for p in pairs)
    assert len(by_place) == max(len(p.rubric_aspects) for p in pairs)
    folder = tmp_path / "card"
    written = publish_study(engine, SYSTEM, "s", folder)
    assert folder / ASPECTS_FILE in written
    table = pd.read_parquet(folder / ASPECTS_FILE)
    assert len(table) == n_marks
    assert not table["excluded"].any()
    assert f"`{ASPECTS_FILE}`: the aspect checklist" in (folder / "README.md").read_text("utf-8")


def test_a_study_without_the_checklist_has_no_aspects(engine, demo_files, tmp_path):
    _study(engine, demo_files, checklist=False)
    data = study_ratings(engine, "s")
    assert data.snapshot.aspects is None
    assert "aspects" not in study_report(data)
    written = publish_study(engine, SYSTEM, "s", tmp_path / "card")
    assert tmp_path / "card" / ASPECTS_FILE not in written
    assert ASPECTS_FILE not in (tmp_path / "card" / "README.md").read_text("utf-8")
