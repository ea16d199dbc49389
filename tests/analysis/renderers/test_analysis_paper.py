"""Paper-ready output: LaTeX (booktabs) tables, the methods paragraph, static figures."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from analysis.cli import app
from analysis.methods import methods_paragraph
from analysis.renderers.latex import latex_escape
from analysis.renderers.render import render_report
from analysis.renderers.static import STATIC_FIGURES, export_figures
from analysis.report import build_report
from analysis.schema.style import OKABE_ITO, VERDICT_COLOURS
from analysis.simulate import simulate_ratings


@pytest.fixture(scope="module")
def report(validating_study):
    df = validating_study.copy()
    df.loc[df["domain"] == "Society_and_Culture", "domain"] = "R&D_50% {x}"
    return build_report(df, n_boot=20)


def test_latex_tables_are_booktabs_with_escaped_text(report):
    tex = render_report(report, "latex")
    assert tex.count(r"\begin{tabular}") == tex.count(r"\bottomrule") >= 10
    assert r"\toprule" in tex
    assert r"\midrule" in tex
    assert r"R\&D\_50\% \{x\}" in tex
    assert "R&D_50%" not in tex
    assert r"\paragraph{Methods.}" in tex
    assert latex_escape("α < 0.667 ± 1 − 2") == r"$\alpha$ \textless{} 0.667 $\pm$ 1 -- 2"


def test_methods_paragraph_follows_the_settings(validating_study):
    report = build_report(validating_study, margin=0.3, alpha=0.01, n_boot=0, holm=False)
    paragraph = methods_paragraph(report)
    assert "±0.3 scale points" in paragraph
    assert "alpha = 0.01" in paragraph
    assert "intersection-union" in paragraph
    assert "no multiplicity correction" in paragraph
    assert "not adjusted for multiplicity" in paragraph
    in_sd = build_report(validating_study, margin=0.25, margin_unit="sd", n_boot=0)
    assert "±0.25 standard deviations" in methods_paragraph(in_sd)
    assert "## Methods paragraph" in render_report(report, "md")


def test_static_figures_in_every_format(report, tmp_path):
    written = export_figures(report, tmp_path, ["svg", "pdf", "png"])
    assert len(written) == 3 * len(STATIC_FIGURES)
    for path in written:
        head = path.read_bytes()[:8]
        expected = {".svg": b"<?xml", ".pdf": b"%PDF", ".png": b"\x89PNG"}[path.suffix]
        assert head.startswith(expected), path
    svg = (tmp_path / "differences.svg").read_text()
    assert "Rubric alignment" in svg
    assert "rubric_alignment" not in svg
    assert OKABE_ITO["green"].lower() in svg.lower()  # the palette
    with pytest.raises(ValueError, match="figure format"):
        export_figures(report, tmp_path, ["gif"])


def test_every_verdict_has_a_colour_and_insufficient_data_renders():
    assert set(VERDICT_COLOURS) == {"tie", "diverges", "inconclusive", "insufficient_data"}
    tiny = build_report(simulate_ratings(5, 3, {}, seed=2), n_boot=0)
    assert "insufficient data" in render_report(tiny, "md")
    assert render_report(tiny, "html").startswith("<!DOCTYPE html>")
    assert r"\begin{table}" in render_report(tiny, "latex")


def test_cli_figures_and_latex(tmp_path, validating_study):
    ratings = tmp_path / "r.csv"
    validating_study.to_csv(ratings, index=False)
    runner = CliRunner()
    out = tmp_path / "figs"
    result = runner.invoke(
        app, ["figures", str(ratings), "-o", str(out), "--formats", "svg", "--bootstrap", "0"]
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{n}.svg" for n in STATIC_FIGURES)
    tex = runner.invoke(app, ["report", str(ratings), "-f", "latex", "--bootstrap", "0"])
    assert tex.exit_code == 0
    assert r"\toprule" in tex.stdout


def test_static_position_and_accuracy_figures_label_what_they_show(report, tmp_path):
    export_figures(report, tmp_path, ["svg"])
    assert "chosen shown on A" in (tmp_path / "position.svg").read_text()
    by_domain = (tmp_path / "accuracy_by_domain.svg").read_text()
    assert "Strict human accuracy" in by_domain
    assert "best reward model" in by_domain
    assert "No model imported" in (tmp_path / "reward_models.svg").read_text()


def test_the_domain_accuracy_chart_draws_the_strict_share_with_its_own_interval(report):
    from analysis.renderers.charts import domain_accuracy_figure

    bar = domain_accuracy_figure(report).data[0]
    strict = report["human_accuracy"]["strict"]
    assert bar.y[0] == pytest.approx(strict["value"])
    assert bar.error_y.array[0] == pytest.approx(strict["ci95"][1] - strict["value"])
