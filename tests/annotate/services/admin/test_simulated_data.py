"""Simulated data (issue 22 item 9, issue 24 item 6): `synth ratings` answers every question the
study asks (scores, aspect marks, the direct preference and its rationale); it never mixes with
real ratings silently: a study with real ratings is refused unless forced, each run is audited,
`synth remove` takes the made-up ratings out again, and the verdict and the card leave them out
unless the study counts them (then labelled). On SQLite and PostgreSQL (the `engine` fixture)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from sqlmodel import col, select
from typer.testing import CliRunner

from annotate.cli.common import State, app
from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, AspectMark, Assignment, AuditEntry, Rating
from annotate.domain.assignment import PairSelection
from annotate.domain.rating.preference import chosen_terms
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.errors import Conflict
from annotate.services.admin import plans, studies
from annotate.services.admin.publish import publish_study
from annotate.services.admin.simulated import (
    RealRatingsPresent,
    remove_simulated,
    store_simulated_ratings,
)
from annotate.services.results.reporting import study_pseudonyms, study_ratings, study_report
from tests.helpers.admin_helpers import make_people, make_study, rate


def _audit(engine, action: str) -> list[AuditEntry]:
    with read_session(engine) as session:
        return list(session.exec(select(AuditEntry).where(AuditEntry.action == action)).all())


def _with_real_ratings(engine, name: str = "real") -> None:
    """Study `name`: 12 pairs, a0 and a1 (people) rated every pair, each score 3 or 4."""
    make_study(engine, name, pairs=12, overlap=2)
    make_people(engine, 2)
    plans.make_plan(engine, SYSTEM, study=name, annotators=["a0", "a1"], selection=PairSelection())
    with read_session(engine) as session:
        items = session.exec(select(Assignment).where(col(Assignment.study_id).is_not(None))).all()
    for item in items:
        rate(engine, item.annotator_id, item.id, value=3 + item.id % 2, seconds=20.0)


@pytest.mark.parametrize("mode", ["required", "optional"])
def test_every_question_of_the_study_is_answered(engine, mode: str) -> None:
    make_study(engine, "s", pairs=30, ask_preference=True, rationale=mode, aspect_checklist=True)
    stored = store_simulated_ratings(engine, "s", n_annotators=3, seed=2, count=True)
    assert stored == 30 * 3 * 8
    with read_session(engine) as session:
        done = session.exec(select(Assignment)).all()
        rubric = {
            (r.assignment_id, r.response): r.score
            for r in session.exec(select(Rating).where(Rating.dimension == "rubric_alignment"))
        }
        marks = session.exec(select(AspectMark)).all()
    assert len(done) == 90
    assert marks  # the aspect checklist is answered too
    for item in done:
        assert item.side_preference is not None
        expected = max(-2, min(2, rubric[item.id, "chosen"] - rubric[item.id, "rejected"]))
        assert chosen_terms(item.side_preference, item.chosen_side) == expected
    rationales = [item.rationale for item in done]
    if mode == "required":
        assert all(rationales)
    else:
        assert 0 < sum(bool(r) for r in rationales) < len(rationales)
    report = study_report(study_ratings(engine, "s"))
    preference = report["preference"]  # the demo's preference figures exist
    assert preference["n_pairs"] == 30
    assert preference["forced_choice"]["strict"]["value"] is not None


def test_a_study_asking_other_questions_gets_simulated_answers_to_them(engine) -> None:
    """Simulated annotators answer the study's own questions (issue 35.1), the diverge question
    diverging by default."""
    make_study(engine, "rm", pairs=3)
    studies.update_study(engine, SYSTEM, "rm", questionnaire="rmbench")
    assert store_simulated_ratings(engine, "rm", n_annotators=2, seed=1) == 3 * 2 * 2 * 2
    with read_session(engine) as session:
        asked = {r.dimension for r in session.exec(select(Rating)).all()}
    assert asked == {"style", "substance"}


def test_a_study_with_real_ratings_is_refused_unless_forced_and_audited(engine) -> None:
    _with_real_ratings(engine)
    with pytest.raises(RealRatingsPresent, match="holds 192 real scores"):
        store_simulated_ratings(engine, "real", n_annotators=2, seed=1)
    with read_session(engine) as session:
        assert session.exec(select(Annotator).where(Annotator.simulated)).all() == []
    assert _audit(engine, "synth.ratings") == []
    stored = store_simulated_ratings(engine, "real", n_annotators=2, seed=1, force=True)
    assert stored == 12 * 2 * 8
    (entry,) = _audit(engine, "synth.ratings")
    assert entry.after == {
        "simulated_annotators": 2,
        "scores": 192,
        "count_simulated": False,
        "real_scores_in_study": 192,
        "forced": True,
    }
    with read_session(engine) as session:
        made_up = session.exec(select(Annotator).where(Annotator.simulated)).all()
    assert sorted(a.name for a in made_up) == ["sim-01", "sim-02"]


def test_the_verdict_and_the_card_leave_them_out_unless_the_study_counts_them(
    engine, tmp_path: Path
) -> None:
    _with_real_ratings(engine)
    store_simulated_ratings(engine, "real", n_annotators=3, seed=1, force=True)
    data = study_ratings(engine, "real")
    # the two people only (names: pseudonyms)
    assert data.snapshot.ratings["annotator"].nunique() == 2
    report = study_report(data)
    assert report["n_annotators"] == 2
    assert report["simulated"]["counted"] is False
    assert "left out of every figure" in report["simulated"]["note"]
    folder = tmp_path / "card"
    publish_study(engine, SYSTEM, "real", folder)
    published = pd.read_parquet(folder / "ratings.parquet")
    assert published["annotator"].nunique() == 2
    card = (folder / "README.md").read_text()
    assert "**Simulated ratings: 3 SIMULATED annotator(s)" in card
    assert "left out of every figure" in card
    assert "0 SIMULATED" not in card

    studies.update_study(engine, SYSTEM, "real", count_simulated=True)  # the study opts in
    counted = study_report(study_ratings(engine, "real"))
    assert counted["n_annotators"] == 5
    assert counted["simulated"]["counted"] is True
    from analysis.renderers.render import render_markdown

    heading = next(line for line in render_markdown(counted).splitlines() if "verdict" in line)
    assert "includes SIMULATED ratings" in heading
    again = tmp_path / "counted"
    publish_study(engine, SYSTEM, "real", again)
    card = (again / "README.md").read_text()
    assert "2 people and 3 SIMULATED annotators (made-up ratings, not people)" in card
    assert "COUNTED in every figure (the study opts in)" in card


def test_one_command_removes_every_made_up_rating(engine, db_url: str) -> None:
    _with_real_ratings(engine)
    make_study(engine, "other", pairs=4)
    store_simulated_ratings(engine, "real", n_annotators=2, seed=1, force=True)
    store_simulated_ratings(engine, "other", n_annotators=1, seed=1)  # sim-01 works there too
    with read_session(engine) as session:
        real_before = session.exec(
            select(Rating.id, Rating.score)
            .join(Assignment, col(Rating.assignment_id) == col(Assignment.id))
            .join(Annotator, col(Assignment.annotator_id) == col(Annotator.id))
            .where(col(Annotator.simulated).is_(False))
            .order_by(col(Rating.id))
        ).all()
    runner = CliRunner()
    try:
        result = runner.invoke(app, ["--db", db_url, "synth", "remove", "--study", "real"])
    finally:
        if State._engine is not None:
            State._engine.dispose()
    assert result.exit_code == 0, result.output
    assert "Removed 192 simulated scores, 24 assignments and 1 simulated accounts" in result.stdout
    with read_session(engine) as session:
        left = session.exec(
            select(Annotator.name, Assignment.study_id)
            .join(Assignment, col(Assignment.annotator_id) == col(Annotator.id))
            .where(col(Annotator.simulated).is_(True))
        ).all()
        real_after = session.exec(
            select(Rating.id, Rating.score)
            .join(Assignment, col(Rating.assignment_id) == col(Assignment.id))
            .join(Annotator, col(Assignment.annotator_id) == col(Annotator.id))
            .where(col(Annotator.simulated).is_(False))
            .order_by(col(Rating.id))
        ).all()
        names = {a.name for a in session.exec(select(Annotator)).all()}
    assert {name for name, _ in left} == {"sim-01"}  # only its work in the other study stays
    assert "sim-02" not in names  # no work left anywhere: the account is gone
    assert real_after == real_before  # every real score untouched
    (entry,) = _audit(engine, "synth.remove")
    assert json.loads(json.dumps(entry.after))["removed"]["scores"] == 192
    assert remove_simulated(engine, "real")["scores"] == 0
    assert len(_audit(engine, "synth.remove")) == 1  # nothing removed: nothing recorded
    assert study_ratings(engine, "real").snapshot.simulated is None


def test_a_person_s_account_named_like_a_simulated_one_is_never_used(engine) -> None:
    make_study(engine, "s", pairs=3)
    with write_session(engine) as session:
        accounts.create_account(session, "sim-01")
    with pytest.raises(Conflict, match="is a person's"):
        store_simulated_ratings(engine, "s", n_annotators=1, seed=1)
    with read_session(engine) as session:
        assert session.exec(select(Rating)).all() == []


def test_exports_name_a_person_by_pseudonym_even_when_named_like_a_simulated_account(engine):
    """Only accounts the simulation made (`Annotator.simulated`) keep their names in what is
    published; a person named "sim-05" is a person."""
    make_study(engine, "s", pairs=3)
    with write_session(engine) as session:
        accounts.create_account(session, "sim-05")
    plans.make_plan(
        engine, SYSTEM, study="s", annotators=["sim-05"], selection=PairSelection(), per_pair=1
    )
    store_simulated_ratings(engine, "s", n_annotators=1, seed=1)  # sim-01, simulated
    with read_session(engine) as session:
        names = study_pseudonyms(session, 1)
    assert names["sim-01"] == "sim-01"
    assert names["sim-05"] != "sim-05"
