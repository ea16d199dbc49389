"""The sizing planner against the truth (issue 33 deliverable 4), by simulation.

For each scenario of :mod:`analysis.inference.sizing_check` (a population with pair, annotator
and residual parts of the chosen - rejected difference, leniency, an annotator x response tilt,
rounding to the 1-5 scale), ``--pilots`` seeded pilots of 40 pairs x 3 annotators from a pool of
8 are sized by ``size_study`` (margin and smallest effect 0.5, alpha 0.05, target 0.8, the
default grid k = 2, 3, 5 and pools 6, 12, 24, 48, the default confidence):

* **given**: the true rubric difference given (``--rubric-diff``), so only the components come
  from the pilot. Printed: the recommendations with k = 1; the median of recommended pairs /
  pairs the true components need for the same k and pool (the planner's own search at the true
  components); the share of pilots whose recommendation has true power >= 0.80 (the Bonferroni
  bound at the true components, a lower bound on the study's power), with its Monte Carlo SE.
* **default**: no difference given. Printed: the pilots for which a design is found, which
  difference each assumed (the pilot's 80% lower limit; the pilot's estimate when no design on
  the grid shows the limit; twice the smallest effect when the limit is not above it or
  neither can be shown), and the share whose design has true power >= 0.80.

``--frontier PILOTS`` prints instead, per scenario, the tightest median ratio that any plan
scaled from the pilot's estimates (n = c n_hat) can have while reaching the need in 90% of
pilots: median(n_hat / need) / q10(n_hat / need) at k = 2 and a pool of 48
(:func:`analysis.inference.sizing_check.frontier`).

Targets (issue 33): k >= 2 always; median ratio <= 1.25; true power >= 0.80 in >= 90% of
pilots, given the true difference and by default; a design for every pilot. Run with
``nice -n 5`` (the machine is shared):
``nice -n 5 python benchmarks/bench_sizing.py [--pilots 40] [--seed 1] [--scenario NAME]``.

Measured 2026-12-05, 40 pilots per scenario, seed 1, nice 5, three processes on the 2-core
machine shared with 5 other sessions and a long simulation (load average 10-12 at the start,
5-7 at the end); 71-175 s wall per scenario, 239 s for the slowest process (quieter than the
runs before: 445-508 s per scenario at load 10-12). MC SE of a share p of 40 is
sqrt(p (1 - p) / 40): 4.7% at 90%, 2.5% at 97.5%.

Before (the planner of the merge, default difference = the pilot's estimate, grid pools only):

================ ===== ============ ================== ==================================
scenario         k = 1 median ratio power >= 0.80       default: design found / power >= 0.8
================ ===== ============ ================== ==================================
typical          0/40  1.177        39/40 (SE 2.5%)    40/40 / 35/40
annotator-heavy  0/40  1.250        36/40 (SE 4.7%)    40/40 / 34/40 (1 at twice the SESOI)
pair-heavy       0/40  1.171        37/40 (SE 4.2%)    40/40 / 33/40 (1 at twice the SESOI)
noisy            0/40  1.172        39/40 (SE 2.5%)    40/40 / 37/40
small pilot      0/40  1.667        33/40 (SE 6.0%)    35/40 / 33/40 (12 at twice the SESOI)
================ ===== ============ ================== ==================================

(the small pilot's given-difference column counts its 5 pilots without a design as short.)

After (pools widened when none on the grid reaches the target; default difference at the
pilot's 80% lower limit, then its estimate, then twice the smallest effect):

================ ===== ============ ================== ==================================
scenario         k = 1 median ratio power >= 0.80       default: design found / power >= 0.8
================ ===== ============ ================== ==================================
typical          0/40  1.177        39/40 (SE 2.5%)    40/40 / 39/40 (36 / 3 / 1)
annotator-heavy  0/40  1.250        36/40 (SE 4.7%)    40/40 / 40/40 (27 / 11 / 2)
pair-heavy       0/40  1.171        37/40 (SE 4.2%)    40/40 / 37/40 (34 / 4 / 2)
noisy            0/40  1.172        39/40 (SE 2.5%)    40/40 / 40/40 (38 / 2 / 0)
small pilot      0/40  1.808        38/40 (SE 3.4%)    40/40 / 39/40 (14 / 13 / 13)
================ ===== ============ ================== ==================================

(in brackets: the pilots planned at the lower limit / the estimate / twice the smallest
effect.) The four scenarios with pilots of 40 pairs x 3 of 8 meet every target; the given
columns did not change there (pools are widened only where no grid design is found). The
small pilot (16 pairs x 2 of 4 annotators) now gets a design every time and reaches power in
38/40 and 39/40 of pilots, but at a median 1.81x the pairs needed, and that target cannot be
met from such a pilot by any plan scaled from its estimates: ``--frontier 200`` gives, at
k = 2 and a pool of 48 (need 60 pairs), n_hat / need with 10% quantile 0.850 and median 1.167,
so a rule reaching the need in 90% of pilots asks for a median of at least 1.373x (typical
pilots: 1.111x, need 48). Four annotators give the annotator variance 3 df, the pair and
residual parts about 15: the plan cannot be both safe and tight, and the planner says so
(``SMALL_PILOT``) and advises a larger pilot, more annotators first. The 1.81x above 1.37x
is the price of the 70% limit's safety where the pilot's own C is largest (at confidence 0.6
the same pilots give 1.425x and 36/40; at the estimates, 1.233x and 24/40).

**The internal pilot** (``--reestimate``; :mod:`analysis.inference.reestimate`): per pilot the
fixed plan given the true difference (its k and pool: 2 and 48 or a widened pool), a first
stage drawn from the population at a fraction (0.7 or 1) of the size the pilot's point
estimates give, the components re-fitted on pilot + first stage, and the size they ask for
with each design's Var(mu_hat) at its upper limit at confidence 0.5-0.8, kept within [N1,
cap]. Columns: median N1 / need, median final / need (90% quantile), final sizes with true
power >= 0.80 (MC SE), capped. Measured 2026-12-05 on the small pilot, 40 pilots per seed,
nice 10, load average 6-12 (other sessions' simulations): seed 1 250 s for the two fractions
(the rule was chosen on seed 1), seed 2 848 s (the check on new pilots).

::

    first  look  cap   | seed 1: N1/need final  power  capped | seed 2: N1/need final  power
    1.0    0.7   2.5   |         1.183   1.267  37/40  0      |         1.088   1.250  37/40
    1.0    0.8   2.5   |         1.183   1.383  40/40  0      |         1.088   1.333  38/40
    0.85   0.8   2.5   |         1.008   1.367  40/40  1      |         (not run)
    0.7    0.6   2.5   |         (not run)                    |         0.772   1.081  26/40
    0.7    0.7   2.5   |         0.867   1.198  37/40  0      |         0.772   1.137  27/40
    0.7    0.8   2.5   |         0.867   1.269  38/40  3      |         0.772   1.198  36/40
    0.5    0.8   2.5   |         0.617   1.208  39/40  18     |         (not run)
    0.5    0.8   none  |         0.617   1.375  39/40  0      |         (not run)

(first: the first stage as a fraction of the size at the pilot's estimates; look: the
confidence of the upper limit at the look; cap: times N1. Seed 2 capped 1, 2, 3, 6 and 8 of
40 in the rows shown. MC SE of a share of 40: 3.4% at 95%, 4.7% at 90%, 7.4% at 67.5%.
The fixed plan on the same pilots: 1.81x and 1.57x the need at the median. Seed 1's
0.7 / 0.7 looked best on seed 1 and reached the power in only 27/40 of seed 2's pilots: with
40 pilots a rule's share moves by several points from seed to seed, and the look at 0.8 is
the one that held on both.) The rule
in the product, first stage 0.7, look at 80%, cap 2.5 N1, gives a median 1.27x and 1.20x the
need, reaching the power in 38/40 and 36/40 (74/80 = 92.5%, MC SE 2.9%): the 1.25x target met
on one seed and missed by 0.02 on the other, the 90% met on both, against 1.81x for the
fixed plan. The final size was a median 1.52 times the first stage (seed 1): the planner's
"expect about" figure (``GROWTH``).

**Type-I error with the look** (``--null 400 5 --jobs 2``, then ``--null 100 5 --jobs 2
--null-start 400``; seed 1): normal data with the small pilot scenario's true components,
rubric mean at the smallest effect (0.5) and factuality's at +margin (0.5), the others 0; per
pilot (16 pairs x 2 of 4 annotators) five main studies, k = 2 from a pool of 48 whose
annotator effects carry from the first stage to the second, the first stage at 0.7 of the
size the pilot's estimates give for the true rubric difference (0.94; 19 of 400 and 3 of 100
pilots reach no size at a pool of 48 and are left out), the look as in the product, and the
crossed tests at the end at alpha 0.05. Measured 2026-12-05, 2 processes at nice 10: the
first part 1,994 s (load average 8.9 at the start, 4-11 during, 7.4 at the end, 1,905 runs:
superiority 5.14%, MC SE 0.51%; TOST 6.14%, MC SE 0.55%), the second 370 s (load 7.2-7.3, 485
runs: 4.33% and 5.98%). Together, 2,390 runs after 478 pilots:

* rubric superiority, type-I 119 / 2,390 = 4.98% (MC SE 0.45%, pilots as clusters);
* factuality's TOST, type-I 146 / 2,390 = 6.11% (MC SE 0.49%): above 0.05 + 2 MC SE
  (5.98%) by 0.13 points;
* final / first stage median 1.59.

The same tests at a fixed size (``--null-fixed 2000 100`` and ``--null-fixed 2000 60``, no
pilot, no look; 1,102 s and 539 s at load 5.5-9): superiority 5.8% and 5.7%, TOST 4.9% and
4.5% (MC SE 0.5%). So the look leaves the superiority test at its fixed-size level, and
raises the TOST's by about 1.2-1.6 points (some 2.5 MC SE of the difference): variance-only
re-estimation from a first stage this small is not free for the TOST here. Not yet traced;
candidates: the final size depends on factuality's own first-stage variance, and a TOST
rejects at the margin when the SE is small.

**The tie questions at their own level** (issue 33 item 4; ``--tie-alpha 0.04``): the product
now reads each tie question's TOST at the internal pilot's pre-registered tie alpha
(:data:`analysis.inference.reestimate.TIE_ALPHA`, 0.04) and sizes the tie questions at it in
the first stage and the look; the superiority test keeps 0.05 (Friede & Kieser, 2003, and
Glimm et al., 2019, on re-estimation raising an equivalence test's level). Measured
2026-12-06, nice 10, beside four other sessions' tests and simulations:

* sizes (``--reestimate --product-rule --tie-alpha 0.04``, the same 2 x 40 small pilots as
  above; seed 1 481 s at load average 4.9-11.5, seed 2 929 s at 9.2-11.7): the need for the
  tests as read (ties at 0.04) a median 64 and 78 pairs (60 and 74 with every test at 0.05);
  final / need median 1.250 and 1.263 (90% quantile 1.644 and 1.747); true power >= 0.80 in
  40/40 and 36/40 (76/80 = 95.0%, MC SE 2.4%); capped 4 and 7; final / first stage 1.62 and
  1.84 (``GROWTH``). Against the need with every test at 0.05: 1.333 and 1.331, the stricter
  level's cost. Targets: power in >= 90% met on both seeds; median <= 1.25 met on seed 1,
  missed by 0.013 on seed 2.
* level under the null (``--null 420 5 --jobs 2 --tie-alpha 0.04``, with ``--null-start 420``
  and ``--null-start 720`` beside it, ``--jobs 1`` each, to use the time; stopped at 05:35 UTC
  by the session's deadline; normal data as above, pilots seeded by their index so the three
  processes' pilots are distinct): 2,220 runs after 444 pilots with a size (1,520 after 304
  from the first process, 3,938 s at load average 4.8-15.8; 610 after 122 and 90 after 18
  from the others, 2,654 s and 863 s to their last totals). Rubric superiority, type-I 119 /
  2,220 = 5.36% (MC SE 0.48%, pilots as clusters); factuality's TOST read at 0.04, 108 / 2,220
  = 4.86% (MC SE 0.44%): both within 0.05 + 2 MC SE (5.96% and 5.88%), against 6.11% for the
  TOST read at 0.05 before. The 700 runs of the two later processes kept the TOST's p: read
  at 0.05 / 0.04 / 0.03 they reject 4.71% / 4.14% / 2.71% (MC SE 0.77 / 0.71 / 0.62%): on
  these 700 runs even the TOST read at 0.05 after sizing at 0.04 stayed within its MC error,
  so the larger sizes may themselves remove part of the inflation (not measured on 2,000
  runs; the product reads at 0.04). Final / first stage median 1.59.

**Eight seeds, not two** (2026-12-06; ``--reestimate --product-rule --tie-alpha 0.04 --seed S
--save pS.json`` for S = 1..8, two processes at nice 10 beside four other sessions' tests, load
average 9-18; 116-398 s a seed; then ``--pool p1.json ... p8.json``). ``--product-rule`` now
also shows the look at the two confidences below the product's, and each median carries its
bootstrap MC SE. Per seed, final / need at the median (power >= 0.80 in 40 pilots), the
product's look at 0.80: 1.250 (40), 1.263 (36), 1.308 (38), 1.396 (39), 1.363 (39), 1.262 (37),
1.348 (38), 1.276 (40). Pooled over the 320 pilots:

::

    first  conf  cap   pilots  final/need (MC SE; q90)  power >= 0.80
     0.70  0.70   2.5     320       1.217 (0.016; 1.540)  282/320 = 88.1% (MC SE 1.8%)
     0.70  0.75   2.5     320       1.261 (0.021; 1.635)  296/320 = 92.5% (MC SE 1.5%)
     0.70  0.80   2.5     320       1.305 (0.017; 1.719)  307/320 = 95.9% (MC SE 1.1%)

So seeds 1 and 2 were the kind ones: the product's rule sizes a median **1.305 times** the need
(MC SE 0.017), not 1.25, while reaching the power in 95.9% of pilots. No look confidence of this
rule meets both targets: 0.75 gives 1.261 and 92.5%, 0.70 gives 1.217 and 88.1%; the two
targets cross between 0.70 and 0.75, too close to either to choose there on this evidence. The
rule is kept at 0.80 (its power target holds with room; the level under the null was measured
for it); a sharper re-estimate is what is left (e.g. planning on the expected power over the
components' uncertainty at the look rather than an upper limit, or a second look), and any new
rule needs the null run (``--null``) again, as the TOST's level depends on how the size follows
the first stage's variance.

**A factor, not an upper limit** (2026-12-06; the product's rule since). Why the ratio's
spread is what it is: at the look the size at the re-fitted point estimates is already tight
(over the 320 pilots above, asked / need has median 1.048 and 10% quantile 0.869, a ratio of
1.21), and the floor at N1 costs little (it binds in 11-24% of pilots and lifts the low
tail). What the upper limit adds is a width z sqrt(w'Cw) computed from the same estimates;
most of it is the annotator variance's, which the first stage (48 annotators rating two or
three pairs each) estimates worst and which the size amplifies (Var(mu_hat) keeps s2_a / m
however many pairs are added), so the limit is widest where that variance was overestimated:
it spreads the sizes instead of shifting them. Screened on the same 320 pilots and first
stages (their components cached once, each rule then applied to them; the cache reproduces
the table above to the last digit), with ties at 0.04: the look at the point estimates times
a factor f, rounded up, kept within [N1, 2.5 N1], against the upper limit at 0.6-0.8, a
chi-square (Satterthwaite) limit and a log-normal limit (these two at 0.6-0.75: on the same
frontier as the normal limit, e.g. 1.254 / 92.8% and 1.226 / 88.4% at 0.7), and factors on
the size at the 60% limit (1.222 / 90.3% at 1.08). The factor alone is the tightest:

::

    first  look             cap  pilots  final/need (MC SE; q90)  power >= 0.80
     0.70  estimate x 1.10  2.5     320       1.182 (0.013; 1.448)  272/320 = 85.0% (MC SE 2.0%)
     0.70  estimate x 1.15  2.5     320       1.222 (0.014; 1.470)  295/320 = 92.2% (MC SE 1.5%)
     0.70  estimate x 1.20  2.5     320       1.276 (0.011; 1.509)  305/320 = 95.3% (MC SE 1.2%)
     0.70  80% limit        2.5     320       1.305 (0.017; 1.719)  307/320 = 95.9% (MC SE 1.1%)

Per seed (f = 1.15), median and pilots reaching the power of 40: 1.195 (40), 1.187 (32),
1.254 (38), 1.258 (37), 1.290 (37), 1.190 (36), 1.217 (36), 1.221 (39); capped 10 of 320,
final / first stage median 1.42 (``GROWTH``). Factors 1.14 to 1.18 meet both targets pooled
(1.217 / 91.2% to 1.250 / 93.4%); 1.15 was chosen on these pilots, so the figures carry that
choice's optimism: on new pilots, seeds 9 and 10 (80 pilots, cached and screened the same way
after the choice), 1.188 (MC SE 0.028; q90 1.387) and 78/80 = 97.5%, the former rule 1.273 and
80/80, the 70% limit 1.175 and 76/80. The 90% quantile falls from 1.72 to 1.47 times the need.
Wall time: the cache 156-276 s a seed (two processes at nice 10, load average
7-15), the screening of 21 rules about 15 s of CPU a seed.

Type-I error with the factor's look (``--null 400 5 --jobs 1 --tie-alpha 0.04`` and, beside
it, ``--null 300 5 --jobs 1 --tie-alpha 0.04 --null-start 400``; seed 1; normal data as above):
two processes at nice 10, load average 3-33 (other sessions' suites and simulations), started
11:14 and 11:20 UTC; the first stopped at 12:15 UTC by the session's deadline after 304 pilots
with a size (3,440 s to its last totals, 1,520 runs), the second finished
(285 of 300 pilots with a size, 3,141 s, 1,425 runs). Together, 2,945 runs after 589 pilots:

* rubric superiority, type-I 149 / 2,945 = 5.06% (MC SE 0.41%; the two processes' clustered
  SEs combined);
* factuality's TOST read at 0.04, 131 / 2,945 = 4.45% (MC SE 0.38%): both within 0.05 + 2 MC
  SE (5.81% and 5.76%), as with the former rule (5.36% and 4.86%);
* the same runs' TOST p read at 0.05 / 0.03: 5.67% / 3.29% (MC SE 0.42 / 0.34%);
* final / first stage median 1.44 and 1.41.

So the factor's look holds the level as the former rule did, and the product uses it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.inference.null_check import (
    NullOutcome,
    clustered_share,
    fixed_null,
    null_run,
)
from analysis.inference.reestimate import (
    CAP_FACTOR,
    FIRST_STAGE_FRACTION,
    REESTIMATE_CONFIDENCE,
    SIZE_FACTOR,
)
from analysis.inference.reestimate_check import (
    FIRST_FRACTIONS,
    REESTIMATE_CONFIDENCES,
    SIZE_FACTORS,
    final_pairs,
    median_se,
    reestimate_run,
    summarise,
    true_power,
)
from analysis.inference.sizing_check import (
    SCENARIOS,
    Scenario,
    ScenarioSummary,
    frontier,
    run,
)

Rule = tuple[float, float, float, float]
"""(first-stage fraction, look confidence, factor on the look's size, cap as times N1)."""

FORMER_RULE: Rule = (FIRST_STAGE_FRACTION, 0.8, 1.0, CAP_FACTOR)
"""The product's rule before the factor: the look at the 80% upper limit of Var(mu_hat)."""


def product_rules() -> list[Rule]:
    """``--product-rule``: the product's rule, its factor's neighbours and the former rule with
    the look confidences just below its 0.8, on the product's first stage and cap."""
    at_estimate = [
        (FIRST_STAGE_FRACTION, REESTIMATE_CONFIDENCE, f, CAP_FACTOR)
        for f in SIZE_FACTORS
        if abs(f - SIZE_FACTOR) < 0.06
    ]
    limits = [(FIRST_STAGE_FRACTION, c, 1.0, CAP_FACTOR) for c in (0.7, 0.75, 0.8)]
    return at_estimate + limits


def all_rules() -> list[Rule]:
    """Every first stage, look confidence and cap side by side, and the factors at the
    estimates."""
    rules: list[Rule] = []
    for fraction in FIRST_FRACTIONS:
        rules += [
            (fraction, c, 1.0, cap) for c in REESTIMATE_CONFIDENCES for cap in (CAP_FACTOR, 1e9)
        ]
        rules += [(fraction, 0.5, f, CAP_FACTOR) for f in SIZE_FACTORS if f > 1]
    return rules


def share(count: int, total: int) -> str:
    p = count / total
    return f"{count}/{total} = {p:.1%} (MC SE {np.sqrt(p * (1 - p) / total):.1%})"


def show(summary: ScenarioSummary, seconds: float) -> None:
    n = summary.pilots
    print(
        f"\n{summary.name}: true rubric difference {summary.true_rubric:.3f}, {n} pilots, "
        f"{seconds:.0f} s"
    )
    print(
        f"  given:   k = 1 in {summary.k1}; pairs median {summary.median_pairs:.0f} vs "
        f"{summary.median_needed:.0f} needed at the true components, median ratio "
        f"{summary.median_ratio:.3f}; true power >= 0.80 in {share(summary.powered, n)}"
    )
    print(
        f"  default: a design for {summary.default_found}/{n} pilots, assumed "
        f"{summary.default_sources}; true power >= 0.80 in {share(summary.default_powered, n)}"
    )


def show_reestimate(
    scenario: Scenario,
    pilots: int,
    seed: int,
    tie_alpha: float | None = None,
    product_rule: bool = False,
    save: Path | None = None,
) -> None:
    """The internal pilot's rules side by side on the same pilots and first stages (only the
    product's rule with ``product_rule``); the tie questions sized and their power read at
    ``tie_alpha`` when given; ``save``: each rule's per-pilot final / need and whether the
    final size reached the power, as JSON (for ``--pool``)."""
    began = time.perf_counter()
    fractions = (FIRST_STAGE_FRACTION,) if product_rule else FIRST_FRACTIONS
    rules = product_rules() if product_rule else all_rules()
    t, outcomes = reestimate_run(scenario, pilots, seed, tie_alpha, fractions)
    n = len(outcomes)
    print(
        f"\n{scenario.name} (internal pilot): {n} of {pilots} pilots with a plan, "
        f"{time.perf_counter() - began:.0f} s; need (median) "
        f"{np.median([o.need for o in outcomes]):.0f} pairs, fixed plan / need "
        f"{np.median([o.fixed / o.need for o in outcomes]):.3f}"
    )
    if tie_alpha is not None:
        print(
            f"  tie questions at {tie_alpha:g}: need with every test at 0.05 (median) "
            f"{np.median([o.need_alpha for o in outcomes]):.0f} pairs"
        )
    print(
        "  first  conf  factor  cap  N1/need  final/need (MC SE; q90)  power >= 0.80"
        "          capped  growth  final/need at 0.05"
    )
    saved = []
    for fraction, confidence, factor, cap in rules:
        r = summarise(t, outcomes, fraction, confidence, cap, tie_alpha, factor)
        finals = [final_pairs(o, fraction, confidence, cap, factor) for o in outcomes]
        saved.append(
            {
                "rule": [fraction, confidence, factor, cap],
                "ratios": [f / o.need for f, o in zip(finals, outcomes, strict=True)],
                "powered": [
                    bool(true_power(t, o, f, tie_alpha=tie_alpha) >= 0.8)
                    for f, o in zip(finals, outcomes, strict=True)
                ],
            }
        )
        at_alpha = np.median([f / o.need_alpha for f, o in zip(finals, outcomes, strict=True)])
        print(
            f"  {fraction:5.2f}  {confidence:4.2f}  {factor:6.2f}  {_cap(cap):>4}"
            f"  {r.median_first:7.3f}  {r.median_ratio:10.3f}"
            f" ({r.median_ratio_se:.3f}; {r.q90_ratio:.3f})"
            f"  {share(r.powered, n):22s} {r.capped:6d}  {r.growth:.3f}"
            f"  {at_alpha:.3f}"
        )
    if save is not None:
        save.write_text(json.dumps({"seed": seed, "pilots": pilots, "rules": saved}))


def _cap(cap: float) -> str:
    return "none" if cap > 100 else f"{cap:g}"


def show_pooled(files: list[Path]) -> None:
    """Each rule over the pilots of several ``--save`` files (seeds) together: the median
    final / need with its bootstrap MC SE and 90% quantile, the share reaching the power with
    its binomial MC SE."""
    runs = [json.loads(f.read_text()) for f in files]
    seeds = ", ".join(str(r["seed"]) for r in runs)
    print(f"pooled over seeds {seeds}:")
    print("  first  conf  factor  cap   pilots  final/need (MC SE; q90)  power >= 0.80")
    for i, first in enumerate(runs[0]["rules"]):
        ratios = [x for r in runs for x in r["rules"][i]["ratios"]]
        powered = sum(x for r in runs for x in r["rules"][i]["powered"])
        fraction, confidence, factor, cap = first["rule"]
        print(
            f"  {fraction:5.2f}  {confidence:4.2f}  {factor:6.2f}  {_cap(cap):>4}  {len(ratios):6d}"
            f"  {np.median(ratios):10.3f} ({median_se(ratios):.3f}; "
            f"{np.quantile(ratios, 0.9):.3f})  {share(powered, len(ratios))}"
        )


NULL_CHUNK = 5  # pilots per task of the process pool


def show_null(
    scenario: Scenario,
    pilots: int,
    per_pilot: int,
    seed: int,
    jobs: int,
    first: int = 0,
    tie_alpha: float | None = None,
) -> None:
    """The type-I error of the test at the end of the internal pilot, under the null; the
    running totals are printed as the tasks finish (in order)."""
    began = time.perf_counter()
    chunks = [
        (first + start, min(NULL_CHUNK, pilots - start)) for start in range(0, pilots, NULL_CHUNK)
    ]
    runs: list[list[NullOutcome]] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        tasks = [(scenario, n, per_pilot, seed, start, tie_alpha) for start, n in chunks]
        for part in pool.map(null_run, *zip(*tasks, strict=True)):
            runs += part
            show_null_totals(runs, time.perf_counter() - began)


def show_null_totals(runs: list[list[NullOutcome]], seconds: float) -> None:
    said = []
    for name, hit in (("superiority", "superiority"), ("TOST", "tost")):
        p, se = clustered_share([[bool(getattr(o, hit)) for o in c] for c in runs])
        said.append(f"{name} type-I {p:.4f} (MC SE {se:.4f})")
    for level in (0.05, 0.04, 0.03):  # the same runs' TOST p read at other levels
        if all(o.tost_p is not None for c in runs for o in c):
            p, se = clustered_share([[o.tost_p < level for o in c] for c in runs])  # type: ignore[operator]
            said.append(f"TOST p < {level:g}: {p:.4f} ({se:.4f})")
    growth = np.median([o.final / o.first_stage for c in runs for o in c])
    print(
        f"  {len(runs)} pilots, {sum(map(len, runs))} runs: {'; '.join(said)}; final / first "
        f"stage median {growth:.3f}; {seconds:.0f} s, load {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pilots", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scenario", action="append", help="only these (repeatable)")
    parser.add_argument(
        "--frontier",
        type=int,
        metavar="PILOTS",
        help="instead: the tightest median ratio any plan scaled from the pilot's estimates "
        "can have while reaching the need in 90%% of PILOTS pilots (k = 2, pool 48)",
    )
    parser.add_argument(
        "--reestimate",
        action="store_true",
        help="instead: the internal pilot (analysis.inference.reestimate), its rules side by "
        "side (first stage, look confidence, cap) against the need",
    )
    parser.add_argument(
        "--null",
        type=int,
        nargs=2,
        metavar=("PILOTS", "PER_PILOT"),
        help="instead: the internal pilot's type-I error under the null, PILOTS pilots x "
        "PER_PILOT main studies each",
    )
    parser.add_argument(
        "--null-fixed",
        type=int,
        nargs=2,
        metavar=("RUNS", "PAIRS"),
        help="instead: the same tests under the same null at a fixed size (k 2, pool 48)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes for --null")
    parser.add_argument(
        "--tie-alpha",
        type=float,
        help="--reestimate / --null: the tie questions sized and tested at this level (the "
        "product's internal pilot: analysis.inference.reestimate.TIE_ALPHA)",
    )
    parser.add_argument(
        "--product-rule",
        action="store_true",
        help="--reestimate: only the product's rule (first stage, look confidence, cap)",
    )
    parser.add_argument(
        "--null-start",
        type=int,
        default=0,
        help="--null: the first pilot's index (to extend a run)",
    )
    parser.add_argument(
        "--save", type=Path, help="--reestimate: each rule's per-pilot figures, as JSON"
    )
    parser.add_argument(
        "--pool",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="instead: the rules over the pilots of several --save files (seeds) together",
    )
    args = parser.parse_args()
    if args.pool:
        show_pooled(args.pool)
        return
    chosen = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
    if args.null_fixed:
        for scenario in chosen:
            began = time.perf_counter()
            hits = fixed_null(scenario, args.null_fixed[0], args.seed, args.null_fixed[1])
            for name, i in (("superiority", 0), ("TOST", 1)):
                print(
                    f"{scenario.name}, {args.null_fixed[1]} pairs fixed: {name} type-I "
                    f"{share(sum(h[i] for h in hits), len(hits))}"
                )
            print(f"{time.perf_counter() - began:.0f} s, load {os.getloadavg()}")
        return
    if args.reestimate or args.null:
        print(f"load average at start: {os.getloadavg()}")
        for scenario in chosen:
            if args.reestimate:
                show_reestimate(
                    scenario,
                    args.pilots,
                    args.seed,
                    args.tie_alpha,
                    args.product_rule,
                    args.save,
                )
            else:
                print(f"\n{scenario.name} (internal pilot under the null)")
                show_null(
                    scenario,
                    args.null[0],
                    args.null[1],
                    args.seed,
                    args.jobs,
                    args.null_start,
                    args.tie_alpha,
                )
        print(f"load average at end: {os.getloadavg()}")
        return
    if args.frontier:
        for scenario in SCENARIOS:
            if args.scenario and scenario.name not in args.scenario:
                continue
            began = time.perf_counter()
            f = frontier(scenario, args.frontier, args.seed)
            print(
                f"{scenario.name}: need {f.need} pairs; n_hat / need q10 {f.q10:.3f}, median "
                f"{f.median:.3f}; best median ratio at 90% {f.best_median_ratio:.3f} "
                f"({time.perf_counter() - began:.0f} s)"
            )
        return
    print(f"bench_sizing: {args.pilots} pilots per scenario, seed {args.seed}")
    print(f"load average at start: {os.getloadavg()}")
    start = time.perf_counter()
    for scenario in chosen:
        began = time.perf_counter()
        summary, _ = run(scenario, args.pilots, args.seed)
        show(summary, time.perf_counter() - began)
    print(f"\nwall time {time.perf_counter() - start:.0f} s; load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
