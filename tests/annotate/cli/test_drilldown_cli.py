"""`prb-annotate drilldown` (issue 15.5): the pairs behind a figure, printed most telling first
or written as CSV with their texts; unknown figures are refused with the names expected."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from analysis.inference.drilldown import FIGURES, figure_pairs
from annotate.db import make_engine
from annotate.services.results.reporting import study_ratings


@pytest.fixture
def rated(cli, tmp_path, make_record, write_records) -> Path:
    """A study of 12 pairs rated by 3 simulated annotators; returns the dataset file."""
    dataset = write_records(tmp_path / "Art_test.jsonl", [make_record(f"r{i}") for i in range(12)])
    assert cli("import", str(dataset), "--study", "s").exit_code == 0
    assert cli("synth", "ratings", "--study", "s", "--annotators", "3", "--count").exit_code == 0
    return dataset


def expected_order(db_url: str, figure: str) -> list[str]:
    engine = make_engine(db_url)
    try:
        return figure_pairs(study_ratings(engine, "s").snapshot.ratings, figure)["pair_id"].tolist()
    finally:
        engine.dispose()


def test_drilldown_writes_the_figures_pairs_with_texts(cli, rated, tmp_path, db_url):
    out = tmp_path / "pairs.csv"
    result = cli(
        "drilldown", "-s", "s", "--figure", "agreement:rubric_alignment", "--csv", str(out)
    )
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out)
    assert f"Wrote {len(table)} pairs behind agreement:rubric_alignment" in result.stdout
    assert table["pair_id"].tolist() == expected_order(db_url, "agreement:rubric_alignment")
    assert list(table.columns[:3]) == ["pair_id", "domain", "score_sd"]
    assert {"question", "rubric_aspects", "chosen", "rejected", "scores"} <= set(table.columns)
    assert table["score_sd"].is_monotonic_decreasing


def test_drilldown_prints_the_first_pairs(cli, rated, db_url):
    result = cli("drilldown", "-s", "s", "-f", "accuracy", "--top", "3", "--domain", "Art")
    assert result.exit_code == 0, result.output
    assert "Human accuracy (strict): 12 pairs." in result.stdout
    first = expected_order(db_url, "accuracy")[0]
    lines = result.stdout.splitlines()
    assert lines[1].split()[:3] == ["pair_id", "domain", "outcome"]
    assert lines[2].split()[0] == first, result.stdout
    assert len(lines) == 5  # the note, the header, 3 pairs
    assert "question" not in result.stdout  # no texts on the terminal


def test_drilldown_refuses_an_unknown_figure_or_domain(cli, rated):
    result = cli("drilldown", "-s", "s", "--figure", "alpha")
    assert result.exit_code == 1
    assert "unknown figure 'alpha'; expected one of: agreement:factuality" in result.stderr
    assert all(name in result.stderr for name in FIGURES)  # the study's figures
    result = cli("drilldown", "-s", "s", "--figure", "accuracy", "--domain", "Nope")
    assert result.exit_code == 1
    assert "no rated pair in domain 'Nope'; domains: Art" in result.stderr
    assert cli("drilldown", "-s", "zz", "--figure", "accuracy").exit_code == 1
