"""Benchmark of the validation report on about a million score rows.

Data: ``simulate_ratings`` with 2,830 pairs (the size of the benchmark's test split) x 44
annotators per pair x 8 scores = 996,160 rows; the 44 annotators of each pair are drawn from a
pool of 120. Prints:

* the full report without bootstrap (best and median of ``--repeat`` runs; target < 10 s),
* the extra cost of the bootstrap (``--n-boot``, default 1000 resamples),
* the agreement step (value counts + ``krippendorff.alpha``, ordinal and interval, 4
  dimensions) against ``krippendorff.alpha`` alone on prebuilt reliability matrices
  (annotators x (pair, response) units, nan for missing), as a ratio,
* a breakdown of the report's steps.

Run: ``python benchmarks/bench_report.py [--pairs N] [--per-pair K] [--pool P]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import krippendorff
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.core.agreement import (
    annotator_agreement,
    dimension_agreement,
    preference_agreement,
)
from analysis.core.annotators import annotator_behaviour
from analysis.core.coded import encode_ratings, pair_means
from analysis.core.position import position_bias
from analysis.core.ratings import validate_ratings
from analysis.inference.mixed import mixed_model
from analysis.inference.primary import RatingDiffs, compare_dimensions
from analysis.renderers.render import render_report
from analysis.report import build_report
from analysis.report_sections import by_domain
from analysis.simulate import simulate_ratings
from annotate.vocabulary import DIMENSIONS

DOMAIN = [1, 2, 3, 4, 5]


def timed(fn: Callable[[], object], repeat: int = 1) -> tuple[list[float], object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return times, result


def reliability_matrices(coded) -> list[np.ndarray]:
    """Annotators x (pair, response) matrices per dimension, as krippendorff.alpha takes them."""
    out = []
    for dim_index in range(len(DIMENSIONS)):
        rows = coded.dimension == dim_index
        matrix = np.full((coded.n_annotators, coded.n_pairs * 2), np.nan)
        matrix[coded.annotator[rows], coded.pair[rows] * 2 + coded.response[rows]] = coded.score[
            rows
        ]
        out.append(matrix)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2830)
    parser.add_argument("--per-pair", type=int, default=44)
    parser.add_argument("--pool", type=int, default=120)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    (t_sim,), df = timed(
        lambda: simulate_ratings(
            args.pairs, args.per_pair, {"rubric_alignment": 1.5}, seed=1, n_annotators=args.pool
        )
    )
    print(
        f"rows: {len(df):,} ({args.pairs} pairs x {args.per_pair} annotators/pair x 8; "
        f"pool {args.pool}); simulate: {t_sim:.2f} s"
    )

    plain, report = timed(lambda: build_report(df, n_boot=0), args.repeat)
    boot, _ = timed(lambda: build_report(df, n_boot=args.n_boot), args.repeat)
    print(
        f"report, no bootstrap:   best {min(plain):.2f} s, median {statistics.median(plain):.2f} s"
        f"  (target < 10 s)"
    )
    print(
        f"report, n_boot={args.n_boot}: best {min(boot):.2f} s, "
        f"median {statistics.median(boot):.2f} s"
        f"  -> bootstrap adds {min(boot) - min(plain):.2f} s (best vs best)"
    )
    print(f"validated: {report['checks']['validated']}")

    coded = encode_ratings(validate_ratings(df))
    ours, _ = timed(lambda: dimension_agreement(coded, DOMAIN, 0, 0), args.repeat)
    matrices = reliability_matrices(coded)

    def package_alone() -> list[float]:
        return [
            krippendorff.alpha(m, level_of_measurement=level, value_domain=DOMAIN)
            for m in matrices
            for level in ("ordinal", "interval")
        ]

    ref, values = timed(package_alone, args.repeat)
    ours_values = dimension_agreement(coded, DOMAIN, 0, 0)
    same = np.allclose(
        values,
        [ours_values[d][f"alpha_{lv}"] for d in DIMENSIONS for lv in ("ordinal", "interval")],
    )
    print(
        f"agreement step (alpha, 4 dims x ordinal+interval): {min(ours):.3f} s; "
        f"krippendorff.alpha alone on reliability matrices: {min(ref):.3f} s; "
        f"ratio {min(ours) / min(ref):.2f} (same values: {same})"
    )

    means = pair_means(coded)
    margins = dict.fromkeys(DIMENSIONS, 0.5)
    diffs = RatingDiffs(coded)
    steps = {
        "validate": lambda: validate_ratings(df),
        "encode": lambda: encode_ratings(df),
        "pair means": lambda: pair_means(coded),
        "paired tests (crossed)": lambda: compare_dimensions(diffs, means, margins, 0.05, margins),
        "alpha per dimension": lambda: dimension_agreement(coded, DOMAIN, 0, 0),
        f"alpha bootstrap x{args.n_boot}": lambda: dimension_agreement(
            coded, DOMAIN, args.n_boot, 0
        ),
        "rubric preference alpha": lambda: preference_agreement(coded, 0, 0),
        "annotator pairs": lambda: annotator_agreement(coded, 1, 5),
        "annotator behaviour": lambda: annotator_behaviour(coded, 1, 5),
        "position bias": lambda: position_bias(coded),
        "by domain": lambda: by_domain(coded, diffs, means, margins, margins, 0.05, True),
        "mixed model": lambda: mixed_model(coded, report["dimensions"], 0.05),
        "render md": lambda: render_report(report, "md"),
        "render html": lambda: render_report(report, "html"),
    }
    print(f"steps (best of {args.repeat}):")
    for name, fn in steps.items():
        times, _ = timed(fn, args.repeat)
        print(f"  {name:<28} {min(times):7.3f} s")


if __name__ == "__main__":
    main()
