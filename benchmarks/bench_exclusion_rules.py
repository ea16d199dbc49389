"""Benchmark of the exclusion rules' sensitivity table (issue 15 item 4).

Data: ``simulate_ratings`` with ``--pairs`` pairs x ``--per-pair`` annotators per pair (from a
pool of ``--pool``) x 8 scores, and made-up per-annotator facts so that each of the four rules
excludes different annotators (the worst case: every variant is a distinct set, so nothing is
shared). Prints the time of one report without bootstrap (the cost of one variant) and of the
exclusion-rules section on top of the primary report (no rule + each rule alone; "all rules" is
the primary report itself).

Run: ``python benchmarks/bench_exclusion_rules.py [--pairs N] [--per-pair K] [--pool P]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.designs.exclusion_rules import attach_exclusion_rules, primary_ratings
from analysis.report import build_report
from analysis.simulate import simulate_ratings

RULES = {
    "min_gold_accuracy": 0.5,
    "max_gold_failures": 1,
    "max_straightlining_share": 0.5,
    "min_median_seconds": 5,
}


def facts(annotators: list[str]) -> list[dict]:
    """Annotator i fails rule i % 8 when i % 8 < 4 (a distinct set per rule), else passes."""
    out = []
    for i, name in enumerate(annotators):
        fails = i % 8
        out.append(
            {
                "annotator": name,
                "pairs_rated": 100,
                "gold_answered": 10,
                "gold_failed": 2 if fails == 1 else 0,
                "gold_accuracy": 0.3 if fails == 0 else 1.0,
                "straightlining_share": 0.9 if fails == 2 else 0.0,
                "median_seconds": 2.0 if fails == 3 else 30.0,
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=2830)
    parser.add_argument("--per-pair", type=int, default=3)
    parser.add_argument("--pool", type=int, default=30)
    args = parser.parse_args()
    ratings = simulate_ratings(args.pairs, args.per_pair, seed=1, n_annotators=args.pool)
    people = facts(sorted(ratings["annotator"].unique()))
    build = partial(build_report, n_boot=0)
    record = {"rules": RULES, "set_at": None, "history": [], "first_rating_at": None}
    start = time.perf_counter()
    primary = build(primary_ratings(ratings, RULES, people))
    one = time.perf_counter() - start
    start = time.perf_counter()
    variant = partial(build_report, n_boot=0, mixed=False)  # as services.reporting builds them
    report = attach_exclusion_rules(primary, ratings, record, people, variant)
    section = time.perf_counter() - start
    rows = len(ratings)
    variants = len(report["exclusion_rules"]["sensitivity"])
    print(f"{rows:,} score rows, {args.pool} annotators, {variants} variants")
    print(f"one report without bootstrap: {one:.2f} s")
    print(f"exclusion rules section (the variants other than the primary): {section:.2f} s")


if __name__ == "__main__":
    main()
