"""Many simulated annotators driving a real app server at once, for load and fault tests.

Each simulated annotator opens the rating page through Streamlit's agent API (`POST
/_stcore/agent/interact`: a real server-side session, the same callbacks a browser triggers),
scores the pair it is shown, submits, and goes on until it has submitted its share. A submit
counts as *acknowledged* only when the page that comes back says the pair was saved, which is
what a person sees before moving on.

The agent API is for testing only: `agent_server` turns it on for a throw-away server on
127.0.0.1, while the production command (`annotate.cli.server.streamlit_command`) leaves it off.

The load driver's servers draw the pair with Streamlit's widgets (`AGENT_ENVIRONMENT`:
$PRB_RATING_VIEW=streamlit, the fallback view), not with the default pair component: the agent
API sets widgets' values and presses buttons, but it cannot fire a v2 component's event (that
comes from the component's script in a browser). What the load and fault runs prove does not
depend on the view: the server under many simultaneous sessions, each submit going through the
same service (`annotate.services.participant.rating.submit_rating`) in one transaction, nothing
acknowledged lost or doubled after a SIGKILL, the resume point after a reconnect to another
server. What they do not measure is the component's own cost in a browser: that is
`benchmarks/bench_browser.py` (K simultaneous headless Chromiums) and the component's browser
tests (`tests/deploy/test_outbox_through_balancer.py` for a killed server behind the balancer).

Used by `benchmarks/bench_load.py` (50 annotators x 20 pairs, with or without a SIGKILL in the
middle) and `tests/system/test_faults.py`.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import select

from annotate.app.participant.rate import PAIR_TOKEN, score_key
from annotate.app.participant.score_widgets import field_key
from annotate.config import RATING_VIEW_ENV
from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, Rating
from annotate.domain.assignment import plan_fixed, study_pairs
from annotate.domain.dataset.synthetic import synthetic_records
from annotate.domain.rating.queue import next_open, queue
from annotate.domain.study import accounts, studies
from annotate.domain.study.permissions import SYSTEM
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE
from annotate.services.admin.data import import_files
from annotate.vocabulary import SIDES
from support.appserver import AppServer

LOAD_STUDY = "load"
SUBMIT_KEY = "submit"  # the rating form's button; its score widgets have keys of their own per pair


def score_keys(assignment_id: int) -> set[str]:
    """The score widgets' keys on one pair (`annotate.app.participant.score_widgets.field_key`)."""
    keys = DEFAULT_QUESTIONNAIRE.keys  # the load study asks the default questionnaire
    return {field_key(score_key(dim, side), assignment_id) for dim in keys for side in SIDES}


SAVED_WORD = "saved."
DONE_TITLE = "All done, thank you!"
RATINGS_PER_PAIR = len(DEFAULT_QUESTIONNAIRE.keys) * len(SIDES)


BALANCER_UNAVAILABLE = (502, 503, 504)  # what a load balancer answers when its server died


class ServerUnavailable(ConnectionError):
    """The app server did not answer (it is down, or was killed)."""


# ------------------------------------------------------------------ the study under load


@dataclass(frozen=True)
class LoadStudy:
    study_id: int
    tokens: dict[str, str]  # account name -> token
    pairs_each: int


def prepare_load_study(
    engine: Engine,
    folder: Path,
    *,
    annotators: int,
    pairs_each: int,
    overlap: int = 5,
    profile_size: int = 40,
) -> LoadStudy:
    """A study whose `annotators` accounts have exactly `pairs_each` pairs each.

    The pairs are synthetic records of realistic length; each is planned for `overlap` people.
    """
    if (annotators * pairs_each) % overlap:
        raise ValueError("annotators x pairs_each must be a multiple of overlap")
    n_pairs = annotators * pairs_each // overlap
    path = folder / "Load_test.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for record in synthetic_records(n_pairs, seed=7, profile_size=profile_size):
            handle.write(json.dumps(record) + "\n")
    import_files(engine, SYSTEM, [path], study=LOAD_STUDY)
    with write_session(engine) as session:
        study = studies.get_study(session, LOAD_STUDY)
        made = [accounts.create_account(session, f"load-{i:03d}") for i in range(annotators)]
        people = [account for account, _ in made]
        plan_fixed(session, study, people, study_pairs(session, study), per_pair=overlap)
        tokens = {account.name: token for account, token in made}
    return LoadStudy(study.id, tokens, pairs_each)  # type: ignore[arg-type]


# ------------------------------------------------------------------ the app server

# Testing only: a throw-away server on 127.0.0.1 with the agent API on, waiting up to two
# minutes for a run to finish under heavy load.
AGENT_API_FLAGS = (
    "--server.enableAgentApi",
    "true",
    "--server.agentWaitTimeout",
    "120",
    "--server.agentMaxSessions",  # one per simulated annotator; Streamlit allows 100
    "2000",
)


AGENT_ENVIRONMENT = {RATING_VIEW_ENV: "streamlit"}
"""The load driver's servers' rating view: the one the agent API can drive (module docstring)."""


def agent_server(db: str, log_path: Path) -> AppServer:
    """The production server command plus the agent API, on a free port (not started)."""
    return AppServer(db, log_path, extra_flags=AGENT_API_FLAGS, environment=AGENT_ENVIRONMENT)


# ------------------------------------------------------------------ one agent session


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


@dataclass
class Page:
    """What the server sent back for one interaction."""

    snapshot: dict[str, Any]

    @property
    def action_keys(self) -> list[str]:
        return [action["key"] for action in self.snapshot.get("actions", [])]

    @property
    def assignment_id(self) -> int | None:
        """The assignment whose rating form is on the page, if any (its hidden token)."""
        for node in _walk(self.snapshot.get("tree", [])):
            if node.get("key") == PAIR_TOKEN and node.get("value"):
                return int(node["value"])
        return None

    def texts(self, element_type: str) -> list[str]:
        return [
            str(node.get("props", {}).get("body", ""))
            for node in _walk(self.snapshot.get("tree", []))
            if node.get("type") == element_type
        ]

    @property
    def all_done(self) -> bool:
        return any(DONE_TITLE in text for text in self.texts("title"))

    @property
    def problems(self) -> list[str]:
        """Errors the page shows, a run that raised, or one that did not finish in time."""
        shown = self.texts("error") + self.texts("exception")
        if self.snapshot.get("status") != "ready":
            shown.append(f"status {self.snapshot.get('status')}: {self.snapshot.get('error')}")
        return shown

    def acknowledged(self) -> bool:
        return any(SAVED_WORD in text for text in self.texts("success"))


class AgentSession:
    """One annotator's session on the server, driven over HTTP.

    It keeps cookies like a browser tab, so behind a load balancer with sticky sessions every
    request of the session reaches the server that holds it.
    """

    def __init__(self, base_url: str, token: str, timeout: float = 180.0) -> None:
        self.url = f"{base_url}/_stcore/agent/interact"
        self.token = token
        self.timeout = timeout
        self.session_id: str | None = None
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))

    def _post(self, body: dict[str, Any]) -> Page:
        request = urllib.request.Request(
            self.url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
        )
        try:
            with self.opener.open(request, timeout=self.timeout) as reply:
                snapshot = json.load(reply)
        except urllib.error.HTTPError as error:
            body = error.read()[:300]
            if error.code in BALANCER_UNAVAILABLE:
                raise ServerUnavailable(f"{error.code} from the load balancer") from error
            if error.code == 404 and b"unknown_session" in body:
                # The server that held this session died; the balancer sent the request to
                # another one. A browser would reconnect and get a new session: so do we.
                raise ServerUnavailable("the session's server is gone") from error
            raise RuntimeError(f"agent API refused: {error.code} {body!r}") from error
        except (OSError, ValueError, http.client.HTTPException) as error:  # down, or cut off
            raise ServerUnavailable(str(error)) from error
        self.session_id = snapshot.get("session_id", self.session_id)
        return Page(snapshot)

    def open(self) -> Page:
        return self._post({"query_params": {"token": [self.token]}})

    def submit_scores(self, page: Page, rng: random.Random) -> Page:
        """Give every score of the pair on `page` (random, 1-5) and submit the form."""
        if page.assignment_id is None:
            raise RuntimeError("no pair on the page")
        wanted = score_keys(page.assignment_id)
        radios = [
            node
            for node in _walk(page.snapshot.get("tree", []))
            if node.get("type") == "radio" and node.get("key") in wanted
        ]
        if len(radios) != RATINGS_PER_PAIR:
            raise RuntimeError(f"expected {RATINGS_PER_PAIR} score widgets, got {len(radios)}")
        widgets = {node["key"]: rng.choice(node["props"]["options"]) for node in radios}
        widgets[PAIR_TOKEN] = str(page.assignment_id)  # as a browser sends it with the form
        return self._post(
            {"session_id": self.session_id, "widget_state": widgets, "trigger": {"key": SUBMIT_KEY}}
        )


# ------------------------------------------------------------------ many annotators at once


@dataclass
class AnnotatorRun:
    name: str
    first_shown: int | None = None  # the assignment shown when the session opened
    acknowledged: list[int] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)  # seconds per acknowledged submit
    errors: list[str] = field(default_factory=list)
    cut_off: bool = False  # the server went away mid-run


def rate_until(
    base_url: str,
    token: str,
    submits: int,
    run: AnnotatorRun,
    start: threading.Barrier | None,
    think_seconds: float = 0.0,
) -> None:
    """Open a session and submit up to `submits` pairs (fewer if the queue ends first), after
    reading each pair for about `think_seconds` (0.5x to 1.5x, at random).

    Fills `run` as it goes, so others can watch the count grow.
    """
    rng = random.Random(run.name)
    session = AgentSession(base_url, token)
    try:
        if start is not None:
            start.wait()
        page = session.open()
        run.first_shown = page.assignment_id
        if page.problems or (page.assignment_id is None and not page.all_done):
            run.errors.append(f"opening: {page.problems or 'no pair and not done'}")
            return
        while len(run.acknowledged) < submits and page.assignment_id is not None:
            shown = page.assignment_id
            time.sleep(think_seconds * rng.uniform(0.5, 1.5))
            started = time.perf_counter()
            page = session.submit_scores(page, rng)
            elapsed = time.perf_counter() - started
            if page.problems or not page.acknowledged():
                run.errors.append(f"pair {shown}: {page.problems or 'no saved notice'}")
                return
            if page.assignment_id is None and not page.all_done:
                run.errors.append(f"after pair {shown}: no next pair and not done")
                return
            run.acknowledged.append(shown)
            run.latencies.append(elapsed)
    except ServerUnavailable:
        run.cut_off = True
    except Exception as error:
        run.errors.append(f"{type(error).__name__}: {error}")


def run_annotators(
    urls: Sequence[str],
    tokens: dict[str, str],
    submits: int,
    *,
    think_seconds: float = 0.0,
    on_progress: Callable[[int], None] | None = None,
) -> list[AnnotatorRun]:
    """All annotators at once, one thread each, released together by a barrier.

    With several server `urls`, annotators are spread over them in turn and each stays on one
    (as a load balancer with sticky sessions does). `on_progress(n)` is called from this thread
    whenever the number n of acknowledged submits grows (the fault test kills a server there).
    """
    names = sorted(tokens)
    runs = [AnnotatorRun(name) for name in names]
    barrier = threading.Barrier(len(names))
    threads = [
        threading.Thread(
            target=rate_until,
            args=(urls[i % len(urls)], tokens[run.name], submits, run, barrier, think_seconds),
            daemon=True,
        )
        for i, run in enumerate(runs)
    ]
    for thread in threads:
        thread.start()
    seen = -1
    while any(thread.is_alive() for thread in threads):
        acknowledged = sum(len(run.acknowledged) for run in runs)
        if on_progress is not None and acknowledged != seen:
            on_progress(acknowledged)
            seen = acknowledged
        time.sleep(0.05)
    return runs


# ------------------------------------------------------------------ what the database holds


@dataclass(frozen=True)
class Integrity:
    done: int  # assignments marked done
    ratings: int
    half_written: list[int]  # assignments with some but not all of their ratings, or rated
    # but not marked done
    missing_acknowledged: list[int]  # acknowledged submits that are not in the database

    @property
    def ok(self) -> bool:
        return not self.half_written and not self.missing_acknowledged


def check_database(engine: Engine, study_id: int, acknowledged: list[int]) -> Integrity:
    """Compare the database with what the annotators were told was saved."""
    with read_session(engine) as session:
        status = dict(
            session.exec(
                select(Assignment.id, Assignment.status).where(Assignment.study_id == study_id)
            ).all()
        )
        counts = dict(
            session.exec(
                select(Rating.assignment_id, func.count())
                .join(Assignment, Assignment.id == Rating.assignment_id)
                .where(Assignment.study_id == study_id)
                .group_by(Rating.assignment_id)
            ).all()
        )
    done = {a for a, s in status.items() if s == "done"}
    half = sorted(
        a for a in set(done) | set(counts) if counts.get(a, 0) != RATINGS_PER_PAIR or a not in done
    )
    missing = sorted(a for a in acknowledged if a not in done or a in half)
    return Integrity(len(done), sum(counts.values()), half, missing)


def first_pending(engine: Engine, names: list[str]) -> dict[str, int | None]:
    """Each annotator's first pair still to do: where the rating page should resume."""
    with read_session(engine) as session:
        people = session.exec(select(Annotator).where(Annotator.name.in_(names))).all()  # type: ignore[attr-defined]
        resume = {person.name: next_open(queue(session, person.id)) for person in people}  # type: ignore[arg-type]
    return {name: entry.assignment_id if entry else None for name, entry in resume.items()}


# ------------------------------------------------------------------ a crash in the middle


@dataclass
class CrashRun:
    before: list[AnnotatorRun]  # the runs the SIGKILL cut short
    after: list[AnnotatorRun]  # the same annotators on the restarted server, to the end
    after_crash: Integrity  # the database right after the kill
    final: Integrity  # the database when everyone has finished
    expected_resume: dict[str, int | None]  # each annotator's first pair still to do at the crash
    restart_seconds: float  # 0 behind a balancer: the dead server is not restarted
    killed_at: int | None  # acknowledged submits when the kill came (None: the load ended first)

    @property
    def killed(self) -> bool:
        return self.killed_at is not None

    @property
    def acknowledged(self) -> list[int]:
        return [a for run in self.before + self.after for a in run.acknowledged]

    @property
    def resume_mismatches(self) -> dict[str, tuple[int | None, int | None]]:
        shown = {run.name: run.first_shown for run in self.after}
        return {
            name: (wanted, shown.get(name))
            for name, wanted in self.expected_resume.items()
            if shown.get(name) != wanted
        }


def load_with_crash(
    servers: Sequence[AppServer],
    engine: Engine,
    load: LoadStudy,
    kill_after: int,
    *,
    balancer_url: str | None = None,
) -> CrashRun:
    """Run the load over `servers`, SIGKILL the first after `kill_after` acknowledged submits
    (the others carry on), restart it, and let every annotator open the page again and finish
    their share.

    With `balancer_url`, every annotator goes through the load balancer instead, and the dead
    server stays dead: the annotators it served reopen the page and carry on on another.
    """
    victim = servers[0]
    urls = [balancer_url] if balancer_url else [server.url for server in servers]

    killed_at: list[int] = []

    def kill_when_due(acknowledged: int) -> None:
        if acknowledged >= kill_after and not killed_at:
            victim.kill()
            killed_at.append(acknowledged)

    before = run_annotators(urls, load.tokens, load.pairs_each, on_progress=kill_when_due)
    victim.kill()  # if the load ended before `kill_after`: stopped all the same, not counted
    acknowledged = [a for run in before for a in run.acknowledged]
    after_crash = check_database(engine, load.study_id, acknowledged)
    expected_resume = first_pending(engine, sorted(load.tokens))
    started = time.perf_counter()
    if balancer_url is None:
        victim.start()
    restart_seconds = time.perf_counter() - started
    after = run_annotators(urls, load.tokens, load.pairs_each)
    acknowledged += [a for run in after for a in run.acknowledged]
    final = check_database(engine, load.study_id, acknowledged)
    return CrashRun(
        before,
        after,
        after_crash,
        final,
        expected_resume,
        restart_seconds,
        killed_at[0] if killed_at else None,
    )
