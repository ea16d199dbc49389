"""The direct preference from the database to the report: stored by side, mapped to the
responses on the server, summarised in the study's report (and absent when not asked)."""

from __future__ import annotations

from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment
from annotate.domain.study.studies import update_study
from annotate.services.admin.demo import set_up_demo
from annotate.services.participant.rating import submit_rating
from annotate.services.results.reporting import study_ratings, study_report

SCORES = {
    "A": {"factuality": 3, "relevance": 3, "helpfulness": 3, "rubric_alignment": 4},
    "B": {"factuality": 3, "relevance": 3, "helpfulness": 3, "rubric_alignment": 2},
}


def _rate_all(engine, side_preference):
    with read_session(engine) as session:
        mine = session.exec(select(Assignment)).all()
    for item in mine:
        submit_rating(
            engine,
            annotator_id=item.annotator_id,
            assignment_id=item.id,
            scores=SCORES,
            seconds=5.0,
            side_preference=side_preference,
            rationale="short steps" if side_preference is not None else None,
        )
    return mine


def test_the_report_counts_the_preference_in_terms_of_the_responses(engine):
    set_up_demo(engine)
    with write_session(engine) as session:
        update_study(session, "demo", ask_preference=True, rationale="optional")
    rated = _rate_all(engine, side_preference=1)  # always "B better"
    chosen_on_b = sum(a.chosen_side == "B" for a in rated)  # "B better" = chosen better there
    assert 0 < chosen_on_b < len(rated)
    report = study_report(study_ratings(engine, "demo"))
    choice = report["preference"]["forced_choice"]
    assert (choice["n_judgements"], choice["n_ties"]) == (len(rated), 0)
    assert choice["n_chosen"] == chosen_on_b
    assert choice["strict"]["value"] == chosen_on_b / len(rated)
    # The scores put A higher on the rubric: the preference (B) agrees with them nowhere.
    assert report["preference"]["with_scores"]["agreement"] == 0.0


def test_a_study_without_the_preference_reports_as_before(engine):
    set_up_demo(engine)
    _rate_all(engine, side_preference=None)
    report = study_report(study_ratings(engine, "demo"))
    assert "preference" not in report


def test_the_report_splits_the_annotators_by_their_survey_answers(engine):
    from annotate.domain.crowd.consent import save_survey
    from annotate.domain.study.studies import get_study

    question = {"id": "age", "text": "Age band", "kind": "choice", "options": ["18-49", "50+"]}
    demo = set_up_demo(engine)
    with write_session(engine) as session:
        update_study(session, "demo", survey_questions=[question])
        annotator = session.exec(select(Annotator).where(Annotator.name == demo.annotator)).one()
        save_survey(session, annotator.id, get_study(session, "demo"), {"age": "50+"})
    rated = _rate_all(engine, side_preference=None)
    report = study_report(study_ratings(engine, "demo"))
    (group,) = report["by_attribute"]["age"].values()
    assert report["by_attribute"]["age"].keys() == {"50+"}
    assert group["n_annotators"] == 1
    assert group["rubric_accuracy"]["n"] == len(rated)
    # Every pair: A scored 4, B 2 on the rubric; chosen wins where it was shown as A.
    assert group["rubric_accuracy"]["value"] == sum(a.chosen_side == "A" for a in rated) / len(
        rated
    )
    assert group["forced_choice"] is None


def test_the_rationales_join_the_comments_of_the_label_audit(engine):
    from annotate.domain.models.reward_models import pair_comments

    set_up_demo(engine)
    with write_session(engine) as session:
        update_study(session, "demo", ask_preference=True, rationale="optional")
    rated = _rate_all(engine, side_preference=-1)
    first = rated[0]
    submit_rating(
        engine,
        annotator_id=first.annotator_id,
        assignment_id=first.id,
        scores=SCORES,
        seconds=5.0,
        comment="odd wording",
        side_preference=-1,
        rationale="A is shorter",
    )
    with read_session(engine) as session:
        comments = pair_comments(session, "demo")
    assert len(comments) == len(rated)
    texts = set(comments["comment"])
    assert texts == {"rationale: short steps", "odd wording rationale: A is shorter"}
