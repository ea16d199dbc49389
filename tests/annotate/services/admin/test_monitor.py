"""The monitor (issue 34 items 4 and 5): a running study's figures equal counts made from the
database; the group-sequential plan's look is read as the report reads it, stops on a strong
effect (at the first look, or at the second), and a study that asks for it closes its crowd
enrolment then, audited as the system actor, saying why on the Studies and Monitor pages and to
new visitors of the link. On SQLite and PostgreSQL (the `engine` fixture); the Monitor page
through AppTest."""

from __future__ import annotations

import statistics
from datetime import timedelta

import pytest
from sqlalchemy import func, insert, update
from sqlmodel import col, select

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, AuditEntry, Pair, Rating, Study, utcnow
from annotate.domain.crowd.enrolment import CLOSED, EnrolmentError
from annotate.domain.rating.quality import mark_gold
from annotate.domain.study.audit import SYSTEM_NAME
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import StudyError, get_study
from annotate.services.admin import studies
from annotate.services.admin.monitor import (
    CLOSED_AT_STOP,
    NO_PLAN,
    figure_lines,
    monitor,
    refreshing,
)
from annotate.services.admin.simulated import simulated_names, store_simulated_ratings
from annotate.services.participant import enrolment
from annotate.services.results.reporting import study_ratings, study_report
from annotate.vocabulary import AssignmentStatus
from tests.helpers.admin_helpers import make_study, pair_row

STRONG = {"rubric_alignment": 2.0}


def _spread_finishes(engine, now) -> None:
    """Finish times 7 minutes apart going back from `now` (the simulated ones are all `now`)."""
    with write_session(engine) as session:
        ids = session.exec(select(Assignment.id).order_by(col(Assignment.id))).all()
        for i, assignment_id in enumerate(ids):
            session.execute(
                update(Assignment)
                .where(col(Assignment.id) == assignment_id)
                .values(completed_at=now - timedelta(minutes=7 * i))
            )


def _slow_down_but_one(engine, fast: str) -> None:
    """Every pair-rating takes 60 s, but the annotator `fast`'s take 3 s."""
    with write_session(engine) as session:
        session.execute(update(Rating).values(seconds=60.0))
        mine = (
            select(Assignment.id)
            .join(Annotator, col(Annotator.id) == col(Assignment.annotator_id))
            .where(col(Annotator.name) == fast)
        )
        session.execute(
            update(Rating).where(col(Rating.assignment_id).in_(mine)).values(seconds=3.0)
        )


def test_the_figures_equal_counts_from_the_database(engine) -> None:
    make_study(engine, "s", pairs=20, overlap=3, planned_pairs=40)
    with write_session(engine) as session:
        mark_gold(session, get_study(session, "s"), ["p000", "p001"], "chosen")
    store_simulated_ratings(engine, "s", n_annotators=3, seed=3, count=True)
    now = utcnow()
    _spread_finishes(engine, now)
    fast = simulated_names(3)[0]
    _slow_down_but_one(engine, fast)

    figures = monitor(engine, SYSTEM, "s", now=now)

    with read_session(engine) as session:
        counted = (
            select(Assignment.id, Assignment.completed_at, func.max(Rating.seconds))
            .join(Pair, col(Pair.id) == col(Assignment.pair_id))
            .join(Rating, col(Rating.assignment_id) == col(Assignment.id))
            .where(
                col(Assignment.status) == AssignmentStatus.DONE,
                col(Pair.gold_preference).is_(None),
            )
            .group_by(col(Assignment.id), col(Assignment.completed_at))
        )
        rows = session.exec(counted).all()
    assert figures.throughput.rated == len(rows) == 18 * 3
    recent = [r for r in rows if now - timedelta(hours=1) < _utc(r[1])]
    assert figures.throughput.recent == len(recent) > 0  # finished 0, 7, ..., 56 minutes ago
    assert figures.throughput.recent_per_hour == pytest.approx(len(recent))
    oldest = max(now - _utc(r[1]) for r in rows).total_seconds() / 3600
    assert figures.throughput.overall_per_hour == pytest.approx(len(rows) / oldest)
    assert figures.median_seconds == statistics.median(r[2] for r in rows) == 60.0
    assert figures.size.target == 40 * 3
    assert figures.size.done == 54
    assert figures.size.hours_left == pytest.approx((120 - 54) / len(recent))
    assert "66 pair-ratings to the planned size (40 planned pairs x k = 3)" in figures.size.words
    report = study_report(study_ratings(engine, "s"), mixed=False, domains=False)
    alpha = report["dimensions"]["rubric_alignment"]["alpha_difference"]
    assert figures.agreement.alpha == pytest.approx(alpha)
    assert figures.agreement.pairs == 18  # the analysis leaves gold pairs out
    # the speeder is a signal with no rule behind it, named by their pseudonym, never excluded
    (signal,) = figures.signals
    assert (signal.kind, signal.rule, signal.figure) == ("speeder", None, "median 3.0 s per pair")
    assert signal.annotator == fast  # simulated accounts keep their names as pseudonyms
    assert figures.cost is None
    assert figures.check_failures == {}
    lines = dict(figure_lines(figures))
    assert lines["cost"] == "cost: not set"
    assert lines["sequential plan"] == NO_PLAN


def _utc(moment):
    from annotate.domain.assignment import as_utc

    return as_utc(moment)


def test_before_any_rating_the_monitor_says_why_it_has_no_figures(engine) -> None:
    make_study(engine, "s", pairs=4, sequential={"looks": [10, 20]})
    figures = monitor(engine, SYSTEM, "s")
    assert figures.throughput.rated == 0
    assert figures.agreement.words == "insufficient data: no ratings yet"
    assert figures.look is not None
    assert figures.look["look"] == 0
    assert "before the first look (0 of 10 pairs): continue" in figures.look_words
    assert figures.size.hours_left is None
    assert "none finished in the last hour: no estimate" in figures.size.words


def _crowd_study(engine, pairs: int, looks: list[int], spending: str) -> None:
    make_study(
        engine,
        "s",
        pairs=pairs,
        overlap=3,
        sequential={"looks": looks, "alpha_spending": spending},
        close_at_stop=True,
        pool_open=True,
        enrolment_open=True,
        completion_code="DONE1",
    )


def _audit(engine, action: str) -> list[AuditEntry]:
    with read_session(engine) as session:
        return list(session.exec(select(AuditEntry).where(AuditEntry.action == action)).all())


def _visit(engine) -> None:
    with read_session(engine) as session:
        key = session.exec(select(Study.enrolment_key)).one()
    enrolment.visit(engine, study="s", key=key or "", participant_id="P1", session_id="S1")


def test_a_strong_effect_stops_at_the_first_look_and_closes_enrolment(engine) -> None:
    _crowd_study(engine, 30, [30, 60], "pocock")
    _visit(engine)  # open: a visitor is welcome
    store_simulated_ratings(engine, "s", n_annotators=5, seed=1, effects=STRONG, count=True)

    figures = monitor(engine, SYSTEM, "s")

    look = figures.look
    assert look is not None
    assert (look["look"], look["n_looks"], look["decision"]) == (1, 2, "stop")
    assert look["crossed"]
    assert not look["final"]
    report = study_report(study_ratings(engine, "s"), mixed=False, domains=False)
    assert report["plan"]["sequential"]["boundary_p"] == pytest.approx(look["boundary_p"])
    assert "look 1 of 2 (30 of 60 pairs)" in figures.look_words
    assert "boundary crossed: stop, validated" in figures.look_words
    assert figures.closed_now
    assert not figures.enrolment_open
    assert figures.closed_words is not None
    assert "the group-sequential plan says stop: look 1 of 2" in figures.closed_words
    (entry,) = _audit(engine, CLOSED_AT_STOP)
    assert entry.who == SYSTEM_NAME
    assert (entry.before, entry.after["enrolment_open"], entry.after["look"]) == (
        {"enrolment_open": True},
        False,
        1,
    )
    with pytest.raises(EnrolmentError, match="This study is closed"):
        _visit(engine)
    assert CLOSED.startswith("This study is closed")

    # once closed, it is not closed again; an admin who opens it again at this look is not
    # overruled, and both pages say it closed itself and was opened since
    assert not monitor(engine, SYSTEM, "s").closed_now
    studies.update_study(engine, SYSTEM, "s", enrolment_open=True)
    again = monitor(engine, SYSTEM, "s")
    assert not again.closed_now
    assert again.enrolment_open
    assert again.closed_words is not None
    assert again.closed_words.endswith("(an admin has opened it again since)")
    assert len(_audit(engine, CLOSED_AT_STOP)) == 1
    _visit(engine)


def test_a_plan_that_continues_at_its_first_look_stops_at_its_second(engine) -> None:
    _crowd_study(engine, 10, [10, 20], "obrien-fleming")
    store_simulated_ratings(engine, "s", n_annotators=3, seed=2, effects=STRONG, count=True)
    first = monitor(engine, SYSTEM, "s")
    assert first.look is not None
    assert (first.look["look"], first.look["decision"]) == (1, "continue")
    assert "(an interim look: no verdict until a boundary is crossed" in first.look_words
    assert first.enrolment_open
    assert not first.closed_now
    assert first.closed_words is None
    with write_session(engine) as session:
        study_id = get_study(session, "s").id
        session.execute(insert(Pair), [pair_row(study_id, f"q{i:03d}", "d") for i in range(10)])
    store_simulated_ratings(engine, "s", n_annotators=3, seed=4, effects=STRONG, count=True)
    second = monitor(engine, SYSTEM, "s")
    assert second.look is not None
    assert (second.look["look"], second.look["final"], second.look["decision"]) == (2, True, "stop")
    assert second.closed_now
    assert not second.enrolment_open
    assert "look 2 of 2 (20 of 20 pairs)" in (second.closed_words or "")


def test_closing_at_a_stop_needs_a_group_sequential_plan(engine) -> None:
    with pytest.raises(StudyError, match="needs a group-sequential plan"):
        make_study(engine, "s", close_at_stop=True)


# ---------------------------------------------------------------- the page


def test_the_monitor_page_shows_the_figures_and_offers_no_exclusion(page_engine, open_page) -> None:
    from tests.annotate.app.admin.test_admin_pages import _account
    from tests.helpers.admin_helpers import page_texts

    _crowd_study(page_engine, 30, [30, 60], "pocock")
    store_simulated_ratings(page_engine, "s", n_annotators=5, seed=1, effects=STRONG, count=True)
    boss = _account(page_engine, "boss", "admin")
    at = open_page(boss, page="admin_monitor.py", pick="s")
    assert next(t.value for t in at.title).startswith("Monitor")
    texts = page_texts(at)
    assert "look 1 of 2 (30 of 60 pairs)" in texts
    assert "Enrolment closed itself at" in texts
    assert "Krippendorff's alpha" in texts
    assert "**Cost.** Not set (reward and bonus rule on the Studies page)" in texts
    assert "Nothing here excludes anyone." in " ".join(c.value for c in at.caption)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Pair-ratings done"] == "150"
    assert [b.label for b in at.button if "xclude" in b.label] == []
    at.switch_page("admin/admin_studies.py").run()
    assert "Enrolment closed itself at" in page_texts(at)


def test_the_headline_is_computed_again_only_when_the_ratings_change(engine) -> None:
    make_study(engine, "s", pairs=8, overlap=2)
    store_simulated_ratings(engine, "s", n_annotators=2, seed=5, count=True)
    now = utcnow()
    first = monitor(engine, SYSTEM, "s", now=now)
    same = monitor(engine, SYSTEM, "s", now=now + timedelta(minutes=5))
    assert same.report_at == first.report_at  # nothing changed: the same headline
    with write_session(engine) as session:
        rating = session.exec(select(Rating).order_by(col(Rating.id))).first()
        assert rating is not None
        rating.score = 1 if rating.score != 1 else 2
        rating.updated_at = utcnow()
        session.add(rating)
    later = now + timedelta(minutes=6)
    held = monitor(engine, SYSTEM, "s", now=later, report_every=3600)
    assert held.report_at == first.report_at  # changed, but within the page's interval
    # past the interval: the kept headline is shown while a new one is computed aside
    past = now + timedelta(hours=2)
    shown = monitor(engine, SYSTEM, "s", now=past, report_every=3600)
    assert shown.report_at == first.report_at
    thread = refreshing(engine, "s")
    assert thread is not None
    thread.join()
    assert monitor(engine, SYSTEM, "s", now=past, report_every=3600).report_at == past
    fresh = monitor(engine, SYSTEM, "s", now=past)  # nothing changed since: kept
    assert fresh.report_at == past
    assert fresh.throughput.rated == first.throughput.rated  # counts are read every time


def test_cost_so_far_and_projected_follow_the_payment_rules(engine) -> None:
    """The study's reward and platform fee (`crowd.payment_rules`) over the participants' stored
    outcomes: 300p with a 33% fee is 399p for each one who completed, nothing for the others."""
    from annotate.domain.crowd.participants import participant_rows
    from tests.security.participants_world import STUDY, Person, crowd_study, take_part

    crowd_study(engine, pairs=6)
    take_part(engine, Person("5f8e2b1c9d3a4e0012345678", "s" * 24), 5, "a")  # completes
    take_part(engine, Person("60aa11bb22cc33dd44ee55ff", "t" * 24), 3, "b")  # in progress
    assert monitor(engine, SYSTEM, STUDY).cost is None  # no rules: "cost: not set"
    studies.update_study(engine, SYSTEM, STUDY, reward=300, platform_fee_percent=33.0, force=True)
    with read_session(engine) as session:
        statuses = [r.status for r in participant_rows(session, get_study(session, STUDY))]
    expected = sum(399 for status in statuses if status == "completed")
    assert expected > 0, statuses
    spent = monitor(engine, SYSTEM, STUDY).cost
    assert spent is not None
    assert (spent.so_far, spent.projected) == (expected, None)
    assert spent.words.endswith("; projected: no planned size")
    studies.update_study(engine, SYSTEM, STUDY, planned_pairs=30, force=True)
    figures_now = monitor(engine, SYSTEM, STUDY)
    assert figures_now.cost is not None
    assert figures_now.size.target == 30 * 2
    done = figures_now.size.done
    assert figures_now.cost.projected == round(expected * 60 / done)
    assert f"projected at the planned size {figures_now.cost.projected / 100:,.2f} GBP" in (
        figures_now.cost.words
    )
