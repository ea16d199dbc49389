"""Power and sample size for the study verdict.

The tests are those of :mod:`analysis.inference.paired`, on per-pair mean differences d = chosen -
rejected with SD ``sd`` (at the planned number of annotators per pair):

* one-sided superiority t-test: power is exact from the noncentral t,
  ``1 - pt(qt(1 - alpha, n - 1), n - 1, ncp = sqrt(n) * delta / sd)``, the same as R's
  ``power.t.test(n, delta, sd, sig.level = alpha, type = "paired", alternative = "one.sided")``;
* TOST at +-margin: exact, by integrating over the sample SD (Owen's Q by quadrature): TOST holds
  when -margin + t_crit * s / sqrt(n) < mean < margin - t_crit * s / sqrt(n);
* the joint verdict (every general dimension ties AND rubric alignment diverges, with the
  minimum of :data:`analysis.inference.paired.MIN_PAIRS`): seeded simulation of the per-pair
  differences, correlated across dimensions when a correlation is given (or estimated from a pilot).

The SD of per-pair means depends on the annotators per pair k: sd_k^2 = between + within / k,
the two components estimated from a pilot export (:func:`pilot_estimates`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy import integrate, special, stats

from analysis.core.coded import CHOSEN, REJECTED, FloatArray, encode_ratings, scale_keys
from analysis.core.position import response_scores
from analysis.inference.paired import MIN_PAIRS
from analysis.schema.report_types import PowerResult, TestPower
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire

MAX_PAIRS = 100_000
DEFAULT_SIMULATIONS = 2000
SIM_CHUNK = 250


def superiority_power(n: int, delta: float, sd: float, alpha: float = 0.05) -> float:
    """Power of the one-sided paired t-test of mean > 0 (R ``power.t.test``, one-sided)."""
    if n < 2:
        return 0.0
    return superiority_power_se(delta, sd / np.sqrt(n), n - 1, 0.0, alpha)


def superiority_power_se(
    delta: float, se: float, df: float, null: float = 0.0, alpha: float = 0.05
) -> float:
    """Power of the one-sided t-test of mean > ``null`` for an estimate with standard error
    ``se`` whose estimated variance is se^2 chi2_df / df (exact for a t-test; Satterthwaite's
    approximation for a mixed model): the noncentral t with ncp (delta - null) / se."""
    t_crit = stats.t.ppf(1 - alpha, df)
    return float(stats.nct.sf(t_crit, df, float((delta - null) / se)))


def tost_power(n: int, delta: float, sd: float, margin: float, alpha: float = 0.05) -> float:
    """Exact power of the paired TOST at +-margin when the true mean difference is delta."""
    if n < 2:
        return 0.0
    return tost_power_se(delta, sd / np.sqrt(n), n - 1, margin, alpha)


@lru_cache(maxsize=4096)
def tost_power_se(delta: float, se: float, df: float, margin: float, alpha: float = 0.05) -> float:
    """Power of the TOST at +-margin for an estimate ~ N(delta, se^2) whose estimated SE s
    has s^2 / se^2 ~ chi2_df / df, independent of it: TOST holds when
    -margin + t_crit s < estimate < margin - t_crit s; integrated over s (Owen's Q by
    quadrature)."""
    t_crit = float(stats.t.ppf(1 - alpha, df))
    s_max = margin / t_crit  # beyond this estimated SE the acceptance region is empty
    root_df = float(np.sqrt(df))
    # log of the chi(df) density's constant, and the density of s written out with
    # scipy.special (scipy.stats' per-call overhead was 90% of the planner's time)
    log_const = (1 - df / 2) * np.log(2.0) - special.gammaln(df / 2) + np.log(root_df / se)

    def integrand(s: float) -> float:
        half = margin - t_crit * s
        x = s * root_df / se
        if x <= 0:
            return 0.0
        density = np.exp(log_const + (df - 1) * np.log(x) - x * x / 2)
        return float(
            (special.ndtr((half - delta) / se) - special.ndtr((-half - delta) / se)) * density
        )

    points = [p for p in (se / 2, se, 2 * se) if p < s_max]
    value, _ = integrate.quad(integrand, 0.0, s_max, points=points or None, limit=200)
    return float(min(max(value, 0.0), 1.0))


def pairs_needed(power_at: Callable[[int], float], target: float, start: int = 2) -> int | None:
    """Smallest n >= start with power_at(n) >= target (power increasing in n), by doubling and
    bisection; None if not reached by MAX_PAIRS."""
    low, high = start, start
    while power_at(high) < target:
        low, high = high + 1, high * 2
        if high > MAX_PAIRS:
            return None
    while low < high:
        mid = (low + high) // 2
        if power_at(mid) >= target:
            high = mid
        else:
            low = mid + 1
    return high


@dataclass(frozen=True)
class Plan:
    """Planned study: pairs, annotators per pair, margin (points), SD of per-pair mean
    differences per dimension, true differences per dimension, correlation across dimensions."""

    n_pairs: int
    annotators_per_pair: int
    margin: float
    sd: Mapping[str, float]
    true_diff: Mapping[str, float]
    correlation: FloatArray | None = None
    alpha: float = 0.05
    target: float = 0.8
    simulations: int = DEFAULT_SIMULATIONS
    seed: int = 0
    sd_source: str = "given"
    notes: list[str] = field(default_factory=list)
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE  # ties TOST, diverges superiority

    @property
    def keys(self) -> tuple[str, ...]:
        """The scale questions simulated (the order of ``correlation``)."""
        return scale_keys(self.questionnaire)

    @property
    def tested(self) -> tuple[str, ...]:
        """The questions the verdict tests (``tie`` and ``diverge``), in order."""
        hypotheses = {*self.questionnaire.tie_keys, *self.questionnaire.diverge_keys}
        return tuple(k for k in self.keys if k in hypotheses)


def plan_power(plan: Plan) -> PowerResult:
    """Power of each test and of the joint verdict at the planned size, and the pairs needed
    for the target power."""
    tests: dict[str, TestPower] = {}
    for dim in plan.tested:
        tests[dim] = _test_power(plan, dim)
    joint, joint_se = simulate_joint_power(plan, plan.n_pairs)
    single_needed = [t["pairs_needed"] for t in tests.values()]
    start = max([MIN_PAIRS, *[n for n in single_needed if n is not None]])
    joint_needed = None
    if all(n is not None for n in single_needed):
        joint_needed = pairs_needed(
            lambda n: simulate_joint_power(plan, n)[0], plan.target, start=start
        )
    return {
        "n_pairs": plan.n_pairs,
        "annotators_per_pair": plan.annotators_per_pair,
        "margin": plan.margin,
        "alpha": plan.alpha,
        "target": plan.target,
        "sd": dict(plan.sd),
        "sd_source": plan.sd_source,
        "true_diff": dict(plan.true_diff),
        "tests": tests,
        "joint_power": joint,
        "joint_power_mc_se": joint_se,
        "joint_pairs_needed": joint_needed,
        "simulations": plan.simulations,
        "seed": plan.seed,
        "method": "TOST: exact (integration over the sample SD); superiority: noncentral t "
        "(as R power.t.test, one-sided); joint verdict: seeded simulation of per-pair "
        f"differences, at least {MIN_PAIRS} pairs.",
        "notes": list(plan.notes),
    }


def _test_power(plan: Plan, dim: str) -> TestPower:
    sd, delta = plan.sd[dim], plan.true_diff.get(dim, 0.0)
    if dim in plan.questionnaire.diverge_keys:

        def power_at(n: int) -> float:
            return superiority_power(n, delta, sd, plan.alpha)

        test = "superiority"
    else:

        def power_at(n: int) -> float:
            return tost_power(n, delta, sd, plan.margin, plan.alpha)

        test = "tost"
    reachable = (test == "tost" and abs(delta) < plan.margin) or (
        test == "superiority" and delta > 0
    )
    return {
        "test": test,
        "true_diff": delta,
        "sd": sd,
        "power": power_at(plan.n_pairs),
        "pairs_needed": pairs_needed(power_at, plan.target, MIN_PAIRS) if reachable else None,
    }


def simulate_joint_power(plan: Plan, n: int) -> tuple[float, float]:
    """Share of simulated studies of n pairs that are validated (seeded), with its Monte Carlo
    standard error. Differences are drawn per pair from a multivariate normal with the plan's
    SDs and correlation; each dimension is tested as in the report."""
    if n < MIN_PAIRS:
        return 0.0, 0.0
    rng = np.random.default_rng([plan.seed, n])
    keys = plan.keys
    mean = np.array([plan.true_diff.get(d, 0.0) for d in keys])
    sd = np.array([plan.sd[d] for d in keys])
    corr = np.eye(len(keys)) if plan.correlation is None else plan.correlation
    chol = np.linalg.cholesky(corr * np.outer(sd, sd))
    df = n - 1
    t_crit = stats.t.ppf(1 - plan.alpha, df)
    diverge = [keys.index(d) for d in plan.questionnaire.diverge_keys]
    general = [keys.index(d) for d in plan.questionnaire.tie_keys]
    wins = 0
    chunk = max(1, min(SIM_CHUNK, 2_000_000 // (n * len(keys))))
    for start in range(0, plan.simulations, chunk):
        size = min(chunk, plan.simulations - start)
        draws = rng.standard_normal((size, n, len(keys))) @ chol.T + mean
        means = draws.mean(axis=1)
        se = draws.std(axis=1, ddof=1) / np.sqrt(n)
        ties = ((means + plan.margin) / se > t_crit) & ((means - plan.margin) / se < -t_crit)
        superior = means / se > t_crit
        validated = ties[:, general].all(axis=1) & superior[:, diverge].all(axis=1)
        wins += int(validated.sum())
    power = wins / plan.simulations
    return power, float(np.sqrt(power * (1 - power) / plan.simulations))


@dataclass(frozen=True)
class PilotEstimates:
    between: dict[str, float]  # variance of the pair-level difference
    within: dict[str, float]  # variance of one annotator's difference around the pair's
    correlation: FloatArray  # of the per-pair mean differences across dimensions
    n_pairs: int

    def sd_at(self, k: int) -> dict[str, float]:
        """SD of per-pair mean differences with k annotators per pair."""
        return {d: float(np.sqrt(self.between[d] + self.within[d] / k)) for d in self.between}


def pilot_estimates(
    ratings: pd.DataFrame, questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE
) -> PilotEstimates:
    """Variance components of chosen - rejected from a validated pilot export (one-way random
    effects by moments): within = pooled variance of the annotators' differences within a pair;
    between = variance of the pair means minus within x mean(1/k), at least 0."""
    coded = encode_ratings(ratings, questionnaire)
    keys = coded.keys
    scores, _ = response_scores(coded)
    d = scores[:, :, CHOSEN] - scores[:, :, REJECTED]  # (ratings, dims)
    pair = np.zeros(coded.n_ratings, dtype=np.int64)
    pair[coded.rating] = coded.pair
    between: dict[str, float] = {}
    within: dict[str, float] = {}
    pair_means = np.full((coded.n_pairs, len(keys)), np.nan)
    for i, dim in enumerate(keys):
        frame = pd.DataFrame({"pair": pair, "d": d[:, i]}).dropna()
        grouped = frame.groupby("pair")["d"]
        k = grouped.size()
        var = grouped.var(ddof=1)
        multi = k > 1
        pooled = float((var[multi] * (k[multi] - 1)).sum() / max((k[multi] - 1).sum(), 1))
        means = grouped.mean()
        pair_means[means.index.to_numpy(), i] = means.to_numpy()
        total = float(means.var(ddof=1)) if len(means) > 1 else 0.0
        within[dim] = pooled
        between[dim] = max(total - pooled * float(np.mean(1 / k)), 0.0)
    complete = ~np.isnan(pair_means).any(axis=1)
    corr = np.eye(len(keys))
    if complete.sum() > len(keys):
        corr = np.nan_to_num(np.corrcoef(pair_means[complete], rowvar=False), nan=0.0)
        np.fill_diagonal(corr, 1.0)
        corr = _nearest_positive(corr)
    return PilotEstimates(between, within, corr, int(complete.sum()))


def _nearest_positive(corr: FloatArray) -> FloatArray:
    """Clip negative eigenvalues so the correlation matrix has a Cholesky factor."""
    values, vectors = np.linalg.eigh(corr)
    fixed = vectors @ np.diag(np.maximum(values, 1e-6)) @ vectors.T
    scale = np.sqrt(np.diag(fixed))
    return np.asarray(fixed / np.outer(scale, scale), dtype=np.float64)


def make_plan(
    n_pairs: int,
    annotators_per_pair: int,
    margin: float,
    *,
    sd: float | None = None,
    pilot: pd.DataFrame | None = None,
    true_diff: Mapping[str, float] | None = None,
    general_diff: float = 0.0,
    rubric_diff: float = 0.5,
    alpha: float = 0.05,
    target: float = 0.8,
    simulations: int = DEFAULT_SIMULATIONS,
    seed: int = 0,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> Plan:
    """A :class:`Plan` from the planner's inputs: a common ``sd`` or a ``pilot`` export;
    ``general_diff`` is the true difference of each ``tie`` question, ``rubric_diff`` of each
    ``diverge`` question."""
    if n_pairs < 1 or annotators_per_pair < 1:
        raise ValueError("pairs and annotators per pair must be at least 1")
    if not margin > 0 or not 0 < alpha < 0.5 or not 0 < target < 1 or simulations < 1:
        raise ValueError("need margin > 0, 0 < alpha < 0.5, 0 < target < 1, simulations >= 1")
    diffs = dict.fromkeys(questionnaire.tie_keys, general_diff)
    diffs |= dict.fromkeys(questionnaire.diverge_keys, rubric_diff)
    diffs |= dict(true_diff or {})
    correlation = None
    notes: list[str] = []
    if pilot is not None:
        estimates = pilot_estimates(pilot, questionnaire)
        sds = estimates.sd_at(annotators_per_pair)
        correlation = estimates.correlation
        source = f"pilot ({estimates.n_pairs} pairs), k = {annotators_per_pair}"
    elif sd is not None and sd > 0:
        sds = dict.fromkeys(scale_keys(questionnaire), sd)
        source = "given"
        notes.append("dimensions simulated as independent (no pilot to estimate correlation)")
    else:
        raise ValueError("give a positive --sd or a --pilot export")
    return Plan(
        n_pairs,
        annotators_per_pair,
        margin,
        sds,
        diffs,
        correlation,
        alpha,
        target,
        simulations,
        seed,
        source,
        notes,
        questionnaire,
    )


def power_table(
    sd: float, margin: float, diffs: Sequence[float], target: float = 0.8, alpha: float = 0.05
) -> dict[float, int | None]:
    """Pairs needed for one TOST at each true difference (the issue's 14/27/58 check)."""
    return {delta: pairs_needed(_tost_at(delta, sd, margin, alpha), target) for delta in diffs}


def _tost_at(delta: float, sd: float, margin: float, alpha: float) -> Callable[[int], float]:
    return lambda n: tost_power(n, delta, sd, margin, alpha)


SENSITIVITY_ONLY = (
    "This plans the sensitivity analysis on per-pair means (pairs random, annotators fixed; "
    "SDs at face value). The verdict's primary analysis treats annotators as random too: size "
    "it from a pilot with `python -m analysis size PILOT` (variance components at their upper "
    "confidence limits)."
)


def power_text(result: PowerResult) -> str:
    """The planner's answer as plain text (Markdown table)."""
    lines = [
        f"Power at {result['n_pairs']} pairs x {result['annotators_per_pair']} annotators, "
        f"margin ±{result['margin']:g}, alpha {result['alpha']:g} (SD: {result['sd_source']})",
        "",
        f"{SENSITIVITY_ONLY}",
        "",
        f"| Dimension | Test | True diff | SD | Power | Pairs for {result['target']:.0%} |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for dim, t in result["tests"].items():
        needed = "unreachable" if t["pairs_needed"] is None else str(t["pairs_needed"])
        lines.append(
            f"| {dim} | {t['test']} | {t['true_diff']:+.2f} | {t['sd']:.3f} | "
            f"{t['power']:.3f} | {needed} |"
        )
    joint_needed = result["joint_pairs_needed"]
    lines += [
        "",
        f"Joint verdict (validated): power {result['joint_power']:.3f} "
        f"(Monte Carlo SE {result['joint_power_mc_se']:.3f}, {result['simulations']} "
        f"simulations, seed {result['seed']}); pairs for {result['target']:.0%}: "
        f"{'unreachable' if joint_needed is None else joint_needed}.",
        *result["notes"],
        result["method"],
    ]
    return "\n".join(lines) + "\n"
