"""Singular (boundary) fits of the crossed model: flagged, and their interval by Kenward-Roger.

When REML puts the annotator (or pair) variance at 0, Satterthwaite's df on lme4's relative SDs
loses that variance's uncertainty and jumps to about n - 1 (29 where Kenward-Roger gives 6-10
in a 3-annotator pilot), and the intervals under-cover. `crossed_mean` then takes
Kenward-Roger's SE and df (`analysis.inference.reml_df.kenward_roger`).

References: R's pbkrtest (Kenward-Roger) and lmerTest (Satterthwaite), run live on 50 seeded
data sets whose annotator variance is 0-5% of the total, each read as R reads it:
`m <- lmer(y ~ 1 + (1 | pair) + (1 | annotator), REML = TRUE)`, `isSingular(m)`,
`contest(m, matrix(1, 1, 1), joint = FALSE, ddf = "Kenward-Roger")` (its df and Std. Error)
and the same with the default `ddf = "Satterthwaite"`. The df of the method the product uses
(Kenward-Roger on a singular fit, Satterthwaite otherwise) must be within 1%. A few of R's
values are kept as literals below so the check runs without R.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from analysis.inference.crossed import (
    CROSSED,
    DF_KENWARD_ROGER,
    DF_METHOD,
    crossed_mean,
)
from analysis.inference.primary import primary_dimension
from analysis.inference.reml import (
    fit_reml,
)
from analysis.inference.reml_df import (
    kenward_roger,
)
from tests.helpers.r_helpers import needs_pbkrtest

SETS = 50


def _near_boundary(index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Data set ``index`` (0..49): annotator variance 0.05 * index / 49 of a total of 1 (pair
    0.3, residual the rest); even: 3 annotators on all 30 pairs, odd: 40 pairs rated by 3 of a
    pool of 6. Values rounded to 2 decimals, so R reads exactly these numbers."""
    rng = np.random.default_rng(1000 + index)
    share = 0.05 * index / (SETS - 1)
    if index % 2 == 0:
        pair, annotator = np.repeat(np.arange(30), 3), np.tile(np.arange(3), 30)
    else:
        pair = np.repeat(np.arange(40), 3)
        annotator = np.concatenate([rng.choice(6, 3, replace=False) for _ in range(40)])
    n_p, n_a = pair.max() + 1, annotator.max() + 1
    y = 0.3 + rng.normal(0, np.sqrt(0.3), n_p)[pair] + rng.normal(0, np.sqrt(share), n_a)[annotator]
    y = np.round(y + rng.normal(0, np.sqrt(0.7 - share), len(pair)), 2)
    return y, pair, annotator


# R 4.x, lme4 + lmerTest + pbkrtest (Debian), on _near_boundary(i) written as CSV:
# isSingular(m); contest(m, matrix(1, 1, 1), joint = FALSE, ddf = "Kenward-Roger")$df and
# $`Std. Error`; contest(m, matrix(1, 1, 1), joint = FALSE)$df (Satterthwaite).
R_LITERALS = {
    # index: (singular, KR df, KR SE, Satterthwaite df)
    0: (True, 4.902652927024, 0.111804176896, 28.999897738113),
    3: (True, 11.808461306977, 0.113832325422, 39.000312148041),
    2: (False, 5.660416323336, 0.187126938949, 5.660406795839),
    11: (False, 11.324105745616, 0.120062121869, 12.739455369356),
}


def _r_figures(tmp_path: Path, indices: list[int]) -> dict[int, tuple[bool, float, float, float]]:
    """R's (isSingular, KR df, KR SE, Satterthwaite df) of each data set, one Rscript run."""
    for i in indices:
        y, pair, annotator = _near_boundary(i)
        rows = [f"{v:.2f},p{p},a{a}" for v, p, a in zip(y, pair, annotator, strict=True)]
        (tmp_path / f"d{i}.csv").write_text("y,pair,annotator\n" + "\n".join(rows) + "\n")
    script = tmp_path / "kr.R"
    script.write_text(
        f"""suppressMessages({{library(lmerTest); library(pbkrtest)}})
for (i in c({", ".join(map(str, indices))})) {{
  d <- read.csv(file.path("{tmp_path}", sprintf("d%d.csv", i)))
  m <- suppressMessages(lmer(y ~ 1 + (1 | pair) + (1 | annotator), data = d, REML = TRUE))
  kr <- contest(m, matrix(1, 1, 1), joint = FALSE, ddf = "Kenward-Roger")
  st <- contest(m, matrix(1, 1, 1), joint = FALSE)
  cat(i, isSingular(m), format(c(kr$df, kr$`Std. Error`, st$df), digits = 12), "\\n")
}}
""",
        encoding="utf-8",
    )
    done = subprocess.run(
        ["Rscript", str(script)], capture_output=True, text=True, check=True, timeout=300
    )
    out = {}
    for line in done.stdout.splitlines():
        index, singular, *values = line.split()
        kr_df, kr_se, s_df = map(float, values)
        out[int(index)] = (singular == "TRUE", kr_df, kr_se, s_df)
    return out


def _check(index: int, expected: tuple[bool, float, float, float]) -> None:
    singular, kr_df, kr_se, s_df = expected
    got = crossed_mean(*_near_boundary(index))
    assert got.method == CROSSED
    assert bool(got.singular) == singular, index
    if singular:
        assert got.singular == ("annotator",)
        assert got.df_method == DF_KENWARD_ROGER
        assert got.df == pytest.approx(kr_df, rel=0.01), index
        assert got.se == pytest.approx(kr_se, rel=1e-3), index
    else:
        assert got.df_method == DF_METHOD
        assert got.df == pytest.approx(s_df, rel=0.01), index


@needs_pbkrtest
def test_df_within_one_percent_of_r_on_50_near_boundary_sets(tmp_path):
    expected = _r_figures(tmp_path, list(range(SETS)))
    assert len(expected) == SETS
    assert sum(e[0] for e in expected.values()) >= 10  # enough singular fits to mean something
    for index, figures in expected.items():
        _check(index, figures)


@pytest.mark.parametrize("index", sorted(R_LITERALS))
def test_df_matches_r_literals(index):
    """Without R: R's figures on a few of the 50 sets, kept from the live run above."""
    _check(index, R_LITERALS[index])


def test_kenward_roger_equals_satterthwaite_where_v_has_one_block_and_no_boundary():
    """A closed form: one annotator-free, balanced pair design (k values on each of m pairs,
    pair variance > 0). The mean's variance is (s2_e + k s2_p) / (m k), a multiple of the
    pair-means' mean square, so KR's df is m - 1 exactly and its SE the pair means' SE (the
    adjustment vanishes for a balanced one-way design, Kenward & Roger 1997, sec. 5)."""
    rng = np.random.default_rng(4)
    m, k = 12, 3
    pair = np.repeat(np.arange(m), k)
    y = rng.normal(0, 1, m)[pair] + rng.normal(0, 0.5, m * k)
    fit = fit_reml(y, np.ones((m * k, 1)), pair, None)
    kr = kenward_roger(np.ones((m * k, 1)), [pair], [fit.s2_pair], fit.s2_residual, np.ones(1))
    assert kr is not None
    means = y.reshape(m, k).mean(axis=1)
    assert kr[1] == pytest.approx(m - 1, rel=1e-6)
    assert np.sqrt(kr[0]) == pytest.approx(np.std(means, ddof=1) / np.sqrt(m), rel=1e-6)


def test_a_singular_fit_is_said_per_dimension_in_the_report():
    """The JSON's primary fit lists the factor at 0 and the dimension's notes say it; the
    table shared by the Results page, the HTML report and the card says it per dimension."""
    from analysis.schema.tables import singular_words

    index = next(i for i in sorted(R_LITERALS) if R_LITERALS[i][0])
    y, pair, annotator = _near_boundary(index)
    result = primary_dimension(
        (y, pair, annotator), y * 0 + 3, y * 0 + 2, 0.5, 0.05, 0.5, rubric=True
    )
    assert result["primary"]["singular"] == ["annotator"]
    assert result["primary"]["df_method"] == DF_KENWARD_ROGER
    assert singular_words(["annotator"]) in result["notes"]
    assert "annotator variance is estimated at 0" in singular_words(["annotator"])
    assert singular_words([]) == ""


def test_the_dimension_table_says_which_dimension_is_singular(small_study):
    """The sentence under the dimension table (Results page, HTML report, card) names the
    dimension whose primary fit is singular, from the report's ``primary.singular``, and
    none when no fit is."""
    from analysis.report import build_report
    from analysis.schema.tables import dimension_table, singular_words

    report = build_report(small_study, n_boot=0, mixed=False)
    for dim in report["dimensions"]:
        report["dimensions"][dim]["primary"]["singular"] = []
    assert "estimated at 0" not in dimension_table(report).note
    y, pair, annotator = _near_boundary(0)
    fit = primary_dimension((y, pair, annotator), y, y, 0.5, 0.05, 0.5, rubric=True)
    report["dimensions"]["rubric_alignment"]["primary"] = fit["primary"]
    label = report["dimensions"]["rubric_alignment"]["label"]
    assert f"{label}: {singular_words(['annotator'])}." in dimension_table(report).note


def _bench() -> ModuleType:
    path = Path(__file__).resolve().parents[3] / "benchmarks" / "bench_coverage.py"
    spec = importlib.util.spec_from_file_location("bench_coverage", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_coverage"] = module
    spec.loader.exec_module(module)
    return module


def test_singular_pilot_fits_cover_seeded_reduced_simulation():
    """benchmarks/bench_coverage.py --singular, reduced: 200 seeded pilot studies (3
    annotators on all 30 pairs, annotator variance about 3% of the difference's; 25 s at load
    15). 70 fits are singular; each takes Kenward-Roger's df (at most 13; Satterthwaite's on
    the same fits: median 29) and they cover 92.9% where Satterthwaite's intervals cover
    84.3% (the full run's figures are in the module's docstring)."""
    bench = _bench()
    delta = 0.95  # about the benchmark's rubric delta (0.9 after rounding); truth from 2e5 draws
    true_value = bench.truth(delta, seed=7, draws=200_000, interaction_sd=0.15)[0]
    rows = np.array(
        [bench.singular_run(("pilot", 3_000_000 + i, delta, true_value)) for i in range(200)]
    )
    singular = rows[:, 0] == 1
    assert singular.sum() >= 50
    assert np.all(rows[singular, 3] < 20)  # Kenward-Roger's df, not about n - 1
    assert np.nanmedian(rows[singular, 4]) > 25  # Satterthwaite's on the same fits
    assert rows[singular, 1].mean() >= 0.90
