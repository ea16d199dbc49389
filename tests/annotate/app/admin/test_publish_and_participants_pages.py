"""The Publish page (issue 26.3) and the Participants page (issue 24.2-24.3), with AppTest: the
card's free-text fields are opt-in boxes, the preview is the card built in memory, its zip is a
download (nothing written on the server); the participants' table, the payments download and
erasing a person from the page."""

from __future__ import annotations

from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, AuditEntry
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.study import accounts
from annotate.domain.study.studies import get_study
from tests.helpers.admin_helpers import rate
from tests.security.participants_world import STUDY, two_participants


def _admin(page_engine) -> str:
    with write_session(page_engine) as session:
        _, token = accounts.create_account(session, "boss", role="admin")
    return token


def _markdown(at) -> str:
    return "\n".join(str(m.value) for m in at.markdown)


def test_the_publish_page_previews_the_card_with_the_chosen_free_text(
    page_engine, open_page, tmp_path
):
    one, _ = two_participants(page_engine)
    at = open_page(_admin(page_engine), page="admin_publish.py", pick=STUDY)
    boxes = {c.key: c for c in at.checkbox}
    assert {"disclose_comment", "disclose_rationale", "disclose_survey_job"} <= set(boxes)
    assert "disclose_survey_age" not in boxes  # a choice is not free text
    assert not any(c.value for c in at.checkbox)  # nothing disclosed by default
    at.checkbox(key="disclose_comment").check().run()
    at.button(key="publish_build").click().run()
    assert not at.exception, [e.value for e in at.exception]
    text = _markdown(at)
    assert "Free text published at the admin's choice: `comment`" in text
    assert one.pid not in text
    assert one.texts[0] not in text  # the survey's free text stays out
    (download,) = at.get("download_button")
    assert download.proto.label == "Download the card (zip)"
    assert not list(tmp_path.glob("**/*-card*"))  # built in memory
    at.checkbox(key="disclose_comment").uncheck().run()  # another choice: build again
    assert not at.get("download_button")


def test_the_participants_page_lists_them_and_erases_one(page_engine, open_page):
    one, two = two_participants(page_engine)
    at = open_page(_admin(page_engine), page="admin_participants.py", pick=STUDY)
    assert not at.exception, [e.value for e in at.exception]
    (table, *_) = at.dataframe
    assert set(table.value["participant id"]) == {one.pid, two.pid}
    assert set(table.value["status"]) == {"completed"}
    labels = [d.proto.label for d in at.get("download_button")]
    assert labels == ["Download for bulk approval (CSV)"]
    assert at.button(key="erase_button").disabled
    at.selectbox(key="erase_person").set_value(one.name)
    at.checkbox(key="erase_sure").check().run()
    at.button(key="erase_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Their data in this study were erased." in "\n".join(str(s.value) for s in at.success)
    with read_session(page_engine) as session:
        names = session.exec(select(Annotator.name)).all()
        entries = session.exec(
            select(AuditEntry).where(AuditEntry.action == "annotator.erase")
        ).all()
    assert one.name not in names
    assert len(entries) == 1
    assert one.pid not in str(entries[0].after)


def test_the_participants_page_never_erases_the_last_active_admin(page_engine, open_page):
    # issue 32.2: the only admin, who rated a pair of the study, picks itself on the page
    two_participants(page_engine)
    token = _admin(page_engine)
    with write_session(page_engine) as session:
        boss = accounts.get_account(session, "boss")
        study = get_study(session, STUDY)
        assign_pairs(session, study, boss, study_pairs(session, study))
        boss_id = int(boss.id)  # type: ignore[arg-type]
    with read_session(page_engine) as session:
        held = session.exec(select(Assignment.id).where(Assignment.annotator_id == boss_id))
        first = held.first()
    assert first is not None
    rate(page_engine, boss_id, first, side_preference=1)
    at = open_page(token, page="admin_participants.py", pick=STUDY)
    at.selectbox(key="erase_person").set_value("boss")
    at.checkbox(key="erase_sure").check().run()
    at.button(key="erase_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "last active admin" in "\n".join(str(e.value) for e in at.error)
    with read_session(page_engine) as session:
        account = session.get(Annotator, boss_id)
        assert account is not None
        assert account.active
        assert session.exec(select(Assignment).where(Assignment.annotator_id == boss_id)).first()


def test_the_publish_page_warns_of_addresses_in_disclosed_free_text_and_masks_them(
    page_engine, open_page
):
    """Issue 32: before disclosing free text holding e-mail-like strings the page warns, and
    its "Mask" box (checked) replaces each with [e-mail] in the card."""
    import io

    import pandas as pd
    from sqlmodel import col

    from annotate.db.tables import Assignment

    two_participants(page_engine)
    with write_session(page_engine) as session:
        first = session.exec(
            select(Assignment).where(col(Assignment.status) == "done").order_by(col(Assignment.id))
        ).first()
        assert first is not None
        first.comment = "ask me: jo.smith@example.org"
    at = open_page(_admin(page_engine), page="admin_publish.py", pick=STUDY)
    assert not at.warning  # nothing disclosed: nothing to warn about
    at.checkbox(key="disclose_comment").check().run()
    (warning,) = [w for w in at.warning if "e-mail-like" in str(w.value)]
    assert "`comment`: 1" in str(warning.value)
    assert at.checkbox(key="publish_mask_emails").value  # masked unless unticked
    at.button(key="publish_build").click().run()
    assert not at.exception, [e.value for e in at.exception]
    files = at.session_state["publish_built"][1]
    comments = set(pd.read_parquet(io.BytesIO(files["ratings.parquet"]))["comment"].dropna())
    assert "ask me: [e-mail]" in comments
    assert not any("jo.smith" in c for c in comments)
