"""Benchmark of reward models against humans (issue 13) at the benchmark's size.

A synthetic benchmark of 2,830 pairs, rated by 3 simulated annotators each; 10 pointwise models
(made-up outputs in the shape of the benchmark's `evaluation/pointwise.py`: 5,660 records per
model, accuracies 0.60 to 0.78). Prints seconds for:

* importing the 10 models (each one file, one transaction), and re-importing one (unchanged),
* reading the comparison's inputs from the database (ratings export, predictions, comments),
* building the reward-model keys of the report (all 10 models, label audit),
* the whole report with them (no bootstrap), and the label audit table (CSV).

Run: ``python benchmarks/bench_models.py [--pairs N] [--models M]
[--database-url postgresql+psycopg://postgres@127.0.0.1:5432/postgres]`` (default: a
temporary SQLite file; with a PostgreSQL server URL, a fresh database on it, dropped after).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.models.reward_models import reward_models_section
from analysis.report import build_report
from annotate.db import make_engine
from annotate.domain.dataset.synthetic import write_synthetic_benchmark
from annotate.domain.models.synthetic_models import dataset_ids, write_model_outputs
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.data import import_files
from annotate.services.admin.simulated import store_simulated_ratings
from annotate.services.results import reward_models
from benchmarks.scratch_db import add_database_option, run_on_scratch_database

T = TypeVar("T")
STUDY = "bench"


def timed(label: str, fn: Callable[[], T]) -> T:
    start = time.perf_counter()
    result = fn()
    print(f"{label:<58} {time.perf_counter() - start:8.2f} s", flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2830)
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--annotators", type=int, default=3)
    add_database_option(parser)
    run_on_scratch_database(parser.parse_args(), run)


def run(folder: Path, url: str, args: argparse.Namespace) -> None:
    engine = make_engine(url)
    scale = args.pairs / 2830
    files = write_synthetic_benchmark(folder / "data", seed=0, profile_size=5, scale=scale)
    timed("set-up: import pairs", lambda: import_files(engine, SYSTEM, files, study=STUDY))
    timed(
        f"set-up: {args.annotators} simulated annotators rate every pair",
        lambda: store_simulated_ratings(
            engine, STUDY, n_annotators=args.annotators, seed=1, count=True
        ),
    )
    ids = dataset_ids(files)
    outputs = []
    for index in range(args.models):
        path = folder / f"rm{index:02d}.jsonl"
        accuracy = 0.60 + 0.02 * index
        write_model_outputs(ids, path, kind="pointwise", accuracy=accuracy, seed=index)
        outputs.append(path)
    print(f"{len(ids)} pairs, {args.models} pointwise models x {2 * len(ids)} records")

    def import_all() -> None:
        for index, path in enumerate(outputs):
            reward_models.import_model(engine, SYSTEM, [path], study=STUDY, model=f"rm{index:02d}")

    timed(f"import {args.models} models", import_all)
    timed(
        "re-import one model (unchanged)",
        lambda: reward_models.import_model(engine, SYSTEM, [outputs[0]], study=STUDY, model="rm00"),
    )
    inputs = timed(
        "read the inputs (ratings, predictions, comments)",
        lambda: reward_models.model_inputs(engine, SYSTEM, STUDY),
    )
    models, audit = timed(
        "reward-model keys (all models, label audit)",
        lambda: reward_models_section(inputs.ratings, inputs.predictions),
    )
    print(f"  {len(models)} models, {len(audit)} audited pairs")
    timed(
        "whole report with reward models (no bootstrap)",
        lambda: reward_models.with_reward_models(build_report(inputs.ratings, n_boot=0), inputs),
    )
    table = timed("label audit table (CSV)", lambda: reward_models.audit_table(inputs).to_csv())
    print(f"  {len(table):,} characters of CSV")
    engine.dispose()


if __name__ == "__main__":
    main()
