"""Benchmark of the aspect checklist's figures (issue 14, item 1) at the benchmark's size.

Data: ``simulate_ratings`` with 2,830 pairs x ``--per-pair`` annotators (pool ``--pool``), and
the aspect table such a study exports: 5 rubric aspects per pair (the benchmark's typical count),
each response's coverage drawn 0/1/2 with chances (.1, .3, .6) for chosen and (.6, .3, .1) for
rejected, plus one LLM judge's scores per pair, response and aspect. Prints the time of
``aspect_summary`` (best and median of ``--repeat`` runs) beside the report itself for scale.

Run: ``python benchmarks/bench_aspects.py [--pairs N] [--per-pair K] [--pool P]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.designs.aspects import aspect_summary
from analysis.report import build_report
from analysis.simulate import simulate_ratings

ASPECTS = 5
CHANCES = {"chosen": (0.1, 0.3, 0.6), "rejected": (0.6, 0.3, 0.1)}


def aspect_tables(ratings: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(3)
    keys = ratings[["pair_id", "annotator"]].drop_duplicates()
    parts = []
    for response, chances in CHANCES.items():
        for index in range(ASPECTS):
            part = keys.copy()
            part["response"], part["aspect_index"] = response, index
            part["coverage"] = rng.choice(3, size=len(part), p=chances)
            parts.append(part)
    marks = pd.concat(parts, ignore_index=True)
    marks["aspect"] = "aspect " + marks["aspect_index"].astype(str)
    judge = marks.drop_duplicates(["pair_id", "response", "aspect_index"]).copy()
    judge["judge"] = "judge"
    return marks, judge


def timed(work, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2830)
    parser.add_argument("--per-pair", type=int, default=3)
    parser.add_argument("--pool", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    ratings = simulate_ratings(args.pairs, args.per_pair, seed=1, n_annotators=args.pool)
    marks, judge = aspect_tables(ratings)
    print(f"{len(ratings):,} score rows, {len(marks):,} aspect marks, {len(judge):,} judge scores")
    best, median = timed(lambda: aspect_summary(marks, ratings, judge), args.repeat)
    print(f"aspect_summary: best {best:.2f} s, median {median:.2f} s")
    best, median = timed(lambda: build_report(ratings, n_boot=0), 1)
    print(f"build_report (for scale, no bootstrap): {best:.2f} s")


if __name__ == "__main__":
    main()
