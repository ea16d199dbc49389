"""The study verdict is the intersection of each question's role (issue 35.1): every `tie`
question ties and every `diverge` question diverges; `describe` questions are reported without
a hypothesis, a choice question as counts by response. On simulated ratings of a study with
three questions and one with six, from a DataFrame and through `python -m analysis report`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analysis.cli import app
from analysis.report import build_report
from analysis.schema.report_types import Report
from analysis.simulate import simulate_ratings
from annotate.questionnaire import Questionnaire, parse_questionnaire
from tests.helpers.questionnaire_helpers import SIX, STRONG, THREE

FAST = {"n_boot": 0, "mixed": False, "domains": False}


def report_of(questionnaire: Questionnaire, effects: Mapping[str, float]) -> Report:
    ratings = simulate_ratings(40, 5, effects, seed=3, questionnaire=questionnaire)
    return build_report(ratings, questionnaire=questionnaire, **FAST)  # type: ignore[arg-type]


def verdicts(report: Report) -> dict[str, str]:
    return {key: result["verdict"] for key, result in report["dimensions"].items()}


def test_three_questions_validate_when_the_tie_ties_and_the_diverge_diverges() -> None:
    report = report_of(THREE, {"substance": STRONG})
    assert verdicts(report) == {"style": "tie", "substance": "diverges"}
    assert report["checks"]["validated"] is True
    assert report["dimensions"]["substance"]["label"] == "Substance"
    assert report["questionnaire"] == THREE.stored()
    assert "mean the target, substance" in report["methods"]["questionnaire"]


def test_a_tie_question_that_diverges_fails_the_verdict() -> None:
    report = report_of(THREE, {"style": STRONG, "substance": STRONG})
    assert verdicts(report)["style"] == "diverges"
    assert report["checks"]["general_quality_tie"] is False
    assert report["checks"]["validated"] is False


def test_a_choice_question_is_counted_by_response_not_averaged() -> None:
    report = report_of(THREE, {"substance": STRONG})
    assert "length" not in report["dimensions"]
    length = report["choices"]["length"]
    assert length["choices"] == ["too short", "about right", "too long"]
    assert sum(length["counts"]["chosen"]) == sum(length["counts"]["rejected"]) == 40 * 5
    assert length["n_pairs"] == 40


def test_six_questions_validate_only_when_every_diverge_question_diverges() -> None:
    both = report_of(SIX, {"accuracy": STRONG, "safety": STRONG})
    assert both["checks"]["validated"] is True
    assert list(both["dimensions"]) == ["clarity", "tone", "accuracy", "safety", "creativity"]
    one = report_of(SIX, {"accuracy": STRONG})
    assert verdicts(one)["accuracy"] == "diverges"
    assert verdicts(one)["safety"] != "diverges"
    assert one["checks"]["rubric_alignment_diverges"] is False
    assert one["checks"]["validated"] is False


def test_a_describe_question_is_reported_without_a_hypothesis() -> None:
    report = report_of(SIX, {"accuracy": STRONG, "safety": STRONG, "creativity": STRONG})
    creativity = report["dimensions"]["creativity"]
    assert creativity["mean_diff"] > 1.0  # reported: means, differences, intervals
    assert creativity["ci95"] is not None
    assert any("without a hypothesis" in note for note in creativity["notes"])
    assert report["checks"]["validated"] is True  # no hypothesis: it cannot fail the verdict


def test_human_accuracy_reads_the_target_question() -> None:
    """The first diverge question is the target: strong on it, accuracy well above a half."""
    strong_target = report_of(SIX, {"accuracy": STRONG})
    weak_target = report_of(SIX, {"safety": STRONG})
    assert strong_target["human_accuracy"]["accuracy"] > 0.75
    assert weak_target["human_accuracy"]["accuracy"] < 0.65


def test_a_rating_of_a_question_not_asked_is_refused_with_its_row() -> None:
    ratings = simulate_ratings(6, 2, seed=1, questionnaire=THREE)
    ratings.loc[4, "dimension"] = "factuality"
    with pytest.raises(ValueError, match=r"row 5, column 'dimension': expected one of 'style'"):
        build_report(ratings, questionnaire=THREE, **FAST)  # type: ignore[arg-type]


def test_a_choice_beyond_the_list_is_refused() -> None:
    ratings = simulate_ratings(6, 2, seed=1, questionnaire=THREE)
    row = ratings.index[ratings["dimension"] == "length"][0]
    ratings.loc[row, "score"] = 5
    with pytest.raises(ValueError, match="question 'length', a choice from 1 to 3, got 5"):
        build_report(ratings, questionnaire=THREE, **FAST)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("effects", "validated"),
    [({"accuracy": STRONG, "safety": STRONG}, True), ({"accuracy": STRONG}, False)],
)
def test_the_command_line_reads_the_questionnaire_file(
    tmp_path: Path, effects: dict[str, float], validated: bool
) -> None:
    ratings = tmp_path / "ratings.csv"
    simulate_ratings(40, 5, effects, seed=3, questionnaire=SIX).to_csv(ratings, index=False)
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps(SIX.stored()), encoding="utf-8")
    args = ["report", str(ratings), "--questionnaire", str(questions), "--bootstrap", "0"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["checks"]["validated"] is validated
    assert list(report["choices"]) == ["format"]


def test_the_command_line_names_a_bad_questionnaire_file(tmp_path: Path) -> None:
    questions = tmp_path / "questions.yaml"
    questions.write_text("questions:\n  - {key: a, label: A, text: T, points: [1, 3]}\n")
    ratings = tmp_path / "ratings.csv"
    simulate_ratings(4, 2, seed=1).to_csv(ratings, index=False)
    result = CliRunner().invoke(app, ["report", str(ratings), "--questionnaire", str(questions)])
    assert result.exit_code == 1
    assert f"{questions}: questionnaire.questions[0]" in result.output


def test_the_command_line_defaults_to_the_benchmark_template(tmp_path: Path) -> None:
    ratings = tmp_path / "ratings.csv"
    simulate_ratings(12, 3, {"rubric_alignment": STRONG}, seed=1).to_csv(ratings, index=False)
    result = CliRunner().invoke(app, ["report", str(ratings), "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert list(report["dimensions"]) == [
        "factuality", "relevance", "helpfulness", "rubric_alignment",
    ]  # fmt: skip
    assert "questionnaire" not in report
    assert "choices" not in report
    assert "questionnaire" not in report["methods"]


def test_a_questionnaire_without_a_diverge_question_is_refused_in_words() -> None:
    """Human accuracy, the caveat and the models read the first diverge question: without
    one the report says so instead of reading another question as the target."""
    ties_only = parse_questionnaire(
        {"questions": [{"key": "style", "label": "Style", "text": "How?", "role": "tie"}]}
    )
    ratings = simulate_ratings(12, 3, seed=1, questionnaire=ties_only)
    with pytest.raises(ValueError, match="no 'diverge' question: no target to read"):
        build_report(ratings, questionnaire=ties_only, **FAST)  # type: ignore[arg-type]
