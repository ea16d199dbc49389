"""Benchmark of the training gate (issue 14, item 3): what it adds to the rating page.

The rating page asks `pending_training` on each full run (not on the pair fragment's reruns
after a submit), and a submit checks `require_trained` in its transaction. Two annotators with
N assignments each: one in a study without training, one in a study with a comprehension check
not yet passed. Prints the mean time of each call over `--repeat` calls ("submit check": a read
session opened for `require_trained`; inside a submit's transaction it adds one primary-key read
of the study, and for a study with training one read of the annotator's training row).

Run: ``python benchmarks/bench_training.py [--assignments N ...] [--backend sqlite|postgresql]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import insert

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import contextlib

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Pair
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.crowd import training
from annotate.domain.study import accounts
from annotate.domain.study.studies import create_study
from annotate.services.participant.training import pending_training
from benchmarks.scratch_db import scratch_database

QUESTION = {"id": "q", "text": "Same response twice?", "options": ["Yes", "No"], "correct": [1]}


def pair(study_id: int, number: int) -> dict[str, object]:
    return {
        "study_id": study_id, "record_id": f"p{number}", "domain": "d", "category": "c",
        "question": "Q?", "narrative": "n", "profile": [], "rubric_aspects": [],
        "chosen": "yes", "rejected": "no", "extra": {}, "content_hash": f"h{number}",
    }  # fmt: skip


def mean_ms(call: Callable[[], object], repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        call()
    return 1000 * (time.perf_counter() - start) / repeat


def run(url: str, n: int, repeat: int) -> None:
    engine = make_engine(url)
    with write_session(engine) as session:
        plain = create_study(session, "plain", seed=1)
        trained = create_study(session, "trained", seed=1, comprehension_questions=[QUESTION])
        for study in (plain, trained):
            session.execute(insert(Pair), [pair(int(study.id or 0), i) for i in range(n)])
        people = []
        for study, name in ((plain, "no training"), (trained, "in training")):
            account, _ = accounts.create_account(session, name.replace(" ", "-"))
            assign_pairs(session, study, account, study_pairs(session, study))
            people.append((name, int(account.id or 0), int(study.id or 0)))
    for name, annotator, study_id in people:
        gate = mean_ms(lambda a=annotator: pending_training(engine, a), repeat)

        def submit_check(a: int = annotator, s: int = study_id) -> None:
            with read_session(engine) as session, contextlib.suppress(training.RatingError):
                training.require_trained(session, a, s)

        check = mean_ms(submit_check, repeat)
        print(
            f"{n:>6} assignments, {name:<11}: page gate {gate:.2f} ms, submit check {check:.2f} ms"
        )
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--assignments", type=int, nargs="+", default=[30, 3000])
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    for n in args.assignments:
        with scratch_database(args.backend) as url:
            run(url, n, args.repeat)


if __name__ == "__main__":
    main()
