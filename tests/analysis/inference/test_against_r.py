"""The statistics checked against GNU R itself, run live (`Rscript`, Debian's r-base-core, which
`scripts/setup.sh test` installs; skipped where R is missing). Seeded data with the cases that
matter: ties, zero differences, small samples (exact tests) and large ones (approximations).

- `analysis.inference.paired.t_tests`: one-sided superiority p, TOST p (the larger of two one-sided
  tests at -margin and +margin) and the 95% interval, against `t.test`;
- `analysis.inference.paired.wilcoxon_test`, against `wilcox.test(paired = TRUE)` (R picks exact or
  normal approximation by its own rule, which ours copies);
- `analysis.inference.accuracy.wilson_interval`, against `prop.test(x, n, correct =
FALSE)$conf.int`; - `analysis.models.reward_models.mcnemar_test`, against `mcnemar.test` (25 or
  more discordant pairs) and `binom.test` (fewer);
- `analysis.inference.power.superiority_power`, against `power.t.test(type = "one.sample",
  alternative = "one.sided")`.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from analysis.inference.accuracy import wilson_interval
from analysis.inference.paired import t_tests, wilcoxon_test
from analysis.inference.power import superiority_power
from analysis.models.reward_models import mcnemar_test

pytestmark = pytest.mark.skipif(
    shutil.which("Rscript") is None, reason="needs GNU R (apt-get install r-base-core)"
)

MARGIN = 0.5


def _samples() -> dict[str, np.ndarray]:
    """Paired differences: half-point steps (ties and zeros), continuous, tiny and large."""
    rng = np.random.default_rng(20261204)
    return {
        "steps": np.round(rng.normal(0.3, 1.0, 40) * 2) / 2,  # ties and zeros: approximation
        "continuous": rng.normal(0.2, 0.8, 30),  # no ties: exact Wilcoxon
        "tiny": np.array([0.7, -0.2, 1.3, 0.4, 2.1, -0.9]),
        "large": rng.normal(1.5, 1.2, 400),  # beyond the exact limit
        "equivalent": rng.normal(0.02, 0.3, 60),
    }


def _vector(values: np.ndarray) -> str:
    return "c(" + ", ".join(repr(float(v)) for v in values) + ")"


def _run_r(script: str, tmp_path: Path) -> dict[str, list[float]]:
    """Run the script; each output line is `name value value ...`."""
    path = tmp_path / "check.R"
    path.write_text(script, encoding="utf-8")
    done = subprocess.run(
        ["Rscript", str(path)], capture_output=True, text=True, check=True, timeout=120
    )
    out: dict[str, list[float]] = {}
    for line in done.stdout.splitlines():
        name, *values = line.split()
        out[name] = [float(v) for v in values]
    return out


def test_t_tests_and_wilcoxon_match_r(tmp_path):
    samples = _samples()
    lines = ["options(digits = 17)", "say <- function(n, v) cat(n, format(v, digits = 17), '\\n')"]
    for name, d in samples.items():
        lines += [
            f"d <- {_vector(d)}",
            f"say('{name}_sup', t.test(d, mu = 0, alternative = 'greater')$p.value)",
            f"lo <- t.test(d, mu = -{MARGIN}, alternative = 'greater')$p.value",
            f"hi <- t.test(d, mu = {MARGIN}, alternative = 'less')$p.value",
            f"say('{name}_tost', max(lo, hi))",
            f"say('{name}_ci', t.test(d)$conf.int)",
            f"say('{name}_wil', suppressWarnings(wilcox.test(d, rep(0, length(d)), "
            "paired = TRUE, correct = TRUE))$p.value)",
        ]
    r = _run_r("\n".join(lines) + "\n", tmp_path)
    for name, d in samples.items():
        ours = t_tests(d, MARGIN, 0.05)
        assert ours.superiority_p == pytest.approx(r[f"{name}_sup"][0], rel=1e-9, abs=1e-300)
        assert ours.tost_p == pytest.approx(r[f"{name}_tost"][0], rel=1e-9, abs=1e-300)
        assert ours.ci95 == pytest.approx(r[f"{name}_ci"], rel=1e-9)
        wil = wilcoxon_test(d, np.zeros_like(d))
        assert wil.pvalue == pytest.approx(r[f"{name}_wil"][0], rel=1e-7), (name, wil.method)


def test_wilson_mcnemar_and_power_match_r(tmp_path):
    proportions = [(0, 10), (3, 10), (45, 60), (2830, 2830), (1234.5, 2830)]
    rng = np.random.default_rng(7)
    model = rng.random(300) < 0.7
    human = rng.random(300) < 0.9
    small_model, small_human = model[:30], human[:30]
    powers = [(20, 0.3, 1.0, 0.05), (60, 0.5, 1.2, 0.05), (200, 0.1, 0.9, 0.025)]
    lines = ["say <- function(n, v) cat(n, format(v, digits = 17), '\\n')"]
    for i, (x, n) in enumerate(proportions):
        lines.append(f"say('wilson{i}', prop.test({x}, {n}, correct = FALSE)$conf.int)")
    for label, (m, h) in {"big": (model, human), "small": (small_model, small_human)}.items():
        b, c = int(np.sum(m & ~h)), int(np.sum(~m & h))
        both, neither = int(np.sum(m & h)), int(np.sum(~m & ~h))
        if b + c >= 25:
            table = f"matrix(c({both}, {c}, {b}, {neither}), 2)"
            lines.append(f"say('mcnemar_{label}', mcnemar.test({table})$p.value)")
        else:
            lines.append(f"say('mcnemar_{label}', binom.test({b}, {b + c}, 0.5)$p.value)")
    for i, (n, delta, sd, alpha) in enumerate(powers):
        lines.append(
            f"say('power{i}', power.t.test(n = {n}, delta = {delta}, sd = {sd}, sig.level = "
            f"{alpha}, type = 'one.sample', alternative = 'one.sided')$power)"
        )
    r = _run_r("\n".join(lines) + "\n", tmp_path)
    for i, (x, n) in enumerate(proportions):
        assert wilson_interval(x, n) == pytest.approx(r[f"wilson{i}"], rel=1e-9, abs=1e-12)
    big, small = mcnemar_test(model, human), mcnemar_test(small_model, small_human)
    assert big["method"] == "chi-squared with continuity correction"
    assert small["method"] == "exact binomial"
    assert big["p"] == pytest.approx(r["mcnemar_big"][0], rel=1e-9)
    assert small["p"] == pytest.approx(r["mcnemar_small"][0], rel=1e-9)
    for i, (n, delta, sd, alpha) in enumerate(powers):
        assert superiority_power(n, delta, sd, alpha) == pytest.approx(r[f"power{i}"][0], rel=1e-6)
