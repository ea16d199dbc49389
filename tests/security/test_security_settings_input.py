"""Point 11: hostile study settings files (issue 24, item 8). Each case of the attack pass gives
a located error (the file, the line or the field, what was expected), no traceback and nothing
written, through `prb-annotate studies import-settings` and the Studies page's upload (AppTest),
on SQLite and on PostgreSQL (`PRB_TEST_DATABASE_URL`). The nesting and the number of values are
capped before the parser runs (`annotate.domain.untrusted.documents`); the CPU each case takes
is printed by `benchmarks/bench_hostile_settings.py`.

Older tests on the same ground: `tests/annotate/cli/test_study_settings_cli.py` (ordinary bad
files), `tests/security/test_security_import_input.py` (hostile dataset records)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from annotate.cli.common import State, app
from annotate.db import write_session
from annotate.domain.study import accounts, studies
from tests.helpers.admin_helpers import as_read


@dataclass(frozen=True)
class Case:
    id: str
    name: str
    data: bytes
    expected: str
    """What the error must say after the file's name (its place and what was expected)."""


def _deep_block_yaml(size: int) -> bytes:
    lines, depth = [b"anchors:"], 1
    while sum(map(len, lines)) < size:
        lines.append(b" " * depth + b"a:")
        depth += 1
    return b"\n".join(lines) + b" 1\n"


DIGITS = "9" * 5000
CASES = [
    Case(
        "integer-5000-digits-yaml",
        "big.yaml",
        f"overlap: {DIGITS}\n".encode(),
        "line 1, column 10: the integer 9999",
    ),
    Case(
        "integer-5000-digits-json",
        "big.json",
        f'{{"overlap": {DIGITS}}}'.encode(),
        "field 'overlap': the integer 9999",
    ),
    Case(
        "nesting-100000-json",
        "deep.json",
        b'{"anchors": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "line 1, column 44: nested too deeply; expected at most 32 levels",
    ),
    Case(
        "nesting-100000-yaml",
        "deep.yaml",
        b"anchors: " + b"[" * 100_000 + b"]" * 100_000,
        "nested too deeply; expected at most 32 levels",
    ),
    Case(
        "deep-flow-yaml-200kb",
        "deep.yml",
        b"anchors: " + b"{a: " * 50_000 + b"1" + b"}" * 50_000,
        "line 1, column 134: nested too deeply",
    ),
    Case(
        "deep-block-yaml-200kb",
        "block.yaml",
        _deep_block_yaml(200_000),
        "line 33, column 33: nested too deeply",
    ),
    Case(
        "lone-surrogate-json",
        "s.json",
        b'{"consent_text": "a\\ud800b"}',
        "field 'consent_text': a text contains a lone surrogate",
    ),
    Case(
        "lone-surrogate-in-a-key-json",
        "k.json",
        b'{"anchors": {"\\udc00": "x"}}',
        "field 'anchors': the key '\\udc00': a text contains a lone surrogate",
    ),
    Case(
        "lone-surrogate-yaml",
        "s.yaml",
        b'consent_text: "a\\ud800b"\n',
        "line 1, column 19: not valid YAML",
    ),
    Case(
        "overlap-2-63-yaml",
        "o.yaml",
        f"overlap: {2**63}\n".encode(),
        "field 'overlap': an integer is too large; expected a 64-bit integer",
    ),
    Case(
        "overlap-2-62-json",
        "o.json",
        f'{{"overlap": {2**62}}}'.encode(),
        "overlap: expected at most 1,000, not 4611686018427387904",
    ),
    Case(
        "nul-in-consent-yaml",
        "n.yaml",
        b'consent_text: "I agree\\0"\n',
        "field 'consent_text': a text contains the NUL character",
    ),
    Case(
        "nul-in-consent-json",
        "n.json",
        b'{"consent_text": "I agree\\u0000"}',
        "field 'consent_text': a text contains the NUL character",
    ),
    Case(
        "nul-in-a-practice-pair",
        "p.json",
        b'{"practice_pairs": [{"id": "p1", "question": "q\\u0000"}]}',
        "field 'practice_pairs[0].question': a text contains the NUL character",
    ),
    Case(
        "reservation-1e12-minutes",
        "r.yaml",
        b"reservation_minutes: 1000000000000\n",
        "reservation minutes: expected at most 10,080, not 1000000000000",
    ),
    Case(
        "margin-inf",
        "m.yaml",
        b"equivalence_margin: .inf\n",
        "field 'equivalence_margin': inf is not allowed; expected a finite number",
    ),
    Case(
        "margin-nan-json",
        "m.json",
        b'{"equivalence_margin": NaN}',
        "field 'equivalence_margin': NaN is not allowed; expected a finite number",
    ),
    Case(
        "anchors-100000-keys-yaml",
        "a.yaml",
        b"anchors:\n" + b"".join(b"  k%d: v\n" % i for i in range(100_000)),
        "line 25000, column 11: more than 50,000 values; expected fewer",
    ),
    Case(
        "anchors-100000-keys-json",
        "a.json",
        b'{"anchors": {' + b", ".join(b'"%d": "v"' % i for i in range(100_000)) + b"}}",
        # counted before decoding, as YAML's events are (issue 32: a 4.9 MB file cost 634 MB)
        "line 1, column 338902: more than 50,000 values; expected fewer",
    ),
    Case(
        "anchor-key-not-a-point",
        "a2.yaml",
        b"questionnaire:\n  questions:\n"
        b"    - {key: fit, label: Fit, text: Fit?, anchors: {best: Perfect}}\n",
        "questionnaire.questions[0].anchors.best.[key]: Input should be a valid integer",
    ),
    Case(
        "unknown-dimension-key",
        "d.yaml",
        b"questionnaire:\n  questions:\n    - {key: Factuality, label: Facts, text: True?}\n",
        "questionnaire.questions[0].key: expected a lower-case name of letters, digits and '_'",
    ),
    Case(
        "duplicate-yaml-key",
        "dup.yaml",
        b"overlap: 2\noverlap: 5\n",
        "line 2, column 1: the key 'overlap' appears twice; expected each key once",
    ),
    Case(
        "duplicate-nested-yaml-key",
        "dup2.yaml",
        b"anchors:\n  1: a\n  1: b\n",
        "line 3, column 3: the key '1' appears twice",
    ),
    Case(
        "duplicate-json-key",
        "dup.json",
        b'{"overlap": 2, "overlap": 5}',
        "field '(the whole file)': the key 'overlap' appears twice in one object",
    ),
    Case(
        "alias-yaml",
        "alias.yaml",
        b"guidelines: &g text\nconsent_text: *g\n",
        "line 2, column 15: YAML aliases (*name) are not allowed",
    ),
    Case(
        "python-tag-yaml",
        "tag.yaml",
        b"overlap: !!python/object:os.system {}\n",
        "line 1, column 10: the tag 'tag:yaml.org,2002:python/object:os.syste...' is not allowed",
    ),
    Case(
        "two-documents-yaml",
        "two.yaml",
        b"overlap: 2\n---\noverlap: 5\n",
        "line 2, column 1: a second document (---); expected one document",
    ),
]
IDS = [case.id for case in CASES]


@pytest.fixture
def study(engine) -> int:
    """Study `s` (default settings) and an admin account; returns the admin's id."""
    with write_session(engine) as session:
        studies.create_study(session, "s", seed=7)
        return accounts.create_account(session, "boss", role="admin")[0].id


def _cli(db_url: str, *args: str) -> tuple[int, str]:
    try:
        result = CliRunner().invoke(app, ["--db", db_url, *args])
    finally:
        if State._engine is not None:
            State._engine.dispose()
    return result.exit_code, result.stdout + result.stderr


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_cli_locates_the_problem_and_changes_nothing(
    engine, db_url, snapshot, study, tmp_path: Path, monkeypatch, case
):
    monkeypatch.delenv("PRB_DATABASE_URL", raising=False)
    path = tmp_path / case.name
    path.write_bytes(case.data)
    before = snapshot(engine)
    code, printed = _cli(db_url, "studies", "import-settings", "--study", "s", str(path))
    assert code != 0
    shown = " ".join(printed.split())
    assert shown.startswith(f"error: {path}"), shown[:2000]
    assert case.expected in shown, shown[:2000]
    assert "Traceback" not in printed
    assert snapshot(engine) == before


@pytest.fixture
def studies_page(engine, db_url, monkeypatch, study):
    """`studies_page(name, data)`: the Studies page after uploading `data` and asking for its
    preview (on the test's database, SQLite or PostgreSQL)."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from annotate.app.admin import admin_studies
    from annotate.config import DATABASE_ENV
    from tests.helpers.apptest_helpers import pick_study

    monkeypatch.setenv(DATABASE_ENV, db_url)
    st.cache_resource.clear()

    def upload(name: str, data: bytes) -> AppTest:
        at = AppTest.from_file(str(Path(admin_studies.__file__)), default_timeout=60)
        at.session_state["account_id"] = study
        at.run()
        pick_study(at, "s")
        at.file_uploader(key="settings_upload").set_value((name, data, "application/yaml"))
        at.run()
        at.button(key="settings_preview").click().run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    yield upload
    st.cache_resource.clear()


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_page_shows_the_located_problem_and_changes_nothing(
    engine, snapshot, studies_page, case
):
    before = snapshot(engine)
    at = studies_page(case.name, case.data)
    errors = " ".join(" ".join(as_read(str(e.value)) for e in at.error).split())
    assert errors.startswith(case.name), errors[:2000]
    assert case.expected in errors, errors[:2000]
    assert not [b for b in at.button if b.label == "Confirm"]
    assert snapshot(engine) == before


def test_the_same_settings_without_the_hostile_values_are_accepted(engine, db_url, study, tmp_path):
    """The refusals are the values', not the files': ordinary values in the same shapes pass."""
    path = tmp_path / "fine.yaml"
    path.write_text(
        "overlap: 5\nreservation_minutes: 10080\nequivalence_margin: 0.5\n"
        "questionnaire:\n  questions:\n    - key: fit\n      label: Facts\n      text: True?\n"
        "      anchors:\n        1: Very poor\n        5: Excellent\n"
        "consent_text: I agree\n",
        encoding="utf-8",
    )
    code, printed = _cli(
        db_url, "studies", "import-settings", "--study", "s", str(path), "--yes"
    )  # --yes: the overlap changes the study's design (issue 22.9)
    assert code == 0, printed
