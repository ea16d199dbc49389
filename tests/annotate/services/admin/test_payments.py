"""Paying and approving crowd participants (issue 24.3): the admin's export of each
participant's platform id, status, completion code and time taken, and the median time.

Four participants of one crowd study: two who rated (one of them excluded by a pre-registered
rule, with the rule named), one who declined consent (screened out, the screen-out code), one
who withdrew (no code). Their times are set in the database so the expected minutes are known
(10 and 20 minutes: median 15). Runs on SQLite and on PostgreSQL (`PRB_TEST_DATABASE_URL`).
"""

from __future__ import annotations

import csv
import io
from datetime import timedelta

from sqlalchemy import update
from typer.testing import CliRunner

from annotate.cli.common import State, app
from annotate.db import write_session
from annotate.db.tables import Assignment, Participation, utcnow
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.erasure import withdraw_me
from annotate.services.admin.exclusion_rules import set_study_rules
from annotate.services.admin.payments import HOLDS_PLATFORM_IDS, participant_payments, payments_csv
from annotate.services.participant.consent import decide
from annotate.services.participant.enrolment import enrol
from tests.security.participants_world import (
    COMPLETED,
    STUDY,
    Person,
    crowd_study,
    study_key,
    take_part,
)

FAST, SLOW = "5f8e2b1c9d3a4e0012345678", "60aa11bb22cc33dd44ee55ff"
DECLINER, LEAVER = "61bb22cc33dd44ee55ff6677", "62cc33dd44ee55ff66778899"


def _crowd(engine):
    crowd_study(engine, pairs=6, screenout_code="NO-CONSENT", pool_quota=5)
    fast = take_part(engine, Person(FAST, "s" * 24), 5, "a", pace=2.0)
    slow = take_part(engine, Person(SLOW, "t" * 24), 5, "b", pace=30.0)
    link = {"study": STUDY, "key": study_key(engine)}
    declined = enrol(engine, participant_id=DECLINER, session_id="u" * 24, **link)
    decide(engine, declined.annotator_id, accept=False, **link)
    leaver = enrol(engine, participant_id=LEAVER, session_id="v" * 24, **link)
    decide(engine, leaver.annotator_id, accept=True, **link)
    withdraw_me(engine, leaver.annotator_id, token=leaver.token, erase_data=False, **link)
    start = utcnow() - timedelta(hours=2)
    with write_session(engine) as session:
        for person, minutes in ((fast, 10), (slow, 20)):
            mine = Assignment.annotator_id == person.annotator_id
            session.execute(update(Assignment).where(mine).values(created_at=start))
            session.execute(
                update(Assignment)
                .where(mine, Assignment.status == "done")
                .values(completed_at=start + timedelta(minutes=minutes))
            )
            session.execute(
                update(Participation)
                .where(Participation.annotator_id == person.annotator_id)
                .values(consent_at=start)
            )
    set_study_rules(engine, SYSTEM, STUDY, {"min_median_seconds": 5}, force=True)
    return fast, slow


def test_each_participant_s_status_code_and_time_and_the_median(engine):
    _crowd(engine)
    found = participant_payments(engine, SYSTEM, STUDY)
    rows = {r.participant_id: r for r in found.rows}
    assert set(rows) == {FAST, SLOW, DECLINER, LEAVER}
    assert (rows[FAST].status, rows[FAST].excluded_by) == ("excluded", "min_median_seconds")
    assert (rows[SLOW].status, rows[SLOW].completion_code) == ("completed", COMPLETED)
    assert (rows[DECLINER].status, rows[DECLINER].completion_code) == ("screened out", "NO-CONSENT")
    assert (rows[LEAVER].status, rows[LEAVER].completion_code) == ("withdrawn", "")
    assert (rows[FAST].minutes_taken, rows[SLOW].minutes_taken) == (10.0, 20.0)
    assert (rows[FAST].pairs_done, rows[SLOW].pairs_done) == (5, 5)
    assert found.median_minutes == 15.0  # median of 10 and 20
    assert found.pay_for(12.0) == 3.0  # 12 an hour for 15 minutes
    assert all(r.pseudonym.startswith("a-") for r in (rows[FAST], rows[SLOW]))


def test_the_csv_leads_with_the_participant_ids_prolific_reads(engine):
    _crowd(engine)
    table = list(
        csv.DictReader(io.StringIO(payments_csv(participant_payments(engine, SYSTEM, STUDY))))
    )
    assert next(iter(table[0])) == "participant_id"
    assert sorted(r["participant_id"] for r in table) == sorted([FAST, SLOW, DECLINER, LEAVER])
    assert {r["participant_id"]: r["minutes_taken"] for r in table}[SLOW] == "20.0"


def test_the_command_writes_the_file_and_says_what_it_holds(engine, db_url, tmp_path):
    _crowd(engine)
    out = tmp_path / "payments.csv"
    try:
        result = CliRunner().invoke(
            app,
            [
                "--db",
                db_url,
                "participants",
                "payments",
                "--study",
                STUDY,
                "-o",
                str(out),
                "--hourly-rate",
                "12",
            ],
        )
    finally:
        if State._engine is not None:
            State._engine.dispose()
    assert result.exit_code == 0, result.output
    assert HOLDS_PLATFORM_IDS in result.stderr.replace("\n", " ")
    assert (
        "median time taken: 15.0 minutes; at 12.0/hour, pay 3.00 per participant" in result.stderr
    )
    assert "1 completed, 1 excluded, 1 screened out, 1 withdrawn" in result.stderr
    assert FAST in out.read_text(encoding="utf-8")


def test_the_csv_writes_a_formula_in_any_text_cell_inert():
    """Issue 32: the payments CSV (opened in a spreadsheet to approve and pay) escapes a text a
    spreadsheet would run, also after leading whitespace: an admin-set completion code or an
    exclusion rule's name, a platform id from the study link's address."""
    from annotate.domain.crowd.participants import ParticipantRow
    from annotate.services.admin.payments import Payments

    row = ParticipantRow(
        annotator_id=1,
        name="prolific:x",
        participant_id=' =HYPERLINK("http://evil.example")',
        status="completed",
        completion_code="\t=1+1",
        pairs_done=-1,
        started_at=None,
        finished_at=None,
        excluded_by="@SUM(A1)",
    )
    (line,) = list(csv.DictReader(io.StringIO(payments_csv(Payments(STUDY, [row], None)))))
    assert line["participant_id"] == '\' =HYPERLINK("http://evil.example")'
    assert line["completion_code"] == "'\t=1+1"
    assert line["excluded_by"] == "'@SUM(A1)"
    assert line["pairs_done"] == "-1"  # a number stays a number
