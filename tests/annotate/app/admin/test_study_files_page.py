"""The Studies page's training section and settings file (issue 14, items 3 and 6), with
AppTest: the training typed as YAML, a settings file uploaded (each change shown, saved after
Confirm, audited), a bad file refused with its located problem, and the downloads."""

from __future__ import annotations

import json

import pytest
import yaml
from sqlmodel import select
from streamlit.testing.v1.element_tree import Block

from annotate.db import read_session, write_session
from annotate.db.tables import AuditEntry
from annotate.domain.study import accounts
from annotate.domain.study.studies import get_study
from tests.annotate.domain.crowd.test_training import PRACTICE_PAIRS, QUESTIONS
from tests.helpers.admin_helpers import make_study, page_texts


@pytest.fixture
def boss(page_engine) -> str:
    make_study(page_engine, "s", pairs=2)
    with write_session(page_engine) as session:
        return accounts.create_account(session, "boss", role="admin")[1]


def _button(at, label: str):
    (found,) = [b for b in at.button if b.label == label]
    return found


def _study(engine):
    with read_session(engine) as session:
        return get_study(session, "s")


def _audit(engine) -> list[AuditEntry]:
    with read_session(engine) as session:
        return list(session.exec(select(AuditEntry).order_by(AuditEntry.id)))


def test_the_training_is_typed_as_yaml_and_saved_after_confirm(page_engine, open_page, boss):
    at = open_page(boss, page="admin_studies.py", pick="s")
    key = f"study_{_study(page_engine).id}_training_yaml"
    assert yaml.safe_load(at.text_area(key=key).value) == {
        "practice_pairs": [],
        "comprehension_questions": [],
        "comprehension_attempts": 2,
    }
    typed = {"practice_pairs": PRACTICE_PAIRS, "comprehension_questions": QUESTIONS}
    at.text_area(key=key).input(yaml.safe_dump(typed))
    _button(at, "Save training").click().run()
    assert _study(page_engine).practice_pairs == []  # not before Confirm
    _button(at, "Confirm").click().run()
    assert "Settings of s saved" in page_texts(at)
    study = _study(page_engine)
    assert [p["id"] for p in study.practice_pairs] == ["p1", "p2"]
    assert study.comprehension_questions[1]["correct"] == [0, 2]
    assert _audit(page_engine)[-1].after["settings_file"] == "training (Studies page)"


PAGES = (
    "admin_progress.py",
    "admin_flags.py",
    "admin_adjudication.py",
    "admin_data.py",
    "admin_people.py",
    "admin_assign.py",
    "admin_audit.py",
    "admin_studies.py",
)


def _ask_for_training(at, engine) -> None:
    key = f"study_{_study(engine).id}_training_yaml"
    typed = {"practice_pairs": PRACTICE_PAIRS, "comprehension_questions": QUESTIONS}
    at.text_area(key=key).input(yaml.safe_dump(typed))
    _button(at, "Save training").click().run()


def test_a_pending_change_stays_shown_on_every_admin_page_until_confirmed(
    page_engine, open_page, boss
):
    """Issue 22.2 (point 3): "Save training" in an expander that collapses used to hide the
    confirmation; the change stays pending, in words, with Confirm and Cancel, on every page."""
    at = open_page(boss, page="admin_studies.py", pick="s")
    _ask_for_training(at, page_engine)
    for page in PAGES:
        at.switch_page(f"admin/{page}").run()
        assert not at.exception, [e.value for e in at.exception]
        assert "**Study s: not saved yet.** Confirm" in page_texts(at), page
        assert {"Confirm", "Cancel"} <= {b.label for b in at.button}, page
        assert _study(page_engine).practice_pairs == []
    at.switch_page("admin/admin_people.py").run()
    table = at.table[0].value.set_index("setting")
    assert set(table.index) == {"practice pairs", "comprehension questions"}
    _button(at, "Confirm").click().run()
    assert "Settings of s saved (from training (Studies page))." in page_texts(at)
    assert [p["id"] for p in _study(page_engine).practice_pairs] == ["p1", "p2"]
    at.switch_page("admin/admin_progress.py").run()
    assert "not saved yet" not in page_texts(at)
    assert "Confirm" not in {b.label for b in at.button}


def test_a_cancelled_change_saves_nothing_and_leaves_no_banner(page_engine, open_page, boss):
    at = open_page(boss, page="admin_studies.py", pick="s")
    _ask_for_training(at, page_engine)
    at.switch_page("admin/admin_assign.py").run()
    _button(at, "Cancel").click().run()
    assert "Nothing changed in s." in page_texts(at)
    assert "not saved yet" not in page_texts(at)
    assert _study(page_engine).practice_pairs == []
    assert [e.action for e in _audit(page_engine)] == []


def test_a_bad_training_text_names_the_field_and_saves_nothing(page_engine, open_page, boss):
    at = open_page(boss, page="admin_studies.py", pick="s")
    key = f"study_{_study(page_engine).id}_training_yaml"
    bad = {"comprehension_questions": [{**QUESTIONS[0], "correct": "1"}]}
    at.text_area(key=key).input(yaml.safe_dump(bad))
    _button(at, "Save training").click().run()
    assert "field 'comprehension_questions[0].correct': expected a valid list" in page_texts(at)
    assert not [b for b in at.button if b.label == "Confirm"]
    assert _study(page_engine).comprehension_questions == []


def test_a_settings_file_is_uploaded_previewed_and_confirmed(page_engine, open_page, boss):
    at = open_page(boss, page="admin_studies.py", pick="s")
    assert {b.key for b in at.get("download_button")} >= {
        "settings_download_yaml",
        "settings_download_json",
    }
    data = json.dumps({"overlap": 5, "comprehension_questions": QUESTIONS}).encode()
    at.file_uploader(key="settings_upload").set_value(("mine.json", data, "application/json"))
    at.run()
    at.button(key="settings_preview").click().run()
    shown = at.table[-1].value
    assert set(shown["setting"]) == {"annotators per pair (k)", "comprehension questions"}
    _button(at, "Confirm").click().run()
    assert "Settings of s saved (from mine.json)." in page_texts(at)
    assert (_study(page_engine).overlap, len(_study(page_engine).comprehension_questions)) == (5, 2)
    entry = _audit(page_engine)[-1]
    assert (entry.action, entry.who, entry.after["settings_file"]) == (
        "study.settings_import",
        "boss",
        "mine.json",
    )


def test_a_bad_settings_file_is_refused_with_its_place(page_engine, open_page, boss):
    at = open_page(boss, page="admin_studies.py", pick="s")
    data = b"overlap: 2\npractice_pairs:\n  - id: p1\n    question: [\n"
    at.file_uploader(key="settings_upload").set_value(("bad.yaml", data, "application/yaml"))
    at.run()
    at.button(key="settings_preview").click().run()
    assert "bad.yaml, line 5, column 1: not valid YAML" in page_texts(at)
    assert _study(page_engine).overlap == 3


def _expander(at, label: str):
    (found,) = [e for e in at.expander if e.label.startswith(label)]
    return found


def test_the_confirmation_is_under_the_button_that_asked_with_the_yaml_typed(
    page_engine, open_page, boss
):
    """Issue 34.5: Save training and Save settings put their confirmation at the top of the
    page, out of view, and the training's showed the old YAML; now each is drawn under its own
    form (the training's with the YAML being confirmed), and only there."""
    at = open_page(boss, page="admin_studies.py", pick="s")
    key = f"study_{_study(page_engine).id}_training_yaml"
    typed = yaml.safe_dump({"practice_pairs": PRACTICE_PAIRS, "comprehension_questions": QUESTIONS})
    at.text_area(key=key).input(typed)
    _button(at, "Save training").click().run()
    training = _expander(at, "Training before real work")
    assert [b.label for b in training.button if b.label in ("Confirm", "Cancel")] == [
        "Confirm",
        "Cancel",
    ]
    assert [c.value.strip() for c in training.code] == [typed.strip()]  # as it will be saved
    assert at.text_area(key=key).value == typed
    assert len([b for b in at.button if b.label == "Confirm"]) == 1  # not also at the top
    _button(at, "Confirm").click().run()
    training = _expander(at, "Training before real work")
    assert "Settings of s saved (from training (Studies page))." in page_texts(training)
    assert yaml.safe_load(at.text_area(key=key).value)["practice_pairs"] == PRACTICE_PAIRS

    study_key = f"study_{_study(page_engine).id}"
    at.number_input(key=f"{study_key}_k").set_value(4)
    _button(at, "Save settings").click().run()
    main = list(at.main.children.values())
    (form,) = [
        c
        for c in main
        if isinstance(c, Block)
        and "Save settings" in [b.label for b in c.get("form_submit_button")]
    ]
    place = main.index(form)
    shown = [page_texts(c) if isinstance(c, Block) else str(c.value) for c in main]
    assert "not saved yet" in shown[place + 1]  # right under the form
    assert "not saved yet" not in " ".join(shown[:place])
    _button(at, "Confirm").click().run()
    assert _study(page_engine).overlap == 4
