"""Coverage of the 95% bootstrap interval of Krippendorff's alpha, by seeded simulation.

Each replicate simulates a study (``simulate_ratings``: pair effects, annotator biases drawn
afresh, so both pairs and coders are samples of a population), computes the interval of the
rubric-alignment alpha (ordinal and interval levels, units (pair, response)) and checks whether
it covers the population alpha. The population alpha is estimated once from a very large
study (many pairs, a large pool of annotators, same model), averaged over a few seeds.

Designs compared (see ``analysis.core.alpha.bootstrap_alpha``): pairs only (both units of a
pair together), pairs and coders resampled independently, and the combined variance estimate
(pairs + coders - pair-ratings) used by the report. Prints the coverage of each with its
Monte Carlo standard error, the mean width, and the time per interval. Target: nominal 95%
covers 0.93-0.97.

Run: ``python benchmarks/bench_alpha_coverage.py [--replicates 200] [--pairs 100]
[--per-pair 3] [--pool 8] [--n-boot 500]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.core.alpha import alpha, bootstrap_alpha, codings, value_counts
from analysis.core.coded import encode_ratings
from analysis.simulate import simulate_ratings
from annotate.vocabulary import DIMENSIONS, PERSONAL_DIMENSION

DOMAIN = [1, 2, 3, 4, 5]
LEVELS = ("ordinal", "interval")
EFFECTS = {"rubric_alignment": 1.0}


BIAS_SD = [0.3]


def rubric_codings(n_pairs: int, per_pair: int, pool: int, seed: int):
    ratings = simulate_ratings(
        n_pairs, per_pair, EFFECTS, seed=seed, n_annotators=pool, annotator_bias_sd=BIAS_SD[0]
    )
    coded = encode_ratings(ratings)
    rows = coded.dimension == DIMENSIONS.index(PERSONAL_DIMENSION)
    units = coded.pair[rows] * 2 + coded.response[rows]
    return codings(units, coded.annotator[rows], coded.score[rows], DOMAIN, coded.pair[rows])


def point(data) -> dict[str, float | None]:
    counts = value_counts(data.unit, np.asarray(DOMAIN)[data.value], DOMAIN)
    return {level: alpha(counts, DOMAIN, level) for level in LEVELS}


def population_alpha(per_pair: int) -> dict[str, float]:
    values = [point(rubric_codings(20_000, per_pair, 2_000, 10_000 + s)) for s in range(3)]
    return {level: float(np.mean([v[level] for v in values])) for level in LEVELS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--per-pair", type=int, default=3)
    parser.add_argument("--pool", type=int, default=8)
    parser.add_argument("--n-boot", type=int, default=500)
    parser.add_argument("--bias-sd", type=float, default=0.3, help="annotator bias SD")
    args = parser.parse_args()
    BIAS_SD[0] = args.bias_sd
    truth = population_alpha(args.per_pair)
    print(f"population alpha (rubric): {truth}")
    designs = {"pairs only": "pairs", "pairs + coders": "pairs+coders", "combined": "combined"}
    hits = {(d, lv): 0 for d in designs for lv in LEVELS}
    widths = {(d, lv): [] for d in designs for lv in LEVELS}
    seconds = dict.fromkeys(designs, 0.0)
    for r in range(args.replicates):
        data = rubric_codings(args.pairs, args.per_pair, args.pool, r)
        for name, design in designs.items():
            start = time.perf_counter()
            cis = bootstrap_alpha(
                data, DOMAIN, LEVELS, args.n_boot, np.random.default_rng([r, 1]), design
            )
            seconds[name] += time.perf_counter() - start
            for level in LEVELS:
                low, high = cis[level]
                hits[(name, level)] += low <= truth[level] <= high
                widths[(name, level)].append(high - low)
    n = args.replicates
    print(
        f"{n} replicates, {args.pairs} pairs x {args.per_pair} annotators from a pool of "
        f"{args.pool}, annotator bias SD {args.bias_sd}, {args.n_boot} resamples"
    )
    for (name, level), count in hits.items():
        cover = count / n
        se = np.sqrt(cover * (1 - cover) / n)
        print(
            f"{name:15s} {level:9s} coverage {cover:.3f} (MC SE {se:.3f}), mean width "
            f"{np.mean(widths[(name, level)]):.3f}"
        )
    for name, total in seconds.items():
        print(f"{name:15s} {1000 * total / n:.1f} ms per interval (both levels)")


if __name__ == "__main__":
    main()
