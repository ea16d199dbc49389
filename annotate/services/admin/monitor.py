"""A study watched while it runs (issue 34 items 4 and 5): the Monitor page and `prb-annotate
monitor` show what `monitor` returns, read from the database at each call (with several app
servers no server's memory is the truth).

The figures: throughput, median time per pair, agreement so far on the rubric's chosen -
rejected difference, instructed-response check failures, speeders and straight-liners (signals,
acted on only through the pre-registered exclusion rules), cost so far and projected, the time
to the planned size, and the verdict at the current look of the study's group-sequential plan
(the report's own look: `annotate.services.results.reporting`). Without such a plan no verdict is
shown: an interim verdict read without one inflates the error.

The agreement and the look come from the report's headline (the crossed model of every
dimension: seconds at a few hundred pairs), so each server process keeps the last one per study
with the database state it was computed from (`ratings_fingerprint`: the scores, exclusions and
plan) and computes it again only when that state has changed; with `report_every` (the page:
a minute) at most that often, and in a thread of its own while the kept one is shown, so the
figures read from the database directly (signals among them) refresh every time without
waiting for it. The time it was computed is shown with it.

Enrolment closes when a monitor (a page open on it, or the command) computes a look that says
stop: with no monitor running, nothing closes it.

When the study asks for it (`Study.close_at_stop`) and the look says stop, `monitor` closes
crowd enrolment in a write transaction of its own, audited as the system actor, and keeps when
and why on the study (shown on the Studies and Monitor pages; new visitors of the link are told
the study is closed).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from analysis.inference.sequential import read_look
from annotate.db import read_session
from annotate.db.tables import Annotator, stored_id, utcnow
from annotate.domain.crowd.checks import check_failures
from annotate.domain.operations import monitor as figures
from annotate.domain.rating.quality import annotator_quality
from annotate.domain.study.permissions import SYSTEM, Actor, require_admin
from annotate.domain.study.studies import get_study
from annotate.services.audited import admin_change
from annotate.services.results.reporting import study_ratings, study_report
from annotate.services.results.study_annotators import study_pseudonyms
from annotate.vocabulary import PERSONAL_DIMENSION

CLOSED_AT_STOP = "enrolment.closed_at_stop"
"""The audit log's action when the plan closed a study's enrolment."""
NO_PLAN = (
    "no group-sequential plan: no verdict is shown while the study runs (a verdict read "
    "before the planned size without such a plan inflates the error); the Results page gives "
    "the interim report, labelled INTERIM"
)


@dataclass(frozen=True)
class AgreementSoFar:
    alpha: float | None  # interval alpha on the rubric's chosen - rejected difference
    pairs: int  # pairs rated by two or more annotators
    words: str


@dataclass(frozen=True)
class Headline:
    """The report's figures the monitor shows, with the database state they were computed from."""

    fingerprint: tuple[Any, ...]
    at: datetime
    agreement: AgreementSoFar
    look: dict[str, Any] | None


_HEADLINES: dict[tuple[str, str], Headline] = {}
_HEADLINES_LOCK = threading.Lock()
_REFRESHING: dict[tuple[str, str], threading.Thread] = {}


@dataclass(frozen=True)
class MonitorFigures:
    study: str
    at: datetime
    throughput: figures.Throughput
    median_seconds: float | None
    size: figures.PlannedSize
    agreement: AgreementSoFar
    check_failures: dict[str, int]  # pseudonym -> failed instructed-response checks
    signals: list[figures.Signal]
    cost: figures.Cost | None  # None: the study sets no payment rules
    look: dict[str, Any] | None  # the plan's current look (None: no group-sequential plan)
    look_words: str
    report_at: datetime  # when the agreement and the look were computed
    enrolment_open: bool
    close_at_stop: bool
    closed_words: str | None  # why enrolment closed itself (None: it never did)
    closed_now: bool  # this call closed it


def monitor(
    engine: Engine,
    actor: Actor,
    study: str,
    *,
    now: datetime | None = None,
    report_every: float = 0.0,
) -> MonitorFigures:
    """The study's figures now (admin); closes enrolment when the study asks for it and the
    plan's look says stop. `report_every`: seconds a headline computed from other ratings may
    still be shown (0: computed again whenever the ratings changed)."""
    now = now or utcnow()
    with read_session(engine) as session:
        require_admin(session, actor)
        target = get_study(session, study)
        slots = figures.rated_slots(session, target)
        rate = figures.throughput(slots, now)
        median = figures.median_seconds(slots)
        size = figures.planned_size(target, slots, rate)
        names = study_pseudonyms(session, stored_id(target))
        quality = annotator_quality(session, stored_id(target))
        signals = figures.quality_signals(quality, target.exclusion_rules, names, median)
        failures = _named(session, check_failures(session, stored_id(target)), names)
        spent = figures.cost(session, target, size)
        fingerprint = figures.ratings_fingerprint(session, target)
    headline = _headline(engine, study, fingerprint, now, report_every)
    look = headline.look
    closed_now = _close_if_due(engine, study, look, now)
    with read_session(engine) as session:
        target = get_study(session, study)
        enrolment, close_at_stop = target.enrolment_open, target.close_at_stop
        closed = figures.closed_words(target)
    return MonitorFigures(
        study=study,
        at=now,
        throughput=rate,
        median_seconds=median,
        size=size,
        agreement=headline.agreement,
        check_failures=failures,
        signals=signals,
        cost=spent,
        look=look,
        look_words=NO_PLAN if look is None else _look_words(look),
        report_at=headline.at,
        enrolment_open=enrolment,
        close_at_stop=close_at_stop,
        closed_words=closed,
        closed_now=closed_now,
    )


def _named(session: Session, by_id: Mapping[int, int], names: Mapping[str, str]) -> dict[str, int]:
    if not by_id:
        return {}
    accounts = session.exec(
        select(Annotator.id, Annotator.name).where(col(Annotator.id).in_(list(by_id)))
    ).all()
    return {names.get(name, name): by_id[i] for i, name in accounts if i is not None}


def _headline(
    engine: Engine, study: str, fingerprint: tuple[Any, ...], now: datetime, every: float
) -> Headline:
    """The study's last headline in this process when the database has not changed since it
    was computed, or changed less than `every` seconds after; an older one is shown while a
    new one is computed in a thread of its own (the page stays live); with none kept, or
    `every` 0, a new one now."""
    key = (engine.url.render_as_string(hide_password=True), study)
    with _HEADLINES_LOCK:
        kept = _HEADLINES.get(key)
    if kept is not None and kept.fingerprint == fingerprint:
        return kept
    if kept is None or every <= 0:
        return _computed(engine, key, fingerprint, now)
    if now - kept.at >= timedelta(seconds=every):
        _refresh_in_background(engine, key, fingerprint, now)
    return kept


def _computed(
    engine: Engine, key: tuple[str, str], fingerprint: tuple[Any, ...], now: datetime
) -> Headline:
    agreement, look = _agreement_and_look(engine, key[1])
    fresh = Headline(fingerprint, now, agreement, look)
    with _HEADLINES_LOCK:
        _HEADLINES[key] = fresh
    return fresh


def _refresh_in_background(
    engine: Engine, key: tuple[str, str], fingerprint: tuple[Any, ...], now: datetime
) -> None:
    """Compute the headline in a thread unless one is at it already for this study."""
    with _HEADLINES_LOCK:
        running = _REFRESHING.get(key)
        if running is not None and running.is_alive():
            return
        thread = threading.Thread(
            target=_refresh, args=(engine, key, fingerprint, now), daemon=True
        )
        _REFRESHING[key] = thread
    thread.start()


def _refresh(
    engine: Engine, key: tuple[str, str], fingerprint: tuple[Any, ...], now: datetime
) -> None:
    try:
        _computed(engine, key, fingerprint, now)
    except Exception:  # the kept headline stays; the next refresh tries again
        logging.getLogger(__name__).warning("the monitor's headline failed", exc_info=True)


def refreshing(engine: Engine, study: str) -> threading.Thread | None:
    """The thread computing the study's headline in the background, if any (tests join it)."""
    with _HEADLINES_LOCK:
        return _REFRESHING.get((engine.url.render_as_string(hide_password=True), study))


def _agreement_and_look(engine: Engine, study: str) -> tuple[AgreementSoFar, dict[str, Any] | None]:
    """The agreement on the rubric difference and the plan's look, both from the study's
    report (its headline only: no mixed model, no by-domain figures, no bootstrap)."""
    data = study_ratings(engine, study)
    ratings = data.snapshot.primary()
    if ratings.empty or "score" not in ratings or ratings["score"].notna().sum() == 0:
        none = AgreementSoFar(None, 0, "insufficient data: no ratings yet")
        settings = data.settings
        sequential = (settings.plan or {}).get("plan", {}).get("sequential")
        return none, None if not sequential else dict(read_look(sequential, settings.alpha, 0, {}))
    report = study_report(data, mixed=False, domains=False, options=False)
    rubric = report["dimensions"][PERSONAL_DIMENSION]
    multiple = _pairs_rated_twice(ratings)
    plan = report.get("plan")
    found = None if plan is None else plan.get("sequential")
    look = None if found is None else dict(found)
    return _agreement(rubric.get("alpha_difference"), multiple), look


def _pairs_rated_twice(ratings: Any) -> int:
    rated = ratings.dropna(subset=["score"])
    per_pair = rated.drop_duplicates(["pair_id", "annotator"]).groupby("pair_id").size()
    return int((per_pair >= 2).sum())


def _agreement(alpha: float | None, pairs: int) -> AgreementSoFar:
    what = "on the chosen - rejected rubric-alignment difference"
    if alpha is not None:
        return AgreementSoFar(
            alpha,
            pairs,
            f"Krippendorff's alpha {alpha:.2f} {what} ({pairs} pairs rated by two or more)",
        )
    if pairs == 0:
        reason = "no pair is rated by two or more annotators yet"
    else:
        reason = f"no variation in the differences of the {pairs} pair(s) rated by two or more"
    return AgreementSoFar(None, pairs, f"insufficient data for agreement {what}: {reason}")


def _look_words(look: Mapping[str, Any]) -> str:
    words = f"Group-sequential plan, {look['words']}"
    if look.get("look") and look.get("decision") == "continue":
        words += " (an interim look: no verdict until a boundary is crossed or the last look)"
    return words


def _close_if_due(engine: Engine, study: str, look: dict[str, Any] | None, now: datetime) -> bool:
    """Close the study's enrolment when its plan says stop and the study asks for it: one
    write transaction, the condition checked again inside it, audited as the system actor."""
    with read_session(engine) as session:
        if not figures.closing_due(get_study(session, study), look):
            return False
    assert look is not None
    with admin_change(engine, SYSTEM, CLOSED_AT_STOP, study) as change:
        target = change.study
        assert target is not None  # admin_change found the named study
        if not figures.closing_due(target, look):  # another server closed it meanwhile
            change.changed = False
            return False
        change.before = {"enrolment_open": True}
        record = figures.close_enrolment(target, look, now)
        change.session.add(target)
        change.after = {"enrolment_open": False, **record}
        return True


def figure_lines(m: MonitorFigures) -> list[tuple[str, str]]:
    """The figures in words, (label, value), for the command line and the page's summary."""
    rate = m.throughput
    overall = "-" if rate.overall_per_hour is None else f"{rate.overall_per_hour:.1f}"
    median = "-" if m.median_seconds is None else f"{m.median_seconds:.1f} s"
    failures = sum(1 for n in m.check_failures.values() if n >= 1)
    ended = sum(1 for n in m.check_failures.values() if n >= 2)
    signals = "; ".join(f"{s.annotator} {s.kind} ({s.figure})" for s in m.signals) or "none"
    enrolment = "open" if m.enrolment_open else "closed"
    if m.close_at_stop:
        enrolment += ", closes itself when the plan says stop"
    lines = [
        ("pairs rated", f"{rate.rated} pair-ratings"),
        ("throughput", f"{rate.recent_per_hour:.1f} per hour recently, {overall} per hour overall"),
        ("median time per pair", median),
        ("agreement", m.agreement.words),
        ("check failures", f"{failures} participant(s) failed a check, {ended} failed two"),
        ("signals", f"{signals} (acted on only through the pre-registered rules)"),
        ("cost", "cost: not set" if m.cost is None else m.cost.words),
        ("planned size", m.size.words),
        ("sequential plan", m.look_words),
        ("computed at", f"agreement and look {m.report_at.isoformat(timespec='seconds')}"),
        ("enrolment", enrolment),
    ]
    if m.closed_words:
        lines.append(("closed by the plan", m.closed_words))
    return lines
