"""A study asking its own questions (issue 35.1), through `services/reporting`: the service
loads the study's questionnaire and hands it to the analysis, whose verdict is the intersection
of each question's role. Simulated ratings answer the study's questions. On SQLite and
PostgreSQL (the `engine` fixture)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from analysis.study_report import Margin
from annotate.db import write_session
from annotate.domain.exports.publish import CARD_FILE
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_study
from annotate.questionnaire import Questionnaire
from annotate.services.admin.publish import card_files
from annotate.services.admin.simulated import store_simulated_ratings
from annotate.services.results.reporting import study_ratings, study_report
from tests.helpers.admin_helpers import make_study
from tests.helpers.questionnaire_helpers import SIX, STRONG, THREE


def rated_study(engine, questionnaire: Questionnaire, effects: Mapping[str, float]) -> str:
    make_study(engine, "q", pairs=30)
    with write_session(engine) as session:
        study = get_study(session, "q")
        study.questionnaire = questionnaire.stored()
        session.add(study)
    store_simulated_ratings(engine, "q", n_annotators=5, effects=effects, seed=4, count=True)
    return "q"


def report_of(engine, questionnaire: Questionnaire, effects: Mapping[str, float]):
    data = study_ratings(engine, rated_study(engine, questionnaire, effects))
    assert data.settings.questionnaire == questionnaire
    return study_report(data, mixed=False, domains=False)


@pytest.mark.parametrize(
    ("effects", "validated"),
    [({"substance": STRONG}, True), ({"style": STRONG, "substance": STRONG}, False)],
    ids=["tie ties", "tie fails"],
)
def test_three_questions_through_the_service(engine, effects, validated: bool) -> None:
    report = report_of(engine, THREE, effects)
    assert list(report["dimensions"]) == ["style", "substance"]
    assert report["checks"]["validated"] is validated
    assert sum(report["choices"]["length"]["counts"]["chosen"]) == 30 * 5


def test_six_questions_fail_when_the_second_diverge_question_does(engine) -> None:
    report = report_of(engine, SIX, {"accuracy": STRONG})
    assert report["dimensions"]["accuracy"]["verdict"] == "diverges"
    assert report["dimensions"]["safety"]["verdict"] != "diverges"
    assert report["checks"]["validated"] is False
    assert report["questionnaire"]["questions"][3]["key"] == "safety"


def test_a_margin_given_in_the_study_s_unit_keeps_it(engine) -> None:
    """Issue 35.4: the results page's margin is in the study's unit (SD units here), and a
    changed value stays in it instead of turning into scale points."""
    make_study(engine, "sd", pairs=12, margin_unit="sd")
    store_simulated_ratings(engine, "sd", n_annotators=3, seed=4, count=True)
    data = study_ratings(engine, "sd")
    report = study_report(data, margin=Margin(0.4, "sd"), mixed=False, domains=False)
    assert report["settings"]["margin_unit"] == "sd"
    assert report["settings"]["margin"] == 0.4


def test_the_card_lists_the_questionnaire_and_its_claims(engine) -> None:
    rated_study(engine, THREE, {"substance": STRONG})
    card = card_files(engine, SYSTEM, "q")[CARD_FILE].decode("utf-8")
    assert "- **Questionnaire**: 3 question(s)" in card
    assert "| style | Style | How is the style? | 1 to 5 | tie |" in card
    assert (
        "| length | Length | How is the length? | 1 = too short; 2 = about right; 3 = too long"
        in card
    )
    assert (
        "every tie question ties (style) (yes), every diverge question diverges (substance)" in card
    )
    assert "scores the chosen response higher on substance" in card
    assert "- **Dimensions**" not in card
    assert "the question's key (style, substance, length; see Protocol)" in card
