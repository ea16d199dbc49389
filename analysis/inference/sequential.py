"""A group-sequential plan: Lan-DeMets error spending and its boundaries (issue 33 item 1).

A study that looks at its verdict before the planned size and stops at the first "validated"
inflates its error (4 looks: 12.1% instead of 5%). A group-sequential plan fixes the number and
timing of the looks (by pairs or by ratings) and spends the one-sided alpha of each test over
them with a Lan-DeMets spending function (Lan & DeMets 1983; Jennison & Turnbull 2000, ch. 7):

* O'Brien-Fleming type: ``alpha(t) = 2 - 2 Phi(z_{1-alpha/2} / sqrt(t))`` (spends little early);
* Pocock type: ``alpha(t) = alpha ln(1 + (e - 1) t)`` (spends evenly).

An optional futility boundary spends beta (one minus the power the plan aims at) by the same
families; it is non-binding by default (the efficacy boundaries ignore it, so not stopping for
futility never raises the error), binding on request. The boundaries are found on the z scale by
recursive numerical integration of the joint distribution of the z statistics at information
fractions t_k (Armitage, McPherson & Rowe 1969; Jennison & Turnbull ch. 19), the same quantities
as R's ``rpact::getDesignGroupSequential`` (checked in the suite to 1e-4).

A look reads each test (the three TOSTs and the rubric's superiority test) against its boundary
as a nominal p-value, ``1 - Phi(z_k)``: the test's own p (from its t distribution at that look's
df) must fall below it. :func:`read_look` gives the look, the boundaries and "stop" or "continue"
for any caller (the report, the Results page, a monitor).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize, stats

from analysis.schema.report_types import SequentialLook
from annotate.vocabulary import OBRIEN_FLEMING, POCOCK, check_sequential_plan

Z_TAIL = 8.0
"""The continuation region's lower edge when there is no futility bound: 8 SD below the mean."""
POINTS_PER_UNIT = 60
"""Grid points per unit of z in the integration (Simpson's rule; 1e-6 on the z scale)."""
STOP = "stop"
CONTINUE = "continue"
STOP_FUTILITY = "stop for futility"


def spent(family: str, level: float, t: float) -> float:
    """The error spent by information fraction ``t`` (0 < t <= 1) of a total ``level``."""
    if t >= 1:
        return level
    if family == OBRIEN_FLEMING:
        return float(2 * stats.norm.sf(stats.norm.isf(level / 2) / math.sqrt(t)))
    if family == POCOCK:
        return level * math.log(1 + (math.e - 1) * t)
    raise ValueError(f"unknown spending family {family!r}")


@dataclass(frozen=True)
class Boundaries:
    """One-sided boundaries on the z scale at each look; ``futility`` None without one (its
    last value equals the last efficacy value); ``drift`` the mean of Z at t = 1 the futility
    boundary was computed under (power 1 - beta)."""

    fractions: tuple[float, ...]
    efficacy: tuple[float, ...]
    futility: tuple[float, ...] | None
    alpha_spent: tuple[float, ...]
    beta_spent: tuple[float, ...] | None
    drift: float | None

    def nominal_p(self, look: int) -> float:
        """The efficacy boundary of look ``look`` (1-based) as a one-sided nominal p-value."""
        return float(stats.norm.sf(self.efficacy[look - 1]))

    def futility_p(self, look: int) -> float | None:
        """A p-value above this at look ``look`` crosses the futility boundary (None: none)."""
        if self.futility is None:
            return None
        return float(stats.norm.sf(self.futility[look - 1]))


class _Grid:
    """The density of the z statistic on the continuation region of one look."""

    def __init__(self, z: np.ndarray, density: np.ndarray, t: float) -> None:
        self.z, self.density, self.t = z, density, t


def _simpson(lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    n = max(int((hi - lo) * POINTS_PER_UNIT) // 2 * 2 + 1, 3)
    z = np.linspace(lo, hi, n)
    w = np.ones(n)
    w[1:-1:2], w[2:-1:2] = 4, 2
    return z, w * (hi - lo) / (n - 1) / 3


def _mean_z(drift: float, t: float) -> float:
    return drift * math.sqrt(t)


def _exceed(prev: _Grid | None, t: float, drift: float, bound: float, upper: bool) -> float:
    """P(continued so far, then Z at fraction t above (upper) or below ``bound``)."""
    if prev is None:
        start = bound - _mean_z(drift, t)
        return float(stats.norm.sf(start) if upper else stats.norm.cdf(start))
    step = t - prev.t
    x = (bound * math.sqrt(t) - prev.z * math.sqrt(prev.t) - drift * step) / math.sqrt(step)
    tail = stats.norm.sf(x) if upper else stats.norm.cdf(x)
    return float(np.dot(prev.density, tail))


def _continue(prev: _Grid | None, t: float, drift: float, lo: float, hi: float) -> _Grid:
    """The (weighted) density of Z at fraction t on [lo, hi], having continued so far."""
    z, w = _simpson(lo, hi)
    if prev is None:
        return _Grid(z, w * stats.norm.pdf(z - _mean_z(drift, t)), t)
    step = t - prev.t
    scale = math.sqrt(t / step)
    x = (z[:, None] * math.sqrt(t) - prev.z[None, :] * math.sqrt(prev.t) - drift * step) / (
        math.sqrt(step)
    )
    return _Grid(z, w * scale * (stats.norm.pdf(x) @ prev.density), t)


def _solve(target: float, crossing: Any) -> float:
    """The bound whose crossing probability (decreasing in the bound for efficacy, increasing
    for futility) equals ``target``."""
    lo, hi = crossing(-12.0) - target, crossing(12.0) - target
    if lo * hi > 0:  # the region left cannot spend it (a near-empty continuation region)
        return -12.0 if abs(lo) < abs(hi) else 12.0
    return float(optimize.brentq(lambda b: crossing(b) - target, -12.0, 12.0, xtol=1e-10))


def _efficacy(
    fractions: Sequence[float], alpha: float, family: str, lower: Sequence[float] | None
) -> list[float]:
    """Efficacy bounds under H0, continuing above ``lower`` (binding futility) or anywhere."""
    bounds: list[float] = []
    prev: _Grid | None = None
    for k, t in enumerate(fractions):
        target = spent(family, alpha, t) - (spent(family, alpha, fractions[k - 1]) if k else 0)
        b = _solve(target, lambda x, p=prev, tt=t: _exceed(p, tt, 0.0, x, upper=True))
        bounds.append(b)
        lo = -Z_TAIL if lower is None else max(lower[k], -Z_TAIL)
        if k + 1 < len(fractions):
            prev = _continue(prev, t, 0.0, lo, b)
    return bounds


def _futility(
    fractions: Sequence[float], efficacy: Sequence[float], beta: float, family: str, drift: float
) -> tuple[list[float], float]:
    """Futility bounds at looks 1..K-1 under ``drift`` by beta spending; the last look's
    residual: beta left to spend minus P(reach K and end below the last efficacy bound)."""
    bounds: list[float] = []
    prev: _Grid | None = None
    for k, t in enumerate(fractions[:-1]):
        target = spent(family, beta, t) - (spent(family, beta, fractions[k - 1]) if k else 0)
        f = _solve(target, lambda x, p=prev, tt=t: _exceed(p, tt, drift, x, upper=False))
        f = min(f, efficacy[k])
        bounds.append(f)
        prev = _continue(prev, t, drift, f, efficacy[k])
    left = beta - spent(family, beta, fractions[-2]) if len(fractions) > 1 else beta
    reach = _exceed(prev, fractions[-1], drift, efficacy[-1], upper=False)
    return bounds, reach - left


def boundaries(
    fractions: Sequence[float],
    alpha: float,
    family: str,
    futility: str | None = None,
    beta: float = 0.2,
    binding: bool = False,
) -> Boundaries:
    """The one-sided boundaries of a plan looking at information ``fractions`` (increasing, the
    last 1), spending ``alpha`` by ``family`` and, with ``futility``, beta by that family."""
    fr = [float(t) for t in fractions]
    if not fr or fr[-1] != 1 or any(b <= a for a, b in zip([0.0, *fr], fr, strict=False)):
        raise ValueError(f"information fractions must increase to 1, got {fr}")
    alpha_spent = tuple(spent(family, alpha, t) for t in fr)
    if futility is None:
        return Boundaries(tuple(fr), tuple(_efficacy(fr, alpha, family, None)), None,
                          alpha_spent, None, None)  # fmt: skip
    efficacy = _efficacy(fr, alpha, family, None)

    def residual(drift: float) -> float:
        nonlocal efficacy
        if binding:
            lower = _futility(fr, efficacy, beta, futility, drift)[0]
            efficacy = _efficacy(fr, alpha, family, [*lower, efficacy[-1]])
        return _futility(fr, efficacy, beta, futility, drift)[1]

    fixed = float(stats.norm.isf(alpha) + stats.norm.isf(beta))
    drift = float(optimize.brentq(residual, 0.0, 2 * fixed, xtol=1e-10))
    residual(drift)
    lower = _futility(fr, efficacy, beta, futility, drift)[0]
    return Boundaries(
        tuple(fr),
        tuple(efficacy),
        (*lower, efficacy[-1]),
        alpha_spent,
        tuple(spent(futility, beta, t) for t in fr),
        drift,
    )


# ---------------------------------------------------------------- reading a look


def read_look(
    sequential: Mapping[str, Any],
    alpha: float,
    n_observed: int,
    p_values: Mapping[str, float | None],
) -> SequentialLook:
    """The look a study is at with ``n_observed`` pairs (or ratings) collected, its boundaries
    and whether the tests (``p_values``: name -> one-sided p, None when undefined) cross them:
    "stop" (validated, or the last look), "stop for futility" or "continue"."""
    plan = check_sequential_plan(sequential)
    looks: list[int] = plan["looks"]
    k = sum(n_observed >= n for n in looks)
    total = looks[-1]
    base: SequentialLook = {
        "look": k,
        "n_looks": len(looks),
        "unit": plan["unit"],
        "looks": looks,
        "n_observed": int(n_observed),
        "information": min(n_observed / total, 1.0),
        "alpha_spending": plan["alpha_spending"],
        "futility": plan["futility"],
        "binding": plan["binding"],
        "boundary_p": None,
        "boundary_z": None,
        "futility_p": None,
        "futility_z": None,
        "tests": {},
        "crossed": False,
        "decision": CONTINUE,
        "final": False,
        "words": "",
    }
    if k == 0:
        base["words"] = (
            f"before the first look ({n_observed} of {looks[0]} {plan['unit']}): continue; "
            "no verdict is read yet"
        )
        return base
    fractions = _observed_fractions(looks, k, n_observed)
    bounds = boundaries(
        fractions, alpha, plan["alpha_spending"], plan["futility"], plan["beta"], plan["binding"]
    )
    return _decide(base, bounds, p_values)


def _observed_fractions(looks: Sequence[int], k: int, n_observed: int) -> list[float]:
    """The planned fractions, look k's replaced by the one observed (Lan-DeMets: the boundary
    follows the information actually reached)."""
    total = looks[-1]
    fractions = [n / total for n in looks]
    if k < len(looks):
        fractions[k - 1] = n_observed / total
    return fractions


def _decide(
    base: SequentialLook, bounds: Boundaries, p_values: Mapping[str, float | None]
) -> SequentialLook:
    k, final = base["look"], base["look"] == base["n_looks"]
    boundary, futile_at = bounds.nominal_p(k), None if final else bounds.futility_p(k)
    tests = {
        name: {
            "p": p,
            "crossed": p is not None and p < boundary,
            "futile": futile_at is not None and p is not None and p > futile_at,
        }
        for name, p in p_values.items()
    }
    crossed = bool(tests) and all(t["crossed"] for t in tests.values())
    futile = any(t["futile"] for t in tests.values())
    decision = STOP if crossed or final else STOP_FUTILITY if futile else CONTINUE
    base.update(
        {
            "boundary_p": boundary,
            "boundary_z": bounds.efficacy[k - 1],
            "futility_p": futile_at,
            "futility_z": None if bounds.futility is None or final else bounds.futility[k - 1],
            "tests": tests,
            "crossed": crossed,
            "decision": decision,
            "final": final,
        }
    )
    base["words"] = look_words(base)
    return base


def look_words(look: SequentialLook) -> str:
    """'look 2 of 4 (60 of 120 pairs): boundary p < 0.0056 (z 2.54); continue'."""
    if look["look"] == 0:
        return look["words"]
    head = (
        f"look {look['look']} of {look['n_looks']} ({look['n_observed']} of "
        f"{look['looks'][-1]} {look['unit']}): boundary p < {look['boundary_p']:.4g} "
        f"(z {look['boundary_z']:.3f})"
    )
    if look["futility_p"] is not None:
        kind = "binding" if look["binding"] else "non-binding"
        head += f", futility p > {look['futility_p']:.4g} ({kind})"
    if look["crossed"]:
        tail = "boundary crossed: stop, validated"
    elif look["final"]:
        tail = "last look, boundary not crossed: stop, not validated"
    elif look["decision"] == STOP_FUTILITY:
        tail = "futility boundary crossed: stop for futility (not validated)"
    else:
        tail = "boundary not crossed: continue"
    return f"{head}; {tail}"
