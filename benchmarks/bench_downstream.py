"""Benchmark of the downstream import and analysis (issue 25) at the benchmark's size.

A synthetic benchmark of 2,830 questions; 3 reward models x 8 k values (1, 2, 4, ..., 128) of
best-of-k outputs in the shape of Personalized-RewardBench's `BoN/score.py`, each with its
judge's eval file in the shape of `BoN/evaluate.py` (1% of the answers an empty list, 1% with a
stray 3). Best-of-k picks, among the first k of 128 shared samples per question, the one a
model's made-up scores rank highest, so best-of-k often keeps best-of-1's sample (identical
outputs), as in the benchmark. Prints seconds and peak memory (Python allocations, tracemalloc;
and the process's maximum resident set) for:

* importing the 24 conditions (each its outputs and eval file, one transaction), and
  re-importing one (unchanged);
* building 3 comparison studies (best-of-128 against best-of-1, one per model);
* the downstream report (gains, judge against humans, scaling curve, the claim with 1,000
  resamples), after 3 simulated annotators rated every pair of the comparisons.

Run: ``python benchmarks/bench_downstream.py [--questions N] [--annotators A] [--n-boot B]
[--database-url postgresql+psycopg://postgres@127.0.0.1:5432/postgres]`` (default: a
temporary SQLite file; with a PostgreSQL server URL, a fresh database on it, dropped after).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotate.db import make_engine
from annotate.domain.dataset.synthetic import write_synthetic_benchmark
from annotate.domain.models.synthetic_models import write_model_outputs
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.data import import_files
from annotate.services.admin.simulated import store_simulated_ratings
from annotate.services.results import downstream, reward_models
from benchmarks.scratch_db import add_database_option, run_on_scratch_database

T = TypeVar("T")
STUDY = "bench"
K_VALUES = (1, 2, 4, 8, 16, 32, 64, 128)
MODELS = ("rm-a", "rm-b", "rm-c")
FILLER = " ".join(["A sentence of a generated answer, about as long as most."] * 10)


def measured(label: str, fn: Callable[[], T]) -> T:
    tracemalloc.start()
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{label:<58} {seconds:8.2f} s  peak {peak:7.1f} MB  (max RSS {rss:6.0f} MB)", flush=True)
    return result


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_conditions(folder: Path, records: list[dict[str, Any]]) -> list[tuple[str, Path, Path]]:
    """The 24 conditions' outputs and eval files: (condition, outputs, eval)."""
    rng = np.random.default_rng(0)
    made = []
    for model in MODELS:
        scores = rng.random((len(records), max(K_VALUES)))  # the model's score of each sample
        for k in K_VALUES:
            best = scores[:, :k].argmax(axis=1)
            outputs, answers = [], []
            for record, pick, row in zip(records, best, scores, strict=True):
                text = f"Sample {pick} for {record['id']}. {FILLER}"
                outputs.append({"id": record["id"], "query": record["question"], "output": text,
                                "aspects": "...", "score": float(row[pick])})  # fmt: skip
                n = len(record["rubric_aspects"])
                points = rng.integers(0, 3, n).astype(float).tolist()
                luck = rng.random()
                if luck < 0.01:
                    points = []
                elif luck < 0.02:
                    points[-1] = 3.0
                average = float(np.mean(points)) if points else 0.0
                answers.append({"id": record["id"], "query": record["question"],
                                "answer": text, "aspects": "...", "scores": points,
                                "average_score": average})  # fmt: skip
            out, judged = folder / f"{model}_k{k}.jsonl", folder / f"{model}_eval_k{k}.jsonl"
            write_jsonl(out, outputs)
            write_jsonl(judged, answers)
            made.append((f"bon:{model}:k{k}", out, judged))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=2830)
    parser.add_argument("--annotators", type=int, default=3)
    parser.add_argument("--n-boot", type=int, default=1000)
    add_database_option(parser)
    run_on_scratch_database(parser.parse_args(), run)


def run(folder: Path, url: str, args: argparse.Namespace) -> None:
    engine = make_engine(url)
    files = write_synthetic_benchmark(
        folder / "data", seed=0, profile_size=5, scale=args.questions / 2830
    )
    import_files(engine, SYSTEM, files, study=STUDY)
    records = [json.loads(line) for path in files for line in path.open(encoding="utf-8")]
    ids = [r["id"] for r in records]
    for index, model in enumerate(MODELS):
        path = folder / f"{model}_benchmark.jsonl"
        write_model_outputs(ids, path, kind="pointwise", accuracy=0.62 + 0.06 * index, seed=index)
        reward_models.import_model(engine, SYSTEM, [path], study=STUDY, model=model)
    (folder / "downstream").mkdir()
    made = write_conditions(folder / "downstream", records)
    size = sum(p.stat().st_size for _, a, b in made for p in (a, b)) / 2**20
    print(f"{len(ids)} questions, {len(made)} conditions, {2 * len(made)} files, {size:.0f} MB")

    def import_all() -> None:
        for name, outputs, judged in made:
            downstream.import_condition(
                engine, SYSTEM, study=STUDY, condition=name, outputs_file=outputs,
                eval_file=judged,
            )  # fmt: skip

    measured(f"import {len(made)} conditions (outputs + eval)", import_all)
    name, outputs, judged = made[-1]
    measured(
        "re-import one condition (unchanged)",
        lambda: downstream.import_condition(
            engine, SYSTEM, study=STUDY, condition=name, outputs_file=outputs, eval_file=judged
        ),
    )

    def compare() -> list[Any]:
        return [
            downstream.create_comparison(
                engine,
                SYSTEM,
                source_study=STUDY,
                name=f"cmp-{model}",
                expected=f"bon:{model}:k128",
                baseline=f"bon:{model}:k1",
                seed=1,
            )
            for model in MODELS
        ]

    summaries = measured("build 3 comparison studies (k128 vs k1)", compare)
    for s in summaries:
        print(f"  {s.study}: {s.n_pairs} pairs, {s.n_identical} identical")
    start = time.perf_counter()
    for model, effect in zip(MODELS, (0.9, 0.5, 0.2), strict=True):
        store_simulated_ratings(
            engine, f"cmp-{model}", n_annotators=args.annotators,
            effects={"rubric_alignment": effect}, seed=2,
        )  # fmt: skip
    print(f"set-up: {args.annotators} simulated annotators rate the comparisons: "
          f"{time.perf_counter() - start:.1f} s")  # fmt: skip
    report = measured(
        f"downstream report ({args.n_boot} resamples)",
        lambda: downstream.downstream_report(engine, SYSTEM, STUDY, n_boot=args.n_boot),
    )
    assert report is not None
    print(f"  {report['claim']['sentence'] if report['claim'] else 'no claim'}")
    engine.dispose()


if __name__ == "__main__":
    main()
