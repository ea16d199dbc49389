"""Benchmark of the study-design figures (issue 14) on about a million score rows.

Data: ``simulate_ratings`` with 2,830 pairs x 44 annotators per pair (pool of 120) x 8 scores =
996,160 rows, plus what a study with the options exports: a ``preference`` per judgement
(-2..2, drawn at random) repeated on its 8 rows, and two survey attributes per annotator
(``survey_age``: 3 answers, ``survey_field``: 40 free-text answers, left out as too many).
Prints the time of ``preference_summary`` and ``by_attribute`` (best and median of
``--repeat`` runs), beside the report itself for scale.

Run: ``python benchmarks/bench_designs.py [--pairs N] [--per-pair K] [--pool P]``.
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

from analysis.designs.attributes import by_attribute
from analysis.designs.preference import preference_summary
from analysis.report import build_report
from analysis.simulate import simulate_ratings


def export_with_options(pairs: int, per_pair: int, pool: int) -> pd.DataFrame:
    frame = simulate_ratings(pairs, per_pair, seed=1, n_annotators=pool)
    rng = np.random.default_rng(2)
    keys = frame[["pair_id", "annotator"]].drop_duplicates()
    keys["preference"] = rng.integers(-2, 3, len(keys))
    frame = frame.merge(keys, on=["pair_id", "annotator"], how="left")
    frame["preference"] = frame["preference"].astype("Int64")
    annotators = frame["annotator"].unique()
    ages = dict(
        zip(annotators, rng.choice(["18-29", "30-49", "50+"], len(annotators)), strict=True)
    )
    fields = {a: f"field {i % 40}" for i, a in enumerate(annotators)}
    frame["survey_age"] = frame["annotator"].map(ages)
    frame["survey_field"] = frame["annotator"].map(fields)
    return frame


def timed(fn, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=2830)
    parser.add_argument("--per-pair", type=int, default=44)
    parser.add_argument("--pool", type=int, default=120)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    frame = export_with_options(args.pairs, args.per_pair, args.pool)
    judgements = len(frame[["pair_id", "annotator"]].drop_duplicates())
    print(f"{len(frame):,} score rows, {judgements:,} judgements")
    for name, fn in (
        ("preference_summary", lambda: preference_summary(frame)),
        ("by_attribute", lambda: by_attribute(frame)),
        ("build_report (no bootstrap, for scale)", lambda: build_report(frame, n_boot=0)),
    ):
        best, median = timed(fn, args.repeat)
        print(f"{name}: best {best:.2f} s, median {median:.2f} s")


if __name__ == "__main__":
    main()
