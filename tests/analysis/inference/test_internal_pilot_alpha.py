"""The internal pilot's tie alpha (issue 33 item 4): the planner sizes the tie questions at it,
its plan says both levels, and the report reads each tie TOST at it when the plan
pre-registers an internal pilot.

Where each expected value comes from: GNU R 4 (Debian), for a design of 36 pairs x 2 of 12
(general components pair 0.2, annotator 0.05, residual 0.6: SE 0.13437096247164249, df
14.08521159335748; rubric pair 0.3, annotator 0.1, residual 0.8: SE 0.16666666666666666, df
14.410418092445644), by :data:`R_TOST` below (the TOST's power as the integral over the
estimated SE s, s^2 / se^2 ~ chi2_df / df, of P(-m + t s < estimate < m - t s), by R's
``integrate`` with ``dchisq``: an implementation of its own, not the product's) and
``power.t.test(n = df + 1, delta = 0.5, sd = se * sqrt(df + 1), sig.level = 0.05, type =
"one.sample", alternative = "one.sided")`` for the rubric. Run live below when Rscript is
installed.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from typing import Any

import numpy as np
import pytest

from analysis.inference.null_check import null_pilot, null_study
from analysis.inference.reestimate import (
    CAP_FACTOR,
    TIE_ALPHA,
    default_tie_alpha,
    first_stage_pairs,
    internal_pilot_plan,
    tie_targets,
    with_internal_pilot,
)
from analysis.inference.reestimate_check import reestimate_pilot
from analysis.inference.sizing import size_study
from analysis.inference.sizing_check import SCENARIOS, truth
from analysis.inference.sizing_design import Design, Targets, power_at, smallest_design
from analysis.inference.sizing_pilot import Components
from analysis.inference.sizing_text import sizing_text
from analysis.methods import methods_paragraph
from analysis.simulate import simulate_ratings
from annotate.vocabulary import DIMENSIONS, GENERAL_DIMENSIONS, PERSONAL_DIMENSION
from tests.analysis.inference.test_reestimate import _small_pilot

RUBRIC = Components(pair=0.3, annotator=0.1, residual=0.8)
GENERAL = Components(pair=0.2, annotator=0.05, residual=0.6)
COMPONENTS = {d: (RUBRIC if d == PERSONAL_DIMENSION else GENERAL) for d in DIMENSIONS}
TRUE = dict.fromkeys(GENERAL_DIMENSIONS, 0.0) | {PERSONAL_DIMENSION: 1.0}
PLAIN = Targets(0.5, 0.5, 0.05, 0.8, TRUE)
R_TIE_POWER = {0.05: 0.941150322913562, 0.04: 0.921427524376103}
R_RUBRIC_POWER = 0.886836174839106
R_TOST = """
tost <- function(delta, se, df, m, a) {
  tc <- qt(1 - a, df)
  f <- function(s) {
    half <- m - tc * s
    ifelse(half > 0, pnorm((half - delta) / se) - pnorm((-half - delta) / se), 0) *
      dchisq(df * s^2 / se^2, df) * 2 * df * s / se^2
  }
  integrate(f, 0, m / tc, rel.tol = 1e-12)$value
}
"""


def test_the_tie_questions_are_sized_at_the_tie_alpha_and_the_rubric_at_alpha():
    assert TIE_ALPHA == 0.04
    design = Design(36, 2, 12)
    for tie_alpha, expected in ((None, R_TIE_POWER[0.05]), (0.04, R_TIE_POWER[0.04])):
        targets = Targets(0.5, 0.5, 0.05, 0.8, TRUE, tie_alpha=tie_alpha)
        tests = power_at(COMPONENTS, design, targets)["tests"]
        for dim in GENERAL_DIMENSIONS:
            assert tests[dim]["power"] == pytest.approx(expected, rel=1e-9)
        assert tests[PERSONAL_DIMENSION]["power"] == pytest.approx(R_RUBRIC_POWER, rel=1e-9)
    # the stricter level costs pairs: 42 at alpha 0.05 everywhere, 45 with the ties at 0.04
    assert smallest_design(COMPONENTS, 2, 12, PLAIN)["n_pairs"] == 42  # type: ignore[index]
    tied = smallest_design(COMPONENTS, 2, 12, tie_targets(PLAIN))
    assert tied is not None
    assert tied["n_pairs"] == 45
    assert tie_targets(PLAIN).tost_alpha == 0.04
    assert tie_targets(PLAIN).alpha == 0.05
    with pytest.raises(ValueError, match=r"tie alpha 0\.06"):
        tie_targets(PLAIN, 0.06)
    # a plan at another alpha gets the same fraction of it (only 0.05 was simulated)
    assert default_tie_alpha(0.05) == pytest.approx(0.04)
    assert default_tie_alpha(0.01) == pytest.approx(0.008)


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs GNU R (Rscript)")
def test_the_recorded_tie_powers_are_rs():
    tests = power_at(COMPONENTS, Design(36, 2, 12), tie_targets(PLAIN))["tests"]
    general, rubric = tests["factuality"], tests[PERSONAL_DIMENSION]
    code = R_TOST + (
        f"cat(sprintf('%.15g %.15g %.15g', tost(0, {general['se']!r}, {general['df']!r}, 0.5, "
        f"0.05), tost(0, {general['se']!r}, {general['df']!r}, 0.5, 0.04), power.t.test(n = "
        f"{rubric['df']!r} + 1, delta = 0.5, sd = {rubric['se']!r} * sqrt({rubric['df']!r} + 1), "
        "sig.level = 0.05, type = 'one.sample', alternative = 'one.sided')$power))"
    )
    done = subprocess.run(
        ["Rscript", "-e", code], capture_output=True, text=True, check=True, timeout=60
    )
    at_05, at_04, superiority = map(float, done.stdout.split())
    assert (at_05, at_04) == pytest.approx((R_TIE_POWER[0.05], R_TIE_POWER[0.04]), rel=1e-12)
    assert superiority == pytest.approx(R_RUBRIC_POWER, rel=1e-12)


def test_the_internal_pilots_plan_says_both_levels_and_why():
    pilot = _small_pilot()
    result = size_study(pilot, margin=0.5, rubric_diff=0.93, per_pair=(2,), pools=(48,))
    plan = internal_pilot_plan(pilot, result)
    assert plan is not None
    assert (plan["alpha"], plan["tie_alpha"]) == (0.05, 0.04)
    k, pool = plan["per_pair"], plan["pool"]
    plain = Targets(0.5, 0.5, 0.05, 0.8, result["true_diff"])
    assert plan["first_stage"] == first_stage_pairs(pilot, k, pool, tie_targets(plain))
    assert plan["first_stage"] >= first_stage_pairs(pilot, k, pool, plain)  # type: ignore[operator]
    text = sizing_text(with_internal_pilot(pilot, result))
    assert "the superiority test at alpha 0.05, each tie question's TOST at **0.04**" in text
    assert "Friede & Kieser, 2003" in text
    assert f"--internal-pilot 'first={plan['first_stage']} tie_alpha=0.04'" in text
    looser = internal_pilot_plan(pilot, result, tie_alpha=0.05)
    assert looser is not None
    assert looser["first_stage"] <= plan["first_stage"]


def _document(**plan: object) -> dict[str, object]:
    settings = {"margin": 0.8, "unit": "points", "alpha": 0.05, "smallest_effect": 0.2}
    return {"prb_annotate_plan": 1, "plan": {**settings, **plan}, "changes": []}


def _report(document):  # type: ignore[no-untyped-def]
    from analysis.report import build_report

    ratings = simulate_ratings(20, 3, {"rubric_alignment": 1.0}, seed=8)
    return build_report(
        ratings, margin=0.8, n_boot=0, smallest_effect=0.2, plan=document, mixed=False,
        domains=False,
    )  # fmt: skip


def test_the_report_reads_each_tie_tost_at_the_internal_pilots_tie_alpha():
    """Seed 8: factuality's TOST p is 0.0497, between 0.04 and 0.05: a tie at alpha, not at
    the internal pilot's 0.04, and the study then not validated; the other ties stay."""
    plain = _report(_document())
    internal = _report(_document(internal_pilot={"first_stage_pairs": 12, "tie_alpha": 0.04}))
    p = plain["dimensions"]["factuality"]["tost_p"]
    assert p is not None
    assert 0.04 < p < 0.05
    assert internal["dimensions"]["factuality"]["tost_p"] == pytest.approx(p)
    assert plain["dimensions"]["factuality"]["verdict"] == "tie"
    assert internal["dimensions"]["factuality"]["verdict"] == "inconclusive"
    assert internal["dimensions"]["relevance"]["verdict"] == "tie"  # p 0.037 < 0.04
    assert plain["checks"]["validated"]
    assert not internal["checks"]["validated"]
    # the rubric's superiority test keeps alpha; the tie interval is the 92% one
    assert internal["dimensions"][PERSONAL_DIMENSION]["verdict"] == "diverges"
    assert "tie_alpha" not in plain["settings"]  # a study without an internal pilot reads as before
    assert internal["settings"]["tie_alpha"] == 0.04
    low, high = internal["dimensions"]["factuality"]["ci_tost"]
    low90, high90 = plain["dimensions"]["factuality"]["ci_tost"]
    assert low < low90
    assert high > high90
    assert internal["plan"]["internal_pilot"] == {"first_stage_pairs": 12, "tie_alpha": 0.04}
    said = methods_paragraph(internal)
    assert "each tie question's TOST at 0.04, its interval the 92% one" in said
    assert "a first stage of 12 pairs" in said
    assert "Friede & Kieser, 2003" in said
    assert "tie question" not in methods_paragraph(plain)


def test_a_tie_alpha_above_alpha_or_malformed_is_refused():
    with pytest.raises(ValueError, match=r"tie alpha 0\.06 above alpha 0\.05"):
        _report(_document(internal_pilot={"first_stage_pairs": 12, "tie_alpha": 0.06}))
    with pytest.raises(ValueError, match=r"internal_pilot\.first_stage_pairs"):
        _report(_document(internal_pilot={"first_stage_pairs": "x"}))


def test_reduced_simulation_with_the_tie_alpha():
    """benchmarks/bench_sizing.py --reestimate / --null with --tie-alpha 0.04, reduced: the
    first stage sized at 0.04 is at least the one at 0.05 on the same pilot and draws; a null
    run reads the TOST at 0.04 and ends within the cap."""
    scenario = next(s for s in SCENARIOS if s.name == "small pilot")
    t = truth(scenario, 1)
    for i in range(2):
        plain = reestimate_pilot(scenario, t, np.random.default_rng([1, i]), fractions=(0.7,))
        tied = reestimate_pilot(
            scenario, t, np.random.default_rng([1, i]), tie_alpha=0.04, fractions=(0.7,)
        )
        assert plain is not None
        assert tied is not None
        assert tied.first_stage[0.7] >= plain.first_stage[0.7]
        assert tied.need >= tied.need_alpha == plain.need
    found = null_pilot(scenario, t, 1, 0, tie_alpha=0.04)
    assert found is not None
    run = null_study(t, found, 1, (0, 0), tie_alpha=0.04)
    assert run.first_stage <= run.final <= math.floor(CAP_FACTOR * run.first_stage)


def test_the_by_domain_tosts_are_read_at_the_tie_alpha_too():
    """The exploratory by-domain results read each tie TOST at the internal pilot's tie alpha,
    as the study's own results do, with and without Holm: in one domain holding every pair
    (seed 8, factuality's p 0.0497) the unadjusted verdicts equal the study's (a tie at
    alpha, inconclusive at 0.04); with Holm the adjusted p is judged at 0.04 as well."""
    from analysis.report import build_report

    ratings = simulate_ratings(20, 3, {"rubric_alignment": 1.0}, seed=8, domains=("all",))
    internal = _document(internal_pilot={"first_stage_pairs": 12, "tie_alpha": 0.04})
    for document, expected in ((_document(), "tie"), (internal, "inconclusive")):
        report = build_report(
            ratings, margin=0.8, n_boot=0, smallest_effect=0.2, plan=document, mixed=False,
            holm=False,
        )  # fmt: skip
        domain = report["by_domain"]["all"]["dimensions"]["factuality"]
        assert domain["verdict"] == report["dimensions"]["factuality"]["verdict"] == expected
        assert domain["ci_tost"] == pytest.approx(report["dimensions"]["factuality"]["ci_tost"])


def test_holm_judges_each_adjusted_tost_at_its_own_level():
    """A tie TOST p of 0.0225 and a superiority p of 0.9 in one Holm family: the adjusted TOST
    p is 0.045 (2 x 0.0225, as R's p.adjust(c(0.0225, 0.9), "holm")), a tie at alpha 0.05 and
    inconclusive at an internal pilot's 0.04."""
    from analysis.inference.paired import apply_holm

    def family() -> dict[str, Any]:
        result = {"n_pairs": 20, "rule": "equivalence", "tost_p": 0.0225,
                  "superiority_p": 0.9, "wilcoxon_p": 0.5}  # fmt: skip
        return {"factuality": result}

    at_alpha, at_tie = family(), family()
    apply_holm([at_alpha], 0.05)
    apply_holm([at_tie], 0.05, {"factuality": 0.04})
    assert at_alpha["factuality"]["tost_p_adjusted"] == pytest.approx(0.045)
    assert at_alpha["factuality"]["verdict"] == "tie"
    assert at_tie["factuality"]["verdict"] == "inconclusive"
