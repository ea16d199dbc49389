"""Load and crash benchmark: many annotators rating at once on a real app server.

    python benchmarks/bench_load.py [--annotators 50] [--pairs 20] [--backend both]
                                    [--think 0 5] [--crash-after 400] [--postgres URL]
                                    [--servers 1] [--balancer]

For each database (a fresh SQLite file; a fresh PostgreSQL database, dropped afterwards) it
starts the real Streamlit server (the production command plus the agent API, on 127.0.0.1, with
the rating page's fallback view, $PRB_RATING_VIEW=streamlit: the agent API cannot fire the
default pair component's event; `support/loadtest.py` says what the figures still show) and
runs these scenarios, each on its own fresh database:

* **load**: every annotator opens the rating page and submits their pairs, all at once, with
  no pause (the server saturated) and with a reading pause of about --think seconds per pair.
  Prints the wall time, submits per second, the submit latency (request sent to the next pair
  received, as the annotator waits for it: p50, p95, max) and the server's memory, and checks
  the guarantee: every acknowledged submit is in the database with all 8 scores, no pair has
  a partial or extra rating, and no annotator saw an error.
* **crash** (skip with --crash-after 0): the same load, but the server is killed with SIGKILL
  after that many acknowledged submits, checked, restarted, and every annotator opens the page
  again. Prints how many submits were acknowledged before the kill, the restart time, whether
  each annotator resumed at their first unrated pair, and the same guarantee at the end.

With `--balancer`, HAProxy (support/cluster.py, the shipped configuration) stands in front of
the `--servers` app servers and every annotator goes through it, with its sticky cookie; the
crash then kills one server for good, and its annotators reopen the page and carry on on the
others. The production topology's figures: `--annotators 500 --pairs 3 --think 45 --servers 3
--balancer --backend postgresql` (a realistic pace: one submit per 22-67 s per annotator), and
`--think 0` with `--servers 1`, `2` and `3` for the saturated throughput.

Exits non-zero if any guarantee fails.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for support/, not shipped

from figures import distribution
from scratch_db import LOCAL_POSTGRES, scratch_database

from annotate.db import make_engine
from support.appserver import AppServer
from support.cluster import Cluster
from support.loadtest import (
    AGENT_API_FLAGS,
    AGENT_ENVIRONMENT,
    AnnotatorRun,
    Integrity,
    agent_server,
    check_database,
    load_with_crash,
    prepare_load_study,
    run_annotators,
)


def _errors(runs: list[AnnotatorRun]) -> list[str]:
    return [f"{run.name}: {error}" for run in runs for error in run.errors]


def _verdict(integrity: Integrity, errors: list[str], expected_done: int) -> list[str]:
    problems = list(errors[:5])
    if integrity.half_written:
        problems.append(f"half-written pairs: {integrity.half_written[:10]}")
    if integrity.missing_acknowledged:
        problems.append(f"acknowledged but missing: {integrity.missing_acknowledged[:10]}")
    if integrity.done != expected_done:
        problems.append(f"{integrity.done} pairs rated, expected {expected_done}")
    return problems


@contextmanager
def running_servers(
    url: str, folder: Path, count: int, name: str, balancer: bool
) -> Iterator[tuple[list[AppServer], list[str]]]:
    """The servers, and the addresses annotators use: each server's own (spread over them in
    turn), or with `balancer` HAProxy's one address in front of them all."""
    if balancer:
        cluster = Cluster(
            url,
            folder / name,
            size=count,
            extra_flags=AGENT_API_FLAGS,
            environment=AGENT_ENVIRONMENT,  # the view the agent API drives (support/loadtest.py)
            agent_api_through_balancer=True,
        )
        (folder / name).mkdir(exist_ok=True)
        try:
            cluster.start()
            yield cluster.servers, [cluster.url]
        finally:
            cluster.stop()
        return
    servers = [agent_server(url, folder / f"{name}-server-{i}.log") for i in range(count)]
    try:
        for server in servers:
            server.start()
        yield servers, [server.url for server in servers]
    finally:
        for server in servers:
            server.stop()


def load_scenario(
    url: str, folder: Path, annotators: int, pairs: int, think: float, servers: int, balancer: bool
) -> list[str]:
    engine = make_engine(url)
    load = prepare_load_study(engine, folder, annotators=annotators, pairs_each=pairs)
    with running_servers(url, folder, servers, "load", balancer) as (running, urls):
        started = time.perf_counter()
        runs = run_annotators(urls, load.tokens, pairs, think_seconds=think)
        wall = time.perf_counter() - started
        memory_mb = sum(server.memory_mb() for server in running)
    acknowledged = [a for run in runs for a in run.acknowledged]
    integrity = check_database(engine, load.study_id, acknowledged)
    figures = distribution([1000 * x for run in runs for x in run.latencies])
    print(
        f"  load (think {think:g} s): {len(acknowledged)} submits acknowledged in {wall:.1f} s "
        f"({len(acknowledged) / wall:.1f}/s); submit p50 {figures['p50']:.0f} ms, "
        f"p95 {figures['p95']:.0f} ms, max {figures['max']:.0f} ms; "
        f"{integrity.ratings} scores stored for {integrity.done} pairs; "
        f"server memory {memory_mb:.0f} MB"
    )
    engine.dispose()
    return _verdict(integrity, _errors(runs), annotators * pairs)


def crash_scenario(
    url: str, folder: Path, annotators: int, pairs: int, after: int, servers: int, balancer: bool
) -> list[str]:
    engine = make_engine(url)
    load = prepare_load_study(engine, folder, annotators=annotators, pairs_each=pairs)
    with running_servers(url, folder, servers, "crash", balancer) as (running, urls):
        crash = load_with_crash(
            running, engine, load, after, balancer_url=urls[0] if balancer else None
        )
    before = sum(len(run.acknowledged) for run in crash.before)
    cut = sum(run.cut_off for run in crash.before)
    print(
        f"  crash: SIGKILL at {crash.killed_at} acknowledged submits ({cut} annotators cut off "
        f"mid-request; {before} acknowledged before the restart); right after: "
        f"{crash.after_crash.done} pairs in the database, "
        f"{len(crash.after_crash.half_written)} half-written, "
        f"{len(crash.after_crash.missing_acknowledged)} acknowledged missing; "
        f"restart {crash.restart_seconds:.1f} s; "
        f"{annotators - len(crash.resume_mismatches)}/{annotators} resumed at their first "
        f"unrated pair; at the end {crash.final.done} pairs, {crash.final.ratings} scores"
    )
    problems = _verdict(crash.final, _errors(crash.before + crash.after), annotators * pairs)
    problems += _verdict(crash.after_crash, [], crash.after_crash.done)
    if not crash.killed:
        problems.append(f"the load ended before {after} acknowledged submits: no crash")
    if crash.resume_mismatches:
        problems.append(f"did not resume where they were: {crash.resume_mismatches}")
    engine.dispose()
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--pairs", type=int, default=20, help="pairs each annotator submits")
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument(
        "--think",
        type=float,
        nargs="+",
        default=[0.0, 5.0],
        help="seconds each annotator reads a pair before submitting (0.5x-1.5x, at random); "
        "one load run per value (0: all submit as fast as they can)",
    )
    parser.add_argument("--crash-after", type=int, default=400, help="0: no crash scenario")
    parser.add_argument(
        "--servers",
        type=int,
        default=1,
        help="app servers on the same database, annotators spread over them (the crash kills "
        "the first one)",
    )
    parser.add_argument(
        "--balancer",
        action="store_true",
        help="HAProxy in front of the servers (support/cluster.py), every annotator through it; "
        "the crash kills one server and is not followed by a restart",
    )
    parser.add_argument("--postgres", default=LOCAL_POSTGRES)
    args = parser.parse_args()
    backends = ("sqlite", "postgresql") if args.backend == "both" else (args.backend,)
    print(
        f"{args.annotators} annotators x {args.pairs} pairs each, all at once, on "
        f"{args.servers} app server(s){' behind HAProxy' if args.balancer else ''}"
    )
    problems: list[str] = []
    for backend in backends:
        print(f"{backend}:")
        with tempfile.TemporaryDirectory() as work:
            for think in args.think:
                with scratch_database(backend, args.postgres) as url:
                    problems += load_scenario(
                        url,
                        Path(work),
                        args.annotators,
                        args.pairs,
                        think,
                        args.servers,
                        args.balancer,
                    )
            if args.crash_after:
                with scratch_database(backend, args.postgres) as url:
                    problems += crash_scenario(
                        url,
                        Path(work),
                        args.annotators,
                        args.pairs,
                        args.crash_after,
                        args.servers,
                        args.balancer,
                    )
    for problem in problems:
        print(f"FAILED: {problem}")
    print("all guarantees held" if not problems else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
