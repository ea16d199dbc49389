"""The downstream section end to end (issue 25, items 3-5) on the made-up demo files of
`data/demo/downstream/`: imported, compared, rated by simulated annotators; the report's
`downstream` key, its rendered sections, the published card and the export's condition column;
the figures only for the results roles.

Runs on SQLite, and on PostgreSQL with PRB_TEST_DATABASE_URL (conftest)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from analysis import cli as analysis_cli
from analysis.renderers.render import render_report
from analysis.schema.jsonable import to_jsonable
from annotate.db import write_session
from annotate.domain.exports.export import CONDITION_COLUMN, ratings_dataframe
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.errors import Conflict, Forbidden
from annotate.services.admin import publish
from annotate.services.admin.demo import (
    DOWNSTREAM_STUDY,
    demo_data_folder,
    set_up_demo,
    set_up_demo_downstream,
)
from annotate.services.admin.simulated import store_simulated_ratings
from annotate.services.results import downstream
from annotate.services.results.reporting import study_ratings, study_report


@pytest.fixture
def world(engine):
    set_up_demo(engine)  # the demo study first, as `prb-annotate demo` does
    made = set_up_demo_downstream(engine, demo_data_folder(), 3)
    assert made == ["demo-bon-madeup-rm-a", "demo-bon-madeup-rm-b", "demo-bon-madeup-rm-c",
                    "demo-ppo"]  # fmt: skip
    return engine


def test_the_demo_has_every_downstream_figure(world):
    summary = downstream.downstream_report(world, SYSTEM, DOWNSTREAM_STUDY, n_boot=50)
    assert [c["expected"] for c in summary["comparisons"]] == [
        "bon:madeup-rm-a:k16", "bon:madeup-rm-b:k16", "bon:madeup-rm-c:k16",
        "ppo:madeup-policy:step300",
    ]  # fmt: skip
    # identical outputs (best-of-16 kept the first sample) are not rated, counted at zero
    shares = [c["human"]["share_identical"] for c in summary["comparisons"]]
    assert shares == [pytest.approx(2 / 9), pytest.approx(3 / 9), pytest.approx(4 / 9), 0.0]
    assert summary["judge_unusable"] == {"empty": 1, "out_of_scale": 1}
    assert {p["k"] for p in summary["scaling"]} == {1, 16}
    assert summary["claim"]["models"] == ["madeup-rm-a", "madeup-rm-b", "madeup-rm-c"]
    # benchmark accuracy comes from `models import`: the made-up 0.78, 0.67, 0.59 of 9 pairs
    assert summary["claim"]["accuracy"] == pytest.approx([7 / 9, 6 / 9, 5 / 9])
    assert summary["judge_agreement"]["n_units"] > 0


def test_a_second_set_up_changes_nothing(world, snapshot):
    before = snapshot(world)
    set_up_demo_downstream(world, demo_data_folder(), 3)
    assert snapshot(world) == before


def test_the_report_the_card_and_the_export_carry_it(world, tmp_path):
    data = study_ratings(world, "demo-bon-madeup-rm-a")
    ratings = ratings_dataframe(world, "demo-bon-madeup-rm-a")
    conditions = dict(zip(ratings["response"], ratings[CONDITION_COLUMN], strict=True))
    assert conditions == {"chosen": "bon:madeup-rm-a:k16", "rejected": "bon:madeup-rm-a:k1"}
    assert CONDITION_COLUMN not in ratings_dataframe(world, "demo").columns
    report = downstream.with_downstream(
        world, SYSTEM, DOWNSTREAM_STUDY, study_report(data), n_boot=20
    )
    headings = (
        "Downstream: comparisons",
        "Downstream: scaling curve",
        "Downstream: LLM judge against the humans",
        "Downstream: the correlation claim",
    )
    for fmt in ("md", "html", "latex"):
        rendered = render_report(report, fmt)
        assert all(h in rendered for h in headings), fmt
    assert "bon:madeup-rm-a:k16" in render_report(report, "md")
    assert "Downstream" not in render_report(study_report(data), "md")
    # the benchmark study published (it needs ratings of its own: the simulated annotators')
    store_simulated_ratings(world, DOWNSTREAM_STUDY, n_annotators=2, seed=1, count=True)
    files = publish.publish_study(world, SYSTEM, DOWNSTREAM_STUDY, tmp_path / "card")
    card = next(f for f in files if f.name == "README.md").read_text(encoding="utf-8")
    assert "## Downstream (Best-of-N, PPO)" in card
    assert "Over 3 reward models, the humans" in card


def test_only_the_results_roles_see_the_figures(world):
    with write_session(world) as session:
        annotator, _ = accounts.create_account(session, "someone")
        researcher, _ = accounts.create_account(session, "res", role="researcher")
    with pytest.raises(Forbidden):
        downstream.downstream_report(world, annotator.id, DOWNSTREAM_STUDY)
    assert downstream.comparison_of(world, researcher.id, "demo-ppo")["expected"] == (
        "ppo:madeup-policy:step300"
    )
    assert downstream.comparison_of(world, researcher.id, DOWNSTREAM_STUDY) is None
    with pytest.raises(Forbidden):
        downstream.import_condition(
            world, researcher.id, study=DOWNSTREAM_STUDY, condition="bon:x:k1",
            eval_file=demo_data_folder() / "downstream/bon/madeup-rm-a/Art_eval_k1.jsonl",
        )  # fmt: skip


def test_the_analysis_runs_from_the_exported_files_alike(world, tmp_path):
    from analysis.downstream.bundle import summary_from_folder

    downstream.export_bundle(world, SYSTEM, DOWNSTREAM_STUDY, tmp_path / "bundle")
    from_files = summary_from_folder(tmp_path / "bundle", n_boot=30)
    from_database = downstream.downstream_report(world, SYSTEM, DOWNSTREAM_STUDY, n_boot=30)
    assert json.loads(json.dumps(to_jsonable(from_files))) == from_database
    result = CliRunner().invoke(
        analysis_cli.app, ["downstream", str(tmp_path / "bundle"), "--bootstrap", "30"]
    )
    assert result.exit_code == 0, result.output
    assert from_files["claim"]["sentence"] in result.output
    ratings = (tmp_path / "bundle" / "ratings.csv").read_text(encoding="utf-8").splitlines()[0]
    assert ratings == "study,pair_id,annotator,response,dimension,score,purpose,pair_excluded"
    with pytest.raises(Conflict, match="already holds"):
        downstream.export_bundle(world, SYSTEM, DOWNSTREAM_STUDY, tmp_path / "bundle")
