"""Participants' data, point 1 (issue 24.1): nothing meant to leave the database names a
participant or holds their free text.

A crowd study as the outside review found it (two participants enrolled through the study link
with Prolific-style ids, a free-text survey answer naming a person, comments, rationales, flags
and skips) is published; every file of the card is read as bytes (and as text in every encoding
a reader might try) and, for Parquet, as a decoded table, and none holds a platform id, a
session id, the study key, an account name, a token or any of the free text. Times are to the
minute. The admin's ratings and aspect exports and the report name annotators by pseudonym too;
free text is published only field by field, and the card says so. Runs on SQLite and on
PostgreSQL (`PRB_TEST_DATABASE_URL`).
"""

from __future__ import annotations

import io
import json
import re
import zipfile

import pandas as pd
import pytest

from annotate.db import read_session
from annotate.db.tables import stored_id
from annotate.domain.exports.export import ratings_dataframe
from annotate.domain.exports.pseudonyms import pseudonym, secret_key
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_study
from annotate.errors import Invalid
from annotate.services.admin import data as data_services
from annotate.services.admin.publish import card_files, card_zip, publish_study
from annotate.services.results.reporting import study_ratings, study_report
from tests.security.participants_world import study_key, two_participants

MINUTE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:00Z")
TIME = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?")


def _finer_than_minutes(data: bytes) -> list[bytes]:
    """The times in `data` given to more than the minute (seconds or fractions not zero)."""
    found = [m.group(0) for m in TIME.finditer(data)]
    return [t for t in found if re.search(rb":\d\d:(?!00(\.0+)?$)\d\d", t)]


def _leaks(data: bytes, secrets: list[str]) -> list[str]:
    """The secrets found in `data`, as bytes in UTF-8 and UTF-16 and as JSON-escaped text."""
    found = []
    for secret in secrets:
        forms = {secret.encode(), secret.encode("utf-16-le"), json.dumps(secret)[1:-1].encode()}
        if any(form in data for form in forms):
            found.append(secret)
    return found


def _cells(frame: pd.DataFrame) -> str:
    """Every cell and column name of a table, as one text."""
    return "\n".join([*map(str, frame.columns), *(str(v) for v in frame.to_numpy().ravel())])


@pytest.fixture
def world(engine):
    one, two = two_participants(engine)
    secrets = [*one.secrets(), *two.secrets(), study_key(engine)]
    raw = _cells(ratings_dataframe(engine, "crowd")).encode()  # before the boundary: all there
    assert sorted(_leaks(raw, secrets)) == sorted(
        [*one.texts, *two.texts, one.pid, two.pid, one.name, two.name]
    )
    return engine, one, two, secrets


def test_no_published_file_holds_a_platform_id_a_session_id_the_key_or_free_text(world, tmp_path):
    engine, _one, _two, secrets = world
    written = publish_study(engine, SYSTEM, "crowd", tmp_path / "card")
    assert {p.name for p in written} >= {"ratings.parquet", "report.json", "README.md"}
    for path in written:
        data = path.read_bytes()
        assert _leaks(data, secrets) == [], path.name
        if path.suffix == ".parquet":
            table = pd.read_parquet(path)
            assert _leaks(_cells(table).encode(), secrets) == [], path.name
        else:
            assert _leaks(data.decode("utf-8").encode("utf-8"), secrets) == [], path.name
        cells = _cells(pd.read_parquet(path)).encode() if path.suffix == ".parquet" else data
        assert _finer_than_minutes(cells) == [], path.name
    ratings = pd.read_parquet(tmp_path / "card" / "ratings.parquet")
    assert len(ratings) > 0
    assert ratings["annotator"].str.fullmatch(r"a-[0-9a-f]{12}").all()
    assert ratings["annotator"].nunique() == 2
    for column in ("comment", "rationale", "flag_reason", "skip_reason", "survey_job"):
        assert column not in ratings.columns
    assert set(ratings["survey_age"].dropna()) == {"30-49"}  # a choice is not free text
    stamps = ratings["created_at"][ratings["created_at"] != ""]
    assert stamps.str.fullmatch(MINUTE).all()
    assert ratings["seconds"].dropna().min() == 12.5  # durations stay exact
    card = (tmp_path / "card" / "README.md").read_text(encoding="utf-8")
    assert "## Participants' privacy" in card
    assert "`comment`" in card
    assert "`survey_job`" in card


def test_the_zip_of_the_publish_page_holds_the_same_files_and_nothing_more(world):
    engine, _, _, secrets = world
    files = card_files(engine, SYSTEM, "crowd")
    archive = zipfile.ZipFile(io.BytesIO(card_zip(files, "crowd")))
    assert sorted(n.split("/", 1)[1] for n in archive.namelist()) == sorted(files)
    for name in archive.namelist():
        assert _leaks(archive.read(name), secrets) == [], name


def test_a_disclosed_field_is_published_and_the_card_says_so(world):
    engine, one, two, _ = world
    files = card_files(engine, SYSTEM, "crowd", disclose=["comment"])
    ratings = pd.read_parquet(io.BytesIO(files["ratings.parquet"]))
    assert set(ratings["comment"].dropna()) - {""} == {"comment-a-x9", "comment-b-x9"}
    assert "rationale" not in ratings.columns
    card = files["README.md"].decode()
    assert "Free text published at the admin's choice: `comment`" in card
    for person in (one, two):
        assert _leaks(files["ratings.parquet"], [person.pid, person.texts[0]]) == []
    with pytest.raises(Invalid, match="unknown free-text field"):
        card_files(engine, SYSTEM, "crowd", disclose=["annotator"])


def test_exports_and_reports_name_annotators_by_a_stable_study_pseudonym(world):
    engine, one, two, _ = world
    exported = data_services.export_ratings(engine, SYSTEM, "crowd")
    assert _leaks(_cells(exported).encode(), [one.pid, two.pid, one.name, two.name]) == []
    with read_session(engine) as session:
        key = secret_key(session)
        study_id = stored_id(get_study(session, "crowd"))
    data = study_ratings(engine, "crowd")
    names = set(data.snapshot.ratings["annotator"])
    assert names == set(exported["annotator"])  # the same pseudonym everywhere
    assert names == {pseudonym(key, study_id, p.annotator_id) for p in (one, two)}
    report = json.dumps(study_report(data))
    assert _leaks(report.encode(), [*one.secrets(), *two.secrets()]) == []


def test_the_report_makes_no_group_of_a_free_text_answer(world):
    engine, _, _, _ = world
    report = study_report(study_ratings(engine, "crowd"))
    groups = report.get("by_attribute") or {}
    assert "job" not in json.dumps(groups)
    assert set(groups) <= {"age"}
