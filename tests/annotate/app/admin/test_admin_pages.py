"""The admin pages and the crowd link, driven with AppTest through the real entry script."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Pair, Study
from annotate.domain.study import accounts
from annotate.domain.study.accounts import find_account
from annotate.domain.study.studies import get_study
from annotate.questionnaire import TEMPLATES, parse_questionnaire
from tests.helpers.admin_helpers import active_markdown, assignments, make_people, make_study, rate
from tests.helpers.admin_helpers import button as _button
from tests.helpers.admin_helpers import page_texts as _texts

ADMIN_FILES = (
    "admin_progress.py",
    "admin_studies.py",
    "admin_data.py",
    "admin_people.py",
    "admin_assign.py",
    "admin_flags.py",
    "admin_audit.py",
)


def _account(engine, name: str, role: str) -> str:
    with write_session(engine) as session:
        return accounts.create_account(session, name, role=role)[1]


@pytest.fixture
def boss(page_engine) -> str:
    make_study(page_engine, "s", pairs=6, overlap=2)
    make_people(page_engine, 3)
    return _account(page_engine, "boss", "admin")


# ---------------------------------------------------------------- roles


@pytest.mark.parametrize("role", ["annotator", "researcher"])
def test_other_roles_get_no_admin_page(page_engine, open_page, role):
    token = _account(page_engine, "someone", role)
    at = open_page(token)
    registered = " ".join(str(p.get("script_path", "")) for p in at._registered_pages.values())
    assert "admin_" not in registered
    for page in ADMIN_FILES:
        with pytest.raises(ValueError, match="Could not find a navigation page"):
            at.switch_page(f"admin/{page}")


def test_an_admin_lands_on_progress_and_can_open_every_admin_page(open_page, boss):
    at = open_page(boss)
    assert [t.value for t in at.title] == ["Progress"]
    titles = []
    for page in ADMIN_FILES:
        at.switch_page(f"admin/{page}").run()
        assert not at.exception, [e.value for e in at.exception]
        titles.append(at.title[0].value)
    assert titles == [
        "Progress",
        "Studies",
        "Data and gold pairs",
        "Annotators",
        "Assignments",
        "Flags and skips",
        "Audit log",
    ]


def test_an_admin_demoted_mid_session_is_refused_on_the_next_action(page_engine, open_page, boss):
    at = open_page(boss, page="admin_studies.py")
    with write_session(page_engine) as session:
        accounts.set_role(session, "boss", "annotator")
    at.text_input(key="new_study_name").input("sneaky")
    _button(at, "Create study").click().run()
    with read_session(page_engine) as session:
        assert session.exec(select(Study).where(Study.name == "sneaky")).first() is None


# ---------------------------------------------------------------- studies


def test_create_a_study_and_edit_its_settings(page_engine, open_page, boss):
    at = open_page(boss, page="admin_studies.py")
    at.text_input(key="new_study_name").input("pilot")
    at.number_input(key="new_study_seed").set_value(42)
    _button(at, "Create study").click().run()
    assert "Study pilot created." in _texts(at)
    with read_session(page_engine) as session:
        pilot = get_study(session, "pilot")
    assert pilot.seed == 42
    key = f"study_{pilot.id}"
    at.number_input(key=f"{key}_k").set_value(4)
    at.text_input(key=f"{key}_code").input("DONE-7")
    at.selectbox(key=f"{key}_questionnaire").set_value("rmbench")
    at.text_area(key=f"{key}_guidelines").input("Be **kind**.")
    at.toggle(key=f"{key}_pool").set_value(True)
    at.toggle(key=f"{key}_enrol").set_value(True)
    _button(at, "Save settings").click().run()
    assert "Study pilot: not saved yet.** Confirm to change these settings" in _texts(at)
    preview = at.table[0].value.set_index("setting")
    assert preview.loc["annotators per pair (k)", "now"] == "3"  # words, not setting names
    assert preview.loc["annotators per pair (k)", "after"] == "4"
    assert tuple(preview.loc["open pool"]) == ("off", "on")
    assert tuple(preview.loc["questionnaire"]) == ("prb", "rmbench")
    with read_session(page_engine) as session:
        assert get_study(session, "pilot").overlap == 3  # nothing saved before the confirmation
    _button(at, "Confirm").click().run()
    assert "Settings of pilot saved." in _texts(at)
    assert at.title[0].value == "Studies: pilot"
    with read_session(page_engine) as session:
        pilot = get_study(session, "pilot")
    assert (pilot.overlap, pilot.completion_code) == (4, "DONE-7")
    assert pilot.questionnaire == TEMPLATES["rmbench"].stored()
    assert pilot.guidelines == "Be **kind**."
    assert pilot.pool_open
    assert pilot.enrolment_open
    assert "PROLIFIC_PID={{%PROLIFIC_PID%}}" in _texts(at)  # the enrolment link is shown


def test_invalid_settings_show_the_problem_and_save_nothing(page_engine, open_page, boss):
    at = open_page(boss, page="admin_studies.py", pick="s")
    with read_session(page_engine) as session:
        study = get_study(session, "s")
    at.toggle(key=f"study_{study.id}_enrol").set_value(True)  # without the open pool
    _button(at, "Save settings").click().run()
    assert "needs the open pool" in _texts(at)
    with read_session(page_engine) as session:
        assert not get_study(session, "s").enrolment_open


def test_a_custom_questionnaire_is_typed_on_the_page_with_its_located_error(
    page_engine, open_page, boss
):
    at = open_page(boss, page="admin_studies.py", pick="s")
    with read_session(page_engine) as session:
        key = f"study_{get_study(session, 's').id}"
    at.selectbox(key=f"{key}_questionnaire").set_value("custom (the text below)")
    bad = "questions:\n  - {key: fit, label: Fit, text: Fit?, points: [1, 3], role: diverge}\n"
    at.text_area(key=f"{key}_questionnaire_text").input(bad)
    _button(at, "Save settings").click().run()
    assert "the custom questionnaire, questionnaire.questions[0]: points: expected" in _texts(at)
    good = bad.replace("[1, 3]", "[1, 2, 3]") + (
        "  - {key: tone, label: Tone, text: Which tone?, choices: [Warm, Cold]}\n"
    )
    at.text_area(key=f"{key}_questionnaire_text").input(good)
    _button(at, "Save settings").click().run()
    assert tuple(at.table[0].value.set_index("setting").loc["questionnaire"]) == (
        "prb",
        "custom: fit, tone",
    )
    _button(at, "Confirm").click().run()
    with read_session(page_engine) as session:
        asked = parse_questionnaire(get_study(session, "s").questionnaire)
    assert (asked.keys, asked.target, asked.describe_keys) == (("fit", "tone"), "fit", ("tone",))


# ---------------------------------------------------------------- data


def _record(record_id: str, **overrides) -> dict:
    record = {
        "id": record_id,
        "question": "Q?",
        "profile": [{"id": "p", "category": "c", "text": "t"}],
        "rubric_aspects": [{"aspect": "a", "evidence": "e", "reason": "r"}],
        "narrative": "n",
        "category": "books",
        "chosen": "yes",
        "rejected": "no",
    }
    record.update(overrides)
    return record


def _upload(at, name: str, data: bytes, study: str | None = None, new: str = ""):
    if study is not None:
        at.selectbox(key="upload_study").set_value(study)
    if new:
        at.text_input(key="upload_new_study").input(new)
    at.file_uploader(key="upload_file").set_value((name, data, "application/json"))
    _button(at, "Import").click().run()
    return at


def test_upload_a_dataset_into_a_new_study_domain_from_the_file_name(page_engine, open_page, boss):
    at = open_page(boss, page="admin_data.py")
    lines = "".join(json.dumps(_record(f"r{i}")) + "\n" for i in range(3))
    _upload(at, "Society_and_Culture_test.jsonl", lines.encode(), "(a new study)", new="up")
    assert not at.exception
    assert "Imported into up" in _texts(at)
    with read_session(page_engine) as session:
        study = get_study(session, "up")
        pairs = session.exec(select(Pair).where(Pair.study_id == study.id)).all()
    assert sorted(p.record_id for p in pairs) == ["r0", "r1", "r2"]
    assert {p.domain for p in pairs} == {"Society_and_Culture"}


def test_an_invalid_upload_lists_its_problems_and_imports_nothing(page_engine, open_page, boss):
    at = open_page(boss, page="admin_data.py")
    bad = json.dumps(_record("r0")) + "\n" + json.dumps(_record("r1", chosen=7)) + "\n{oops\n"
    _upload(at, "Art_test.jsonl", bad.encode(), "s")
    assert "Nothing was imported: 2 problem(s) in Art_test.jsonl." in _texts(at)
    table = at.dataframe[0].value
    assert list(table["where"]) == ["line 2", "line 3, column 2"]
    assert list(table["field"]) == ["chosen", ""]
    assert "got a number" in table["problem"][0]
    assert "invalid JSON" in table["problem"][1]
    with read_session(page_engine) as session:
        assert len(session.exec(select(Pair)).all()) == 6  # only the fixture's pairs


def test_mark_gold_pairs_on_the_page(page_engine, open_page, boss):
    at = open_page(boss, page="admin_data.py", pick="s")
    at.multiselect(key="gold_pairs").set_value(["p001", "p002"])
    at.radio(key="gold_expect").set_value("rejected")
    _button(at, "Mark as gold").click().run()
    assert "2 pair(s) marked gold (rejected)." in _texts(at)
    with read_session(page_engine) as session:
        gold = {p.record_id: p.gold_preference for p in session.exec(select(Pair)).all()}
    assert gold["p001"] == gold["p002"] == "rejected"
    assert gold["p000"] is None


# ---------------------------------------------------------------- annotators


def test_create_accounts_shows_each_link_once(page_engine, open_page, boss):
    at = open_page(boss, page="admin_people.py")
    at.text_area(key="new_account_names").input("zoe\nyan\n")
    _button(at, "Create").click().run()
    (block,) = [c.value for c in at.code]
    links = dict(line.split("\t") for line in block.splitlines())
    assert set(links) == {"zoe", "yan"}
    token = links["zoe"].split("token=")[1]
    with read_session(page_engine) as session:
        assert find_account(session, token).name == "zoe"
    at.run()  # any next run: the links are gone
    assert not at.code


def test_a_refusal_quoting_a_name_shows_it_as_its_own_characters(page_engine, open_page, boss):
    hostile = "[click](https://evil.example/x) <img src=x> ![t](https://evil.example/p.png)"
    at = open_page(boss, page="admin_people.py")
    for _ in range(2):  # the second time: "an account named ... already exists"
        at.text_area(key="new_account_names").input(hostile)
        _button(at, "Create").click().run()
    (error,) = [str(e.value) for e in at.error]
    assert "already exists" in error
    assert active_markdown(error) == set(), error


def test_deactivate_rotate_and_change_role(page_engine, open_page, boss):
    at = open_page(boss, page="admin_people.py")
    at.selectbox(key="manage_account").set_value("a0")
    _button(at, "Deactivate").click().run()
    assert "a0 can no longer log in." in _texts(at)
    at.selectbox(key="manage_account").set_value("a1")
    _button(at, "New link").click().run()
    (block,) = [c.value for c in at.code]
    assert block.startswith("a1\thttp")
    assert "token=" in block
    at.selectbox(key="manage_account").set_value("a2").run()  # a browser reruns on each pick
    at.selectbox(key="manage_role").set_value("researcher")
    _button(at, "Set role").click().run()
    with read_session(page_engine) as session:
        people = {a.name: a for a in session.exec(select(Annotator)).all()}
    assert not people["a0"].active
    assert people["a2"].role == "researcher"
    with read_session(page_engine) as session:
        assert find_account(session, block.split("token=")[1]).name == "a1"


def test_an_admin_cannot_deactivate_themselves_on_the_page(page_engine, open_page, boss):
    at = open_page(boss, page="admin_people.py")
    at.selectbox(key="manage_account").set_value("boss")
    _button(at, "Deactivate").click().run()
    assert "your own account" in _texts(at)


# ---------------------------------------------------------------- assignments


def test_plan_reassign_and_list_on_the_assignments_page(page_engine, open_page, boss):
    at = open_page(boss, page="admin_assign.py", pick="s")
    at.multiselect(key="plan_people").set_value(["a0", "a1", "a2"])
    at.number_input(key="plan_k").set_value(2)
    _button(at, "Assign").click().run()
    assert "12 new assignments; loads now 4-4" in _texts(at)
    study_id = 1
    held = Counter(a.pair_id for a in assignments(page_engine, study_id))
    assert set(held.values()) == {2}
    assert len(held) == 6
    with write_session(page_engine) as session:
        accounts.set_active(session, "a0", False)  # a drop-out: deactivated, work unfinished
    at.run()
    at.selectbox(key="reassign_from").set_value("a0")
    _button(at, "Reassign").click().run()
    assert "Released 4 unfinished pair(s) of a0" in _texts(at)
    live = [a for a in assignments(page_engine, study_id) if a.status != "released"]
    assert Counter(a.pair_id for a in live) == dict.fromkeys(held, 2)
    assert all(a.annotator_id != 1 for a in live)
    frame = at.dataframe[0].value
    assert list(frame.columns) == ["annotator", "pair_id", "position", "chosen_side", "status"]
    assert len(frame) == 16


def test_open_the_pool_and_enrolment_on_the_assignments_page(page_engine, open_page, boss):
    at = open_page(boss, page="admin_assign.py", pick="s")
    at.toggle(key="pool_open").set_value(True)
    at.toggle(key="pool_enrol").set_value(True)
    at.number_input(key="pool_min").set_value(15)
    at.number_input(key="pool_quota").set_value(3)
    _button(at, "Save pool settings").click().run()
    _button(at, "Confirm").click().run()
    assert "Pool settings saved." in _texts(at)
    with read_session(page_engine) as session:
        study = get_study(session, "s")
    assert (study.pool_open, study.enrolment_open, study.reservation_minutes) == (True, True, 15)
    assert study.pool_quota == 3
    assert study.enrolment_key
    assert f"study=s&key={study.enrolment_key}&PROLIFIC_PID=" in _texts(at)


def test_pairs_per_person_set_to_no_limit_in_a_crowd_study(page_engine, open_page, boss):
    """Issue 34.5: "Pairs per person (0: no limit)" set to 0 in a crowd study said "Nothing to
    change" and kept 10 while the box showed 0. The default applies only as enrolment opens."""
    at = open_page(boss, page="admin_assign.py", pick="s")
    at.toggle(key="pool_open").set_value(True)
    at.toggle(key="pool_enrol").set_value(True)
    _button(at, "Save pool settings").click().run()
    preview = at.table[0].value.set_index("setting")
    assert tuple(preview.loc["pairs per person"]) == ("none", "10")  # said as enrolment opens
    _button(at, "Confirm").click().run()
    at.number_input(key="pool_quota").set_value(0)
    _button(at, "Save pool settings").click().run()
    assert "Nothing to change" not in _texts(at)
    assert tuple(at.table[0].value.set_index("setting").loc["pairs per person"]) == (
        "10",
        "none",
    )
    _button(at, "Confirm").click().run()
    with read_session(page_engine) as session:
        assert get_study(session, "s").pool_quota is None
    assert at.number_input(key="pool_quota").value == 0


# ---------------------------------------------------------------- progress


def test_progress_shows_counts_work_bars_and_flags(page_engine, open_page, boss):
    from annotate.domain.assignment import PairSelection
    from annotate.services.admin import plans

    with read_session(page_engine) as session:
        boss_id = find_account(session, boss).id
    plans.make_plan(
        page_engine,
        boss_id,
        study="s",
        annotators=["a0", "a1", "a2"],
        selection=PairSelection(),
        per_pair=2,
    )
    first = sorted(
        (a for a in assignments(page_engine, 1) if a.annotator_id == 1), key=lambda a: a.position
    )
    rate(page_engine, 1, first[0].id, seconds=12, flag_reason="the <b>rubric</b> is empty")
    rate(page_engine, 1, first[1].id, seconds=20)
    at = open_page(boss, pick="s")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Ratings done"] == "2"
    assert metrics["Flags"] == "1"
    assert metrics["Given to 2 people"] == "6"
    assert metrics["Rated by 2 people"] == "0"
    annotators = at.dataframe[0].value.set_index("annotator")
    assert annotators.loc["a0", "done"] == 2
    assert annotators.loc["a0", "median s / pair"] == 16.0
    assert annotators.loc["a1", "pending"] == 4
    domains = at.dataframe[1].value
    assert int(domains["done"].sum()) == 2
    flags = at.dataframe[2].value
    assert list(flags["reason"]) == ["the <b>rubric</b> is empty"]
    assert annotators.loc["a0", "done of assigned"] == 2 / annotators.loc["a0", "assigned"]
    assert len(at.get("plotly_chart")) == 0  # no Plotly on the admin's landing page


@pytest.mark.parametrize(
    ("settings", "said", "not_said"),
    [
        ({}, "plan the work, or open the pool", "crowd link"),
        ({"pool_open": True}, "Nobody has pulled a pair", "plan the work"),
        ({"pool_open": True, "enrolment_open": True}, "share the crowd link", "plan the work"),
    ],
)
def test_progress_before_any_work_speaks_of_the_study_s_way_of_working(
    page_engine, open_page, boss, settings, said, not_said
):
    from annotate.domain.study.studies import update_study

    with write_session(page_engine) as session:
        update_study(session, "s", **settings)
    at = open_page(boss, pick="s")
    assert said in _texts(at)
    assert not_said not in _texts(at)
    metrics = {m.label: m.value for m in at.metric}
    expected = 6 * 2 if settings else 0  # a pool: every slot is to rate; no plan: nothing
    assert metrics["Still to rate"] == str(expected)


# ---------------------------------------------------------------- crowd enrolment


PID = "60a1b2c3d4e5f6a7b8c9d0e1"


def test_the_crowd_link_enrols_once_and_ends_with_the_completion_code(page_engine, open_page):
    make_study(
        page_engine,
        "crowd",
        pairs=3,
        overlap=1,
        pool_open=True,
        enrolment_open=True,
        pool_quota=2,
        completion_code="CODE-9",
    )
    with read_session(page_engine) as session:
        key = get_study(session, "crowd").enrolment_key
    link = {"study": "crowd", "key": key, "PROLIFIC_PID": PID, "STUDY_ID": "x", "SESSION_ID": "y"}
    at = open_page(**link)
    assert "s" not in at.query_params  # a visit creates no account (issue 24, item 7)
    assert assignments(page_engine, 1) == []  # nothing reserved before Start
    _button(at, "Start").click().run()
    token = at.query_params["s"]  # the page's session value, not the token (issue 24, item 4)
    assert "token" not in at.query_params
    with read_session(page_engine) as session:
        account = find_account(session, token)
    assert account.external_id == f"prolific:{PID}"
    assert any(m.value.startswith("**Pair 1 of 2**") for m in at.markdown)  # of the quota
    at.run()  # a reload keeps the same account (the session value is in the URL)
    assert at.query_params["s"] == token
    for _ in range(2):
        (item,) = [a for a in assignments(page_engine, 1) if a.status == "pending"]
        rate(page_engine, account.id, item.id)
        at.run()
    assert "CODE-9" in _texts(at)
    # The same participant opening the platform's link again: same account, no new pairs.
    again = open_page(**link)
    assert again.query_params["s"] != token
    with read_session(page_engine) as session:
        assert len(session.exec(select(Annotator)).all()) == 1
    assert "CODE-9" in _texts(again)


def test_a_crowd_link_to_a_closed_study_says_so(page_engine, open_page):
    make_study(page_engine, "closed", pairs=1)
    at = open_page(study="closed", key="k", PROLIFIC_PID=PID, SESSION_ID="y")
    assert "link is not valid" in _texts(at)
    assert "token" not in at.query_params
    assert "s" not in at.query_params


def test_a_crowd_link_for_someone_else_s_participant_id_is_refused(page_engine, open_page):
    make_study(page_engine, "crowd", pairs=2, pool_open=True, enrolment_open=True)
    with read_session(page_engine) as session:
        key = get_study(session, "crowd").enrolment_key
    first = open_page(study="crowd", key=key, PROLIFIC_PID=PID, SESSION_ID="mine")
    _button(first, "Start").click().run()  # the first deliberate action creates the account
    assert "s" in first.query_params
    other = open_page(study="crowd", key=key, PROLIFIC_PID=PID, SESSION_ID="someone-else")
    # the link's first page is the one anyone sees (issue 32.5: no oracle); Start is refused
    assert "another session" not in _texts(other)
    _button(other, "Start").click().run()
    assert "another session" in _texts(other)
    assert "s" not in other.query_params


def test_a_typed_new_study_name_is_where_the_files_go(page_engine, open_page, boss):
    """Issue 34.5: with a study picked, "Into study" shows it; a new study's name typed beside
    it was ignored and the files went into the picked study."""
    at = open_page(boss, pick="s")  # picked on Progress, then the Data page opened
    at.switch_page("admin/admin_data.py").run()
    assert at.selectbox(key="upload_study").value == "s"
    lines = "".join(json.dumps(_record(f"n{i}")) + "\n" for i in range(2))
    _upload(at, "Art_test.jsonl", lines.encode(), new="fresh")
    assert "Imported into fresh" in _texts(at)
    with read_session(page_engine) as session:
        fresh = get_study(session, "fresh")
        pairs = session.exec(select(Pair).where(Pair.study_id == fresh.id)).all()
        s_pairs = session.exec(select(Pair).where(Pair.study_id == get_study(session, "s").id))
        assert len(s_pairs.all()) == 6  # nothing went into the picked study
    assert sorted(p.record_id for p in pairs) == ["n0", "n1"]
