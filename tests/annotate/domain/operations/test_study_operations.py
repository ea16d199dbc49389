"""Study operations (issue 15.1, 15.2): the audit log of admin actions, flagged and skipped
pairs handled (resolve with a note, adjudication mark), pairs excluded from the analysis and
taken back, and the exclusions in the report. Real database (SQLite, or PostgreSQL with
PRB_TEST_DATABASE_URL), through the services the pages and the CLI call."""

from __future__ import annotations

import pytest
from sqlmodel import select

from annotate.db import read_session
from annotate.db.tables import Assignment, AuditEntry, FlagResolution, Pair, PairExclusion
from annotate.domain.assignment import PairSelection
from annotate.domain.operations.flags import FlagError
from annotate.domain.study.permissions import SYSTEM, PermissionDenied
from annotate.domain.study.studies import StudyError
from annotate.errors import Conflict, NotFound
from annotate.services import audited
from annotate.services.admin import flags, plans, studies
from annotate.services.participant.rating import skip_pair
from annotate.services.results.reporting import study_ratings, study_report
from tests.helpers.admin_helpers import make_people, make_study, rate, scores


def audit_rows(engine) -> list[AuditEntry]:
    with read_session(engine) as session:
        return list(session.exec(select(AuditEntry).order_by(AuditEntry.id)).all())


@pytest.fixture
def rated(engine):
    """Study `s`: 6 pairs, 3 annotators, each pair given to all 3; everything rated (chosen 4,
    rejected 2) except: a1 flags p000, a2 skips p001. Returns (engine, admin id, ids)."""
    make_study(engine, "s", pairs=6, overlap=3)
    ids = make_people(engine, 3)
    (admin,) = make_people(engine, 1, prefix="boss", role="admin")
    plans.make_plan(
        engine, SYSTEM, study="s", annotators=["a0", "a1", "a2"], selection=PairSelection()
    )
    with read_session(engine) as session:
        items = list(session.exec(select(Assignment)).all())
        record = {a.id: a.pair_id for a in items}
    with read_session(engine) as session:
        names = {p.id: p.record_id for p in session.exec(select(Pair)).all()}
    for item in items:
        pair = names[record[item.id]]
        if item.annotator_id == ids[2] and pair == "p001":
            skip_pair(
                engine, annotator_id=item.annotator_id, assignment_id=item.id, reason="unclear"
            )
            continue
        given = {"A": scores(4)["A"], "B": scores(2)["B"]}
        flag = "wrong label" if item.annotator_id == ids[1] and pair == "p000" else None
        rate(engine, item.annotator_id, item.id, given=given, flag_reason=flag)
    return engine, admin


# ---------------------------------------------------------------- audit log


def test_a_settings_change_is_logged_with_who_and_only_what_changed(rated):
    engine, admin = rated
    before = len(audit_rows(engine))
    studies.update_study(engine, admin, "s", overlap=2, equivalence_margin=0.5, guidelines="")
    (entry,) = audit_rows(engine)[before:]
    assert (entry.who, entry.action) == ("boss0", "study.update")
    assert entry.before == {"overlap": 3}
    assert entry.after == {"overlap": 2}
    lines = audited.audit_entries(engine, admin, "s")
    assert lines[0].action == "study.update"
    assert lines[0].study == "s"


def test_the_command_line_is_logged_as_system_and_a_plan_records_the_overlap(engine):
    make_study(engine, "s", pairs=3, overlap=3)
    make_people(engine, 2)
    plans.make_plan(
        engine, SYSTEM, study="s", annotators=["a0", "a1"], selection=PairSelection(), per_pair=2
    )
    (entry,) = [e for e in audit_rows(engine) if e.action == "plan.assign"]
    assert entry.who == "system"
    assert entry.before == {"overlap": 3}
    assert entry.after["overlap"] == 2
    assert entry.after["annotators"] == ["a0", "a1"]


def test_a_refused_or_failed_action_leaves_no_entry(rated):
    engine, _ = rated
    before = audit_rows(engine)
    with pytest.raises(PermissionDenied):
        studies.update_study(engine, 1, "s", overlap=1)  # a0: an annotator
    with pytest.raises(StudyError):
        studies.update_study(engine, SYSTEM, "s", questionnaire="likert")
    assert len(audit_rows(engine)) == len(before)


def test_a_preview_shows_the_change_and_writes_nothing(rated):
    engine, admin = rated
    before = len(audit_rows(engine))
    preview = studies.preview_study_changes(engine, admin, "s", overlap=2, pool_open=False)
    assert preview == {"overlap": (3, 2)}
    assert studies.get_study(engine, admin, "s").overlap == 3
    assert len(audit_rows(engine)) == before
    with pytest.raises(StudyError):
        studies.preview_study_changes(engine, admin, "s", questionnaire="likert")


# ---------------------------------------------------------------- flags and skips


def test_the_queue_lists_flags_and_skips_with_reasons_and_scores(rated):
    engine, admin = rated
    items = flags.flag_queue(engine, admin, "s")
    assert [(i.record_id, i.annotator, i.kind, i.reason) for i in items] == [
        ("p000", "a1", "flag", "wrong label"),
        ("p001", "a2", "skip", "unclear"),
    ]
    assert items[0].scores["chosen"]["rubric_alignment"] == 4
    assert items[0].scores["rejected"]["factuality"] == 2
    assert items[1].scores == {}
    text = flags.pair_text(engine, admin, "s", "p000")
    assert text.chosen == "chosen text p000"
    assert text.question == "Question p000?"


def test_resolving_needs_a_note_and_is_logged(rated):
    engine, admin = rated
    item = flags.flag_queue(engine, admin, "s")[0]
    with pytest.raises(FlagError, match="needs a note"):
        flags.resolve_flag(
            engine, admin, study="s", assignment_id=item.assignment_id, action="resolved", note=" "
        )
    flags.resolve_flag(
        engine, admin, study="s", assignment_id=item.assignment_id, action="resolved", note="ok"
    )
    assert [i.record_id for i in flags.flag_queue(engine, admin, "s", open_only=True)] == ["p001"]
    (handled,) = [i for i in flags.flag_queue(engine, admin, "s") if i.resolution]
    assert (handled.resolution.action, handled.resolution.note) == ("resolved", "ok")
    assert handled.resolution.by == "boss0"
    # a later action replaces the earlier one when it says which it replaces; the log keeps both
    flags.resolve_flag(
        engine, admin, study="s", assignment_id=item.assignment_id, action="adjudication",
        note="", replaces="resolved",
    )  # fmt: skip
    with read_session(engine) as session:
        (row,) = session.exec(select(FlagResolution)).all()
    assert row.action == "adjudication"
    last = audit_rows(engine)[-1]
    assert last.action == "flag.adjudication"
    assert last.before["action"] == "resolved"
    assert last.after["action"] == "adjudication"


def test_only_a_flagged_or_skipped_item_of_the_study_can_be_resolved(rated):
    engine, admin = rated
    flagged = {i.assignment_id for i in flags.flag_queue(engine, admin, "s")}
    with read_session(engine) as session:
        plain = next(a.id for a in session.exec(select(Assignment)) if a.id not in flagged)
    with pytest.raises(FlagError, match="neither flagged nor skipped"):
        flags.resolve_flag(
            engine, admin, study="s", assignment_id=plain, action="resolved", note="x"
        )
    with pytest.raises(NotFound):
        flags.resolve_flag(
            engine, admin, study="s", assignment_id=10**6, action="resolved", note="x"
        )
    with pytest.raises(FlagError, match="unknown action"):
        flags.resolve_flag(engine, admin, study="s", assignment_id=plain, action="drop", note="x")


# ---------------------------------------------------------------- exclusions


def test_an_excluded_pair_leaves_the_report_and_is_listed_then_comes_back(rated):
    engine, admin = rated
    full = study_report(study_ratings(engine, "s"))
    assert full["n_pairs"] == 6
    assert full["exclusions"]["excluded_pairs"] == []
    flags.exclude_pair(engine, admin, study="s", record_id="p000", reason="label is wrong")
    with pytest.raises(Conflict, match="already excluded"):
        flags.exclude_pair(engine, admin, study="s", record_id="p000", reason="again")
    report = study_report(study_ratings(engine, "s"))
    assert report["n_pairs"] == 5
    (listed,) = report["exclusions"]["excluded_pairs"]
    assert (listed["pair_id"], listed["reason"], listed["by"]) == (
        "p000",
        "label is wrong",
        "boss0",
    )
    assert [e.record_id for e in flags.exclusions(engine, admin, "s")] == ["p000"]
    assert [i.excluded for i in flags.flag_queue(engine, admin, "s")] == [True, False]

    flags.restore_pair(engine, admin, study="s", record_id="p000")
    assert study_report(study_ratings(engine, "s"))["n_pairs"] == 6
    with read_session(engine) as session:
        (row,) = session.exec(select(PairExclusion)).all()
    assert row.reversed_at is not None
    assert row.reversed_by == "boss0"
    with pytest.raises(Conflict, match="not excluded"):
        flags.restore_pair(engine, admin, study="s", record_id="p000")
    actions = [e.action for e in audit_rows(engine)][-2:]
    assert actions == ["pair.exclude", "pair.restore"]


def test_an_exclusion_needs_a_reason_and_a_known_pair(rated):
    engine, admin = rated
    with pytest.raises(FlagError, match="needs a reason"):
        flags.exclude_pair(engine, admin, study="s", record_id="p000", reason="")
    with pytest.raises(NotFound, match="no pair 'zz'"):
        flags.exclude_pair(engine, admin, study="s", record_id="zz", reason="x")
    with pytest.raises(PermissionDenied):
        flags.exclude_pair(engine, 1, study="s", record_id="p000", reason="x")
    assert flags.exclusions(engine, admin, "s") == []


def test_every_admin_write_goes_through_the_audited_transaction():
    """No admin service opens a write transaction of its own: each change goes through
    `audited.admin_change`, which records it (a new admin write cannot skip the log)."""
    import inspect

    from annotate.services.admin import data, people, progress
    from annotate.services.results import reward_models

    for module in (studies, people, data, plans, progress, flags, reward_models):
        source = inspect.getsource(module)
        assert "write_session" not in source, module.__name__
        assert "admin_change" in source, module.__name__


def test_an_excluded_pair_leaves_the_reward_model_comparison_too(rated, tmp_path):
    from annotate.domain.models.synthetic_models import write_model_outputs
    from annotate.services.results import reward_models

    engine, admin = rated
    ids = [f"p{i:03d}" for i in range(6)]
    outputs = write_model_outputs(ids, tmp_path / "rm.jsonl", kind="pairwise", accuracy=0.5)
    assert outputs == 6
    reward_models.import_model(engine, admin, [tmp_path / "rm.jsonl"], study="s", model="rm")

    def compared() -> tuple[int, int]:
        data = study_ratings(engine, "s")
        inputs = reward_models.model_inputs(engine, admin, "s", data.snapshot.ratings)
        report = reward_models.with_reward_models(study_report(data), inputs)
        return report["n_pairs"], report["reward_models"]["rm"]["n_pairs"]

    assert compared() == (6, 6)
    flags.exclude_pair(engine, admin, study="s", record_id="p000", reason="label is wrong")
    assert compared() == (5, 5)
