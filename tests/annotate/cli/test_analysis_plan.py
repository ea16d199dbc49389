"""The locked, pre-registered analysis plan (issue 23 item 3), through the command line on a real
database: the smallest effect of interest, alpha, planned size and stopping rule are study
settings beside the margin; every one is refused once ratings exist unless forced; a forced
change is audited with before and after and said in the report's headline, its plan section,
the methods paragraph and the card; the plan is exported with a timestamp and carried beside the
export, where `python -m analysis report` reads it and says where its options differ; a verdict
before the planned size is interim."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analysis.cli import app as analysis_app

STOP = "Stop at 500 pairs rated by 3 people, or on 31 March 2027."


@pytest.fixture
def rated(cli, tmp_path: Path) -> Path:
    """Study `s` with its plan set before the (simulated, counted) ratings arrive."""
    created = cli(
        "studies", "create", "s", "--margin", "0.3", "--smallest-effect", "0.2",
        "--alpha", "0.01", "--planned-pairs", "500", "--stopping-rule", STOP,
        "--count-simulated",
    )  # fmt: skip
    assert created.exit_code == 0, created.output
    data = tmp_path / "data"
    assert (
        cli("synth", "dataset", str(data), "--scale", "0.005", "--profile-size", "2").exit_code == 0
    )
    assert cli("import", *map(str, sorted(data.glob("*.jsonl"))), "--study", "s").exit_code == 0
    synth = cli("synth", "ratings", "--study", "s", "--annotators", "3")
    assert synth.exit_code == 0, synth.output
    return tmp_path


def _report(cli, *options: str) -> dict:
    result = cli("report", "--study", "s", "--bootstrap", "0", *options)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _markdown(cli) -> str:
    result = cli("report", "--study", "s", "--bootstrap", "0", "--format", "md")
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_plan_is_shown_and_exported_with_a_timestamp(cli, rated: Path) -> None:
    shown = [" ".join(line.split()) for line in cli("studies", "show", "s").stdout.splitlines()]
    for line in ("smallest effect 0.2 points", "alpha 0.01", "planned pairs 500"):
        assert line in shown
    assert f"stopping rule {STOP}" in shown
    path = rated / "prereg" / "plan.json"
    path.parent.mkdir()
    result = cli("studies", "export-plan", "--study", "s", str(path))
    assert result.exit_code == 0, result.output
    document = json.loads(path.read_text())
    exported = datetime.fromisoformat(document["exported_at"])
    assert abs(datetime.now(UTC) - exported) < timedelta(minutes=5)
    plan = document["plan"]
    assert (plan["margin"], plan["unit"], plan["smallest_effect"], plan["alpha"]) == (
        0.3, "points", 0.2, 0.01,
    )  # fmt: skip
    assert (plan["planned_pairs"], plan["stopping_rule"]) == (500, STOP)
    assert document["set_at"] < document["first_rating_at"]  # set before the data
    assert document["changes"] == []
    markdown = path.with_suffix(".md").read_text()
    assert "- Smallest effect of interest (rubric alignment must exceed it): 0.2" in markdown
    assert "- Alpha: 0.01" in markdown
    assert "No change to the plan since it was set." in markdown
    assert cli("studies", "export-plan", "--study", "s", str(rated / "plan.txt")).exit_code == 1


@pytest.mark.parametrize(
    "change",
    [
        ("--margin", "0.6"),
        ("--margin-unit", "sd"),
        ("--smallest-effect", "margin"),
        ("--alpha", "0.05"),
        ("--planned-pairs", "0"),
        ("--stopping-rule", ""),
    ],
)
def test_every_plan_setting_is_locked_once_ratings_exist(cli, rated: Path, change) -> None:
    before = cli("studies", "show", "s").stdout
    refused = cli("studies", "edit", "s", *change, "--yes")
    assert refused.exit_code == 1
    assert "not pre-registered; pass the force flag" in refused.stderr
    assert cli("studies", "show", "s").stdout == before
    assert "study.update" not in cli("audit", "--study", "s").stdout  # nothing recorded
    settings = rated / "change.json"
    key = {"--margin": "equivalence_margin", "--alpha": "alpha"}.get(change[0])
    if key is not None:  # a settings file cannot move the plan either
        settings.write_text(json.dumps({key: float(change[1])}))
        imported = cli("studies", "import-settings", "--study", "s", str(settings), "--yes")
        assert imported.exit_code == 1
        assert "change.json: study 's' has ratings since" in imported.stderr


def test_a_forced_change_is_audited_and_said_wherever_the_verdict_is(cli, rated: Path) -> None:
    assert _report(cli)["plan"]["note"].startswith("INTERIM")  # 15 of 500 planned pairs
    forced = cli("studies", "edit", "s", "--alpha", "0.05", "--yes", "--force")
    assert forced.exit_code == 0, forced.output
    (entry,) = [
        json.loads(line)
        for line in cli("audit", "--study", "s", "--json").stdout.splitlines()
        if json.loads(line)["action"] == "study.update"
    ]
    assert entry["before"] == {"alpha": 0.01}
    assert entry["after"]["alpha"] == 0.05
    assert entry["after"]["after_data"].startswith("forced: ratings since ")

    report = _report(cli)
    plan = report["plan"]
    (change,) = plan["changes"]
    assert (change["setting"], change["before"], change["after"]) == ("alpha", 0.01, 0.05)
    assert change["after_data"] is True
    assert report["settings"]["alpha"] == 0.05  # the study's plan as it now stands
    assert plan["deviations"] == []
    assert "changed after data: alpha 0.01 -> 0.05 on " in plan["note"]
    markdown = _markdown(cli)
    heading = next(line for line in markdown.splitlines() if "Study verdict" in line)
    assert "not as pre-registered" in heading
    assert "## Analysis plan (pre-registered)" in markdown
    assert "| Changed: alpha | 0.01 | 0.05 on " in markdown
    paragraph = report["methods"]
    assert "alpha" in paragraph["verdict"]
    from analysis.methods import methods_paragraph

    text = methods_paragraph(report)  # the paper's methods paragraph says it too
    assert "it was changed after data arrived: alpha 0.01 -> 0.05 on " in text
    exported = rated / "after.json"
    assert cli("studies", "export-plan", "-s", "s", str(exported)).exit_code == 0
    assert "- alpha: 0.01 -> 0.05 at " in exported.with_suffix(".md").read_text()
    assert "(AFTER DATA ARRIVED)" in exported.with_suffix(".md").read_text()


def test_a_verdict_before_the_planned_size_is_interim(cli, rated: Path) -> None:
    report = _report(cli)
    plan = report["plan"]
    assert plan["planned_pairs"] == 500
    assert plan["n_pairs_analysed"] == report["dimensions"]["rubric_alignment"]["n_pairs"] < 500
    assert plan["interim"] is True
    assert "Study verdict: INTERIM, " in _markdown(cli)
    card = rated / "card"
    assert cli("publish", str(card), "-s", "s", "--bootstrap", "0").exit_code == 0
    text = (card / "README.md").read_text()
    assert "labels are **INTERIM: " in text
    assert f"- **Planned sample size**: 500 pairs ({plan['n_pairs_analysed']} analysed)" in text
    assert json.loads((card / "plan.json").read_text())["plan"]["planned_pairs"] == 500
    edited = cli("studies", "edit", "s", "--planned-pairs", "10", "--yes", "--force")
    assert edited.exit_code == 0, edited.output
    assert _report(cli)["plan"]["interim"] is False


def test_a_margin_given_to_the_report_is_a_departure_from_the_plan(cli, rated: Path) -> None:
    report = _report(cli, "--margin", "0.6", "--alpha", "0.05")
    assert report["plan"]["deviations"] == [
        "margin 0.6 points (plan: 0.3 points)",
        "alpha 0.05 (plan: 0.01)",
    ]
    assert "not the pre-registered analysis: margin 0.6 points" in report["plan"]["note"]


def test_analysis_report_reads_the_plan_carried_beside_the_export(cli, rated: Path) -> None:
    export = rated / "ratings.csv"
    result = cli("export", "-o", str(export), "--study", "s")
    assert result.exit_code == 0, result.output
    sidecar = rated / "ratings.plan.json"
    assert json.loads(sidecar.read_text())["plan"]["alpha"] == 0.01
    runner = CliRunner()
    plain = runner.invoke(analysis_app, ["report", str(export), "--bootstrap", "0"])
    assert plain.exit_code == 0, plain.output
    assert f"reading the analysis plan in {sidecar}" in plain.stderr
    report = json.loads(plain.stdout)
    assert report["settings"]["alpha"] == 0.01  # the plan's options when none is given
    assert report["settings"]["margin"] == 0.3
    assert report["settings"]["smallest_effect"] == 0.2
    assert report["plan"]["deviations"] == []
    assert "INTERIM verdict" in plain.stderr
    other = runner.invoke(
        analysis_app, ["report", str(export), "--bootstrap", "0", "--margin", "1"]
    )
    assert other.exit_code == 0, other.output
    assert "differs from the analysis plan: margin 1 points (plan: 0.3 points)" in other.stderr
    assert json.loads(other.stdout)["plan"]["deviations"] == ["margin 1 points (plan: 0.3 points)"]
    sidecar.write_text('{"prb_annotate_plan": 1, "plan": {"margin": "wide"}}')
    broken = runner.invoke(analysis_app, ["report", str(export), "--bootstrap", "0"])
    assert broken.exit_code == 1
    assert "field 'plan.margin': missing or of the wrong type" in broken.stderr
    given = runner.invoke(
        analysis_app, ["report", str(export), "--plan", str(rated / "nowhere.json")]
    )
    assert given.exit_code == 1
    assert "nowhere.json: cannot read the plan" in given.stderr


def test_a_study_migrated_with_a_smallest_effect_of_0_keeps_it_and_stays_editable(
    db_url: str,
) -> None:
    """Migration 0015 gave studies from before it a smallest effect of 0 (their pre-registered
    test). Refusing 0 (issue 33.6) must not rewrite it nor block their other settings: it is
    kept as it is, and only a new value must be above 0."""
    from sqlmodel import Session, text

    from annotate.db import make_engine
    from annotate.domain.study.studies import StudyError, create_study, update_study

    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            create_study(session, "old", smallest_effect=0.3)
            session.commit()
            session.exec(text("UPDATE study SET smallest_effect = 0 WHERE name = 'old'"))
            session.commit()
            study = update_study(session, "old", overlap=2)
            assert (study.overlap, study.smallest_effect) == (2, 0)
            session.commit()
            with pytest.raises(StudyError, match="smallest effect of interest must be above 0"):
                update_study(session, "old", smallest_effect=-0.1)
            session.rollback()
            assert update_study(session, "old", smallest_effect=0.4).smallest_effect == 0.4
            session.commit()
            with pytest.raises(StudyError, match="smallest effect of interest must be above 0"):
                update_study(session, "old", smallest_effect=0.0)  # once changed, 0 is refused
    finally:
        engine.dispose()


def test_a_smallest_effect_of_zero_is_refused_where_it_is_set(
    cli, db_url: str, tmp_path: Path
) -> None:
    """Issue 33.6: a smallest effect of interest of 0 makes any positive difference "diverge":
    refused, naming the option or setting, by `studies create/edit`, the domain (the Studies
    page saves through it) and `python -m analysis report/size`; nothing is written."""
    from sqlmodel import Session

    from annotate.db import make_engine
    from annotate.domain.study.studies import StudyError, create_study, update_study

    made = cli("studies", "create", "z", "--smallest-effect", "0")
    assert made.exit_code == 1
    assert "--smallest-effect '0': expected a number above 0 or 'margin'" in made.stderr
    assert cli("studies", "show", "z").exit_code == 1  # not created
    assert cli("studies", "create", "z", "--smallest-effect", "0.2").exit_code == 0
    edited = cli("studies", "edit", "z", "--smallest-effect", "-0.1", "--yes")
    assert edited.exit_code == 1
    assert "expected a number above 0" in edited.stderr
    assert "smallest effect 0.2 points" in " ".join(cli("studies", "show", "z").stdout.split())
    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            with pytest.raises(StudyError, match="smallest effect of interest must be above 0"):
                update_study(session, "z", smallest_effect=0.0)
            with pytest.raises(StudyError, match="smallest effect of interest must be above 0"):
                create_study(session, "y", smallest_effect=0.0)
    finally:
        engine.dispose()
    ratings = tmp_path / "r.csv"
    from analysis.simulate import simulate_ratings

    simulate_ratings(12, 2, seed=1).to_csv(ratings, index=False)
    runner = CliRunner()
    for command in ("report", "size"):
        refused = runner.invoke(analysis_app, [command, str(ratings), "--smallest-effect", "0"])
        assert refused.exit_code == 2
        assert "--smallest-effect" in refused.output
        assert "expected a number above 0" in refused.output
