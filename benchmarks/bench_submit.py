"""Server-side time from a submit to the next pair rendered, on a full-size database.

The database holds the whole benchmark (2,830 synthetic pairs in the benchmark's format and
shape, 120-post profiles) and 1,000,000 stored scores: 45 annotators, each with all 2,830 pairs
in a shuffled, blinded queue, and 125,000 of those assignments rated (8 scores each). The last
annotator is the one measured; the first 480 pairs of their queue are rated already.

Two figures:

* **page**: an AppTest run of the real entry script after setting the 8 radios and clicking
  submit. The run does what the server does for that click: identify the account, read the
  queue, save the rating (submit_rating, one transaction), and render the next pair.
* **data**: the data path alone: submit_rating + queue + pair_view.

Run:  python benchmarks/bench_submit.py [--db PATH] [--submits 100]
A --db that already holds the benchmark data is reused (building takes about a minute).
Target: page p95 < 150 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from figures import distribution
from sqlalchemy import func, insert
from sqlalchemy.engine import Engine
from sqlmodel import select

from annotate.cli.server import APP_ENTRY
from annotate.config import DATABASE_ENV
from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Annotator, Assignment, Pair, Rating
from annotate.domain.assignment.blinding import chosen_side, shuffled
from annotate.domain.dataset.synthetic import write_synthetic_benchmark
from annotate.domain.rating.queue import pair_view, queue
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study
from annotate.services.admin.data import import_files
from annotate.services.participant.rating import submit_rating
from annotate.vocabulary import DIMENSIONS, SIDES

STUDY = "bench"
SEED = 2026
ANNOTATORS = 45
RATED_ASSIGNMENTS = 125_000  # x 8 scores = 1,000,000
MEASURED = f"annotator-{ANNOTATORS - 1:02d}"
TARGET_P95_MS = 150.0
CHUNK = 50_000

SCORES = {
    "A": {"factuality": 4, "relevance": 4, "helpfulness": 3, "rubric_alignment": 5},
    "B": {"factuality": 4, "relevance": 3, "helpfulness": 3, "rubric_alignment": 2},
}


def log(message: str) -> None:
    print(message, flush=True)


# ------------------------------------------------------------------------ building the data


def build(engine: Engine, work: Path) -> dict[str, str]:
    """Import the benchmark, create the annotators and bulk-insert assignments and ratings."""
    started = time.perf_counter()
    files = write_synthetic_benchmark(work / "benchmark", seed=SEED)
    with write_session(engine) as session:
        get_or_create_study(session, STUDY, seed=SEED)
    summary = import_files(engine, SYSTEM, files, study=STUDY)
    added = sum(f.added for f in summary.files)
    log(f"imported {added:,} pairs in {time.perf_counter() - started:.1f} s")

    tokens: dict[str, str] = {}
    with write_session(engine) as session:
        study = get_or_create_study(session, STUDY)
        study_id = int(study.id)  # type: ignore[arg-type]
        for number in range(ANNOTATORS):
            account, token = accounts.create_account(session, f"annotator-{number:02d}")
            tokens[account.name] = token
    with read_session(engine) as session:
        pairs = dict(
            session.exec(select(Pair.record_id, Pair.id).where(Pair.study_id == study_id)).all()
        )
        annotators = dict(session.exec(select(Annotator.name, Annotator.id)).all())

    now = datetime.now(UTC)
    # Full rows from the models' own defaults, so columns added later are filled in too.
    assignment_template = Assignment(
        study_id=study_id, annotator_id=0, pair_id=0, position=0, chosen_side="A"
    ).model_dump(exclude={"id"})
    rating_template = Rating(
        assignment_id=0, response="chosen", dimension="factuality", score=3, seconds=20.0
    ).model_dump(exclude={"id"})

    started = time.perf_counter()
    rows = []
    rated_left = RATED_ASSIGNMENTS
    for name in sorted(annotators):
        for position, record_id in enumerate(shuffled(SEED, name, list(pairs))):
            done = rated_left > 0 and (name != MEASURED or position < 480)
            rated_left -= done
            rows.append(
                assignment_template
                | {
                    "annotator_id": annotators[name],
                    "pair_id": pairs[record_id],
                    "position": position,
                    "chosen_side": chosen_side(SEED, name, record_id),
                    "status": "done" if done else "pending",
                    "completed_at": now if done else None,
                    "created_at": now,
                }
            )
    assert rated_left == 0, "not enough assignments for the ratings"
    with engine.begin() as connection:
        for start in range(0, len(rows), CHUNK):
            connection.execute(insert(Assignment), rows[start : start + CHUNK])
    log(f"inserted {len(rows):,} assignments in {time.perf_counter() - started:.1f} s")

    started = time.perf_counter()
    with read_session(engine) as session:
        done_ids = session.exec(select(Assignment.id).where(Assignment.status == "done")).all()
    responses = ("chosen", "rejected")
    ratings = 0
    with engine.begin() as connection:
        batch = []
        for index, assignment_id in enumerate(done_ids):
            for response in responses:
                for dim_number, dim in enumerate(DIMENSIONS):
                    batch.append(
                        rating_template
                        | {
                            "assignment_id": assignment_id,
                            "response": response,
                            "dimension": dim,
                            "score": 1 + (index + dim_number) % 5,
                            "created_at": now,
                            "updated_at": now,
                        }
                    )
            if len(batch) >= CHUNK:
                connection.execute(insert(Rating), batch)
                ratings += len(batch)
                batch = []
        if batch:
            connection.execute(insert(Rating), batch)
            ratings += len(batch)
    log(f"inserted {ratings:,} ratings in {time.perf_counter() - started:.1f} s")
    with engine.connect() as connection:
        connection.exec_driver_sql("ANALYZE")
    return tokens


def counts(engine: Engine) -> tuple[int, int, int]:
    with read_session(engine) as session:
        return (
            session.exec(select(func.count()).select_from(Pair)).one(),
            session.exec(select(func.count()).select_from(Assignment)).one(),
            session.exec(select(func.count()).select_from(Rating)).one(),
        )


def measured_annotator(engine: Engine) -> tuple[int, str]:
    """The measured annotator's id and a fresh token (tokens are stored only as hashes)."""
    with write_session(engine) as session:
        token = accounts.rotate_token(session, MEASURED)
        account = accounts.get_account(session, MEASURED)
        return int(account.id), token  # type: ignore[arg-type]


# ------------------------------------------------------------------------ measuring


def summary(label: str, times_ms: list[float]) -> dict[str, float]:
    figures = {**distribution(times_ms), "mean": statistics.fmean(times_ms)}
    log(
        f"{label:<44} n={figures['n']:<4} p50={figures['p50']:7.1f} ms  "
        f"p95={figures['p95']:7.1f} ms  max={figures['max']:7.1f} ms"
    )
    return figures


def _current(at) -> int:  # type: ignore[no-untyped-def]
    """The pair on the page: its hidden token (its fields' keys end with `_p<pair>`)."""
    tokens = [t.value for t in at.text_input if t.key == "pair_token"]
    assert len(tokens) == 1, tokens
    return int(tokens[0])


def measure_page(db_url: str, token: str, submits: int, warmup: int = 5) -> list[float]:
    """AppTest runs: 8 radios set, submit clicked, run = save + render the next pair."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from annotate.app.participant.score_widgets import field_key
    from support.appserver import ensure_session_secret

    os.environ[DATABASE_ENV] = db_url
    ensure_session_secret()  # the app's session values need one
    st.cache_resource.clear()
    at = AppTest.from_file(str(APP_ENTRY), default_timeout=120)
    at.query_params["token"] = token
    at.run()
    times = []
    for number in range(warmup + submits):
        assignment_id = _current(at)
        for side in SIDES:
            for dim in DIMENSIONS:
                key = field_key(f"{dim}_{side}", assignment_id)
                at.radio(key=key).set_value(SCORES[side][dim])
        button = next(b for b in at.button if getattr(b, "form_id", "") == "pair")
        button.click()
        started = time.perf_counter()
        at.run()
        elapsed = (time.perf_counter() - started) * 1000
        assert not at.exception, [e.value for e in at.exception]
        assert not at.error, [e.value for e in at.error]
        assert _current(at) != assignment_id, "the page did not move on to the next pair"
        if number >= warmup:
            times.append(elapsed)
    st.cache_resource.clear()
    return times


def measure_data(engine: Engine, annotator_id: int, submits: int) -> dict[str, list[float]]:
    """The data path alone, on the next `submits` open pairs."""
    with read_session(engine) as session:
        open_ids = [e.assignment_id for e in queue(session, annotator_id) if e.status == "pending"]
    times: dict[str, list[float]] = {"submit_rating": [], "queue + pair_view": [], "total": []}
    for assignment_id in open_ids[:submits]:
        started = time.perf_counter()
        submit_rating(
            engine,
            annotator_id=annotator_id,
            assignment_id=assignment_id,
            scores=SCORES,
            seconds=12.0,
        )
        saved = time.perf_counter()
        with read_session(engine) as session:
            entries = queue(session, annotator_id)
            following = next(e for e in entries if e.status == "pending")
            pair_view(session, annotator_id, following.assignment_id)
        done = time.perf_counter()
        times["submit_rating"].append((saved - started) * 1000)
        times["queue + pair_view"].append((done - saved) * 1000)
        times["total"].append((done - started) * 1000)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="SQLite file (built if missing or empty)")
    parser.add_argument("--submits", type=int, default=100)
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="prb-bench-"))
    db = args.db or work / "bench.db"
    engine = make_engine(str(db))
    if counts(engine)[2] < 1_000_000:
        if counts(engine)[0]:
            sys.exit(f"{db} holds other data; give a new --db")
        started = time.perf_counter()
        build(engine, work)
        log(f"built the database in {time.perf_counter() - started:.1f} s: {db}")
    pairs, assignments, ratings = counts(engine)
    log(f"database: {pairs:,} pairs, {assignments:,} assignments, {ratings:,} scores")

    annotator_id, token = measured_annotator(engine)
    with read_session(engine) as session:
        entries = queue(session, annotator_id)
    left = sum(e.status == "pending" for e in entries)
    needed = args.submits * 2 + 10
    if left < needed:
        sys.exit(f"only {left} open pairs left for {MEASURED}; rebuild the database")
    log(f"measured annotator: {MEASURED}, queue of {len(entries):,}, {left:,} open\n")

    page = measure_page(f"sqlite:///{Path(db).resolve()}", token, args.submits)
    data = measure_data(engine, annotator_id, args.submits)
    log("")
    figures = summary("page: submit -> next pair rendered (AppTest)", page)
    for label, times in data.items():
        summary(f"data: {label}", times)
    verdict = "meets" if figures["p95"] < TARGET_P95_MS else "MISSES"
    log(f"\npage p95 {figures['p95']:.1f} ms {verdict} the target of {TARGET_P95_MS:.0f} ms")
    engine.dispose()
    return 0 if figures["p95"] < TARGET_P95_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
