"""Open-pool benchmark: many annotators pulling and completing pairs at once.

    python benchmarks/bench_pool.py [--threads 20] [--pairs 300] [--k 3] [--postgres URL]

Each thread is one annotator that pulls a pair (`pull_next`), submits 8 scores (`submit_rating`)
and pulls again until the pool has nothing left for them. Prints, per backend, the wall time,
pulls+submits per second, the median and 95th percentile latency of a pull, and checks the
guarantee: every pair ends with exactly k ratings (never more). SQLite runs on a fresh file;
PostgreSQL (default: the local server) on a fresh database that is dropped afterwards.
"""

from __future__ import annotations

import argparse
import threading
import time
from collections import Counter
from datetime import UTC, datetime

from figures import distribution
from scratch_db import LOCAL_POSTGRES, scratch_database
from sqlalchemy import insert, select
from sqlalchemy.engine import Engine

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Assignment, Pair, Rating
from annotate.domain.study import accounts, studies
from annotate.services.participant.rating import submit_rating
from annotate.services.participant.work import pull_next

SCORES = {
    side: dict.fromkeys(("factuality", "relevance", "helpfulness", "rubric_alignment"), 3)
    for side in ("A", "B")
}


def _setup(engine: Engine, n_pairs: int, k: int, n_people: int) -> tuple[int, list[int]]:
    with write_session(engine) as session:
        study = studies.create_study(session, "bench", seed=1, overlap=k, pool_open=True)
        now = datetime.now(UTC)
        session.execute(
            insert(Pair),
            [
                {
                    "study_id": study.id,
                    "record_id": f"p{i}",
                    "domain": "d",
                    "category": "c",
                    "question": "q",
                    "narrative": "n",
                    "profile": [],
                    "rubric_aspects": [],
                    "chosen": "a",
                    "rejected": "b",
                    "extra": {},
                    "content_hash": str(i),
                    "created_at": now,
                }
                for i in range(n_pairs)
            ],
        )
        people = [accounts.create_account(session, f"w{i}")[0].id for i in range(n_people)]
    return study.id, people  # type: ignore[return-value]


def run(engine: Engine, threads: int, n_pairs: int, k: int) -> dict[str, float]:
    study_id, people = _setup(engine, n_pairs, k, threads)
    pull_times: list[float] = []
    barrier = threading.Barrier(threads)

    def work(person: int) -> None:
        barrier.wait()
        while True:
            started = time.perf_counter()
            pulled = pull_next(engine, person, study_id)
            pull_times.append(time.perf_counter() - started)
            if pulled is None:
                return
            submit_rating(
                engine, annotator_id=person, assignment_id=pulled, scores=SCORES, seconds=1.0
            )

    workers = [threading.Thread(target=work, args=(p,)) for p in people]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    wall = time.perf_counter() - started
    with read_session(engine) as session:
        rows = session.exec(
            select(Assignment.pair_id)
            .join(Rating, Rating.assignment_id == Assignment.id)
            .where(Rating.dimension == "factuality", Rating.response == "chosen")
        ).all()
    per_pair = Counter(rows)
    assert len(per_pair) == n_pairs, per_pair.most_common(3)
    assert set(per_pair.values()) == {k}, per_pair.most_common(3)
    pulls = distribution([1000 * t for t in pull_times])
    return {
        "wall_s": wall,
        "completed": float(sum(per_pair.values())),
        "per_s": sum(per_pair.values()) / wall,
        "pull_median_ms": pulls["p50"],
        "pull_p95_ms": pulls["p95"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=20)
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--postgres", default=LOCAL_POSTGRES)
    args = parser.parse_args()
    results = {}
    for backend in ("sqlite", "postgresql"):
        with scratch_database(backend, args.postgres) as url:
            engine = make_engine(url)
            try:
                results[backend] = run(engine, args.threads, args.pairs, args.k)
            finally:
                engine.dispose()
    print(
        f"{args.threads} threads, {args.pairs} pairs, k={args.k}: every pair rated exactly k times"
    )
    for backend, figures in results.items():
        print(
            f"{backend:10}  {figures['completed']:.0f} pairs rated in {figures['wall_s']:.1f} s "
            f"({figures['per_s']:.0f}/s); pull median {figures['pull_median_ms']:.1f} ms, "
            f"p95 {figures['pull_p95_ms']:.1f} ms"
        )


if __name__ == "__main__":
    main()
