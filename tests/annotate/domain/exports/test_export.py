"""The ratings export: one row per score, fixed columns, sides derived, formats round-trip."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest
from sqlalchemy.engine import make_url
from sqlmodel import select

from annotate.db import make_engine, read_session, write_session
from annotate.db.tables import Annotator, Assignment, Pair
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.exports.export import (
    EXPORT_FORMATS,
    ratings_bytes,
    ratings_dataframe,
    write_ratings,
)
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study
from annotate.services.admin.data import import_files
from annotate.services.participant.rating import submit_rating
from annotate.vocabulary import DIMENSIONS, EXPORT_COLUMNS, PROVENANCE_EXPORT_COLUMNS


def side_scores(offset: int) -> dict[str, dict[str, int]]:
    """Scores that identify their side and dimension: A is 1-4 (+offset), B is 5-2."""
    return {
        "A": {d: 1 + (i + offset) % 4 for i, d in enumerate(DIMENSIONS)},
        "B": {d: 5 - (i + offset) % 4 for i, d in enumerate(DIMENSIONS)},
    }


def rate_everything(engine, study: str, annotators: list[str], n_pairs: int) -> dict:
    """Give every annotator every pair of `study` and submit; return what was submitted."""
    submitted = {}
    with write_session(engine) as session:
        target = get_or_create_study(session, study)
        for name in annotators:
            account, _ = accounts.create_account(session, name)
            assign_pairs(session, target, account, study_pairs(session, target))
    with read_session(engine) as session:
        rows = session.exec(
            select(Assignment, Annotator.name, Pair.record_id)
            .join(Annotator, Annotator.id == Assignment.annotator_id)
            .join(Pair, Pair.id == Assignment.pair_id)
            .where(Pair.study_id == get_or_create_study(session, study).id)
        ).all()
    assert len(rows) == len(annotators) * n_pairs
    for offset, (assignment, name, record_id) in enumerate(rows):
        given = side_scores(offset)
        submit_rating(
            engine,
            annotator_id=assignment.annotator_id,
            assignment_id=assignment.id,
            scores=given,
            seconds=10.0 + offset,
        )
        submitted[(name, record_id)] = (assignment.chosen_side, given, 10.0 + offset)
    return submitted


@pytest.fixture
def rated(engine, tmp_path, write_records, make_record):
    path = write_records(
        tmp_path / "Society_and_Culture_test.jsonl", [make_record(f"2_{i}_0") for i in range(6)]
    )
    other = write_records(tmp_path / "Art_and_Entertainment_test.jsonl", [make_record("0_1_0")])
    import_files(engine, SYSTEM, [path], study="main")
    import_files(engine, SYSTEM, [other], study="other")
    submitted = rate_everything(engine, "main", ["alice", "bob"], 6)
    rate_everything(engine, "other", ["carol"], 1)
    return submitted


def test_columns_are_exactly_the_documented_ones_in_order(engine, rated):
    assert EXPORT_COLUMNS == (
        "study",
        "pair_id",
        "domain",
        "annotator",
        "response",
        "side",
        "dimension",
        "score",
        "seconds",
        "created_at",
    )
    frame = ratings_dataframe(engine)
    assert tuple(frame.columns) == EXPORT_COLUMNS + PROVENANCE_EXPORT_COLUMNS
    assert len(frame) == (2 * 6 + 1) * 8


def test_each_score_is_one_row_with_its_side_and_response(engine, rated):
    frame = ratings_dataframe(engine, "main")
    assert len(frame) == 2 * 6 * 8
    assert set(frame["study"]) == {"main"}
    assert set(frame["domain"]) == {"Society_and_Culture"}
    assert set(frame["response"]) == {"chosen", "rejected"}
    assert set(frame["side"]) == {"A", "B"}
    assert set(frame["dimension"]) == set(DIMENSIONS)
    for row in frame.itertuples():
        chosen_side, given, seconds = rated[(row.annotator, row.pair_id)]
        expected_side = chosen_side if row.response == "chosen" else "AB".replace(chosen_side, "")
        assert row.side == expected_side
        assert row.score == given[row.side][row.dimension]
        assert row.seconds == seconds
    # both placements occur, so the check above covered both mappings
    assert {rated[k][0] for k in rated} == {"A", "B"}


def test_study_filter_and_empty_export(engine, rated, tmp_path):
    assert set(ratings_dataframe(engine, "other")["annotator"]) == {"carol"}
    empty = ratings_dataframe(engine, "no-such-study")
    assert tuple(empty.columns) == EXPORT_COLUMNS + PROVENANCE_EXPORT_COLUMNS
    assert len(empty) == 0
    write_ratings(empty, tmp_path / "empty.csv", "csv")
    header = ",".join(EXPORT_COLUMNS + PROVENANCE_EXPORT_COLUMNS)
    assert (tmp_path / "empty.csv").read_text().strip() == header


def test_created_at_is_iso_utc(engine, rated):
    stamps = ratings_dataframe(engine)["created_at"]
    parsed = pd.to_datetime(stamps, format="%Y-%m-%dT%H:%M:%S.%fZ", utc=True)
    now = datetime.now(UTC)
    assert stamps.str.endswith("Z").all()
    assert ((now - parsed) < timedelta(minutes=5)).all()
    assert ((now - parsed) > timedelta(seconds=-5)).all()


def test_export_holds_current_scores_not_revisions(engine, rated):
    with read_session(engine) as session:
        item = session.exec(select(Assignment).order_by(Assignment.id)).first()
        name = session.get(Annotator, item.annotator_id).name
        record_id = session.get(Pair, item.pair_id).record_id
    revised = {"A": dict.fromkeys(DIMENSIONS, 3), "B": dict.fromkeys(DIMENSIONS, 3)}
    submit_rating(
        engine,
        annotator_id=item.annotator_id,
        assignment_id=item.id,
        scores=revised,
        seconds=1,
    )
    frame = ratings_dataframe(engine)
    mine = frame[(frame["annotator"] == name) & (frame["pair_id"] == record_id)]
    assert len(mine) == 8
    assert set(mine["score"]) == {3}
    assert len(frame) == (2 * 6 + 1) * 8


def _read(data: bytes, fmt: str) -> pd.DataFrame:
    if fmt == "csv":
        return pd.read_csv(io.BytesIO(data), dtype={"pair_id": str})
    if fmt == "jsonl":
        # plain json: every value keeps the JSON type it was written with (10.0 stays a float)
        return pd.DataFrame([json.loads(line) for line in data.decode("utf-8").splitlines()])
    return pd.read_parquet(io.BytesIO(data))


@pytest.mark.parametrize("fmt", EXPORT_FORMATS)
def test_every_format_round_trips_the_same_content(engine, rated, tmp_path, fmt):
    frame = ratings_dataframe(engine)
    path = tmp_path / f"ratings.{fmt}"
    write_ratings(frame, path, fmt)
    assert not path.with_name(path.name + ".part").exists()
    data = path.read_bytes()
    assert data == ratings_bytes(frame, fmt)
    back = _read(data, fmt)
    assert tuple(back.columns) == EXPORT_COLUMNS + PROVENANCE_EXPORT_COLUMNS
    fixed = list(EXPORT_COLUMNS)
    assert back[fixed].to_dict("records") == frame[fixed].to_dict("records")
    assert back["score"].dtype.kind == "i"
    assert back["seconds"].dtype.kind == "f"


def test_unknown_format_is_refused(engine, tmp_path):
    frame = ratings_dataframe(engine)
    with pytest.raises(ValueError, match="unknown format 'xlsx'"):
        write_ratings(frame, tmp_path / "x.xlsx", "xlsx")
    with pytest.raises(ValueError, match="unknown format"):
        ratings_bytes(frame, "xml")
    assert not (tmp_path / "x.xlsx").exists()


@pytest.mark.postgres_only
def test_times_are_utc_whatever_the_servers_time_zone(db_url, tmp_path, write_records, make_record):
    database = make_url(db_url).database
    setup = make_engine(db_url)
    with setup.begin() as connection:
        connection.exec_driver_sql(f"ALTER DATABASE \"{database}\" SET timezone = 'Asia/Kolkata'")
    setup.dispose()
    engine = make_engine(db_url)  # new connections get the +05:30 session time zone
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("SHOW timezone").scalar() == "Asia/Kolkata"
        path = write_records(tmp_path / "A_test.jsonl", [make_record("1")])
        import_files(engine, SYSTEM, [path], study="tz")
        rate_everything(engine, "tz", ["ravi"], 1)
        stamps = pd.to_datetime(ratings_dataframe(engine)["created_at"], utc=True)
        offset = (datetime.now(UTC) - stamps).abs().max()
        assert offset < timedelta(minutes=5)
    finally:
        engine.dispose()


def test_gold_pairs_are_left_out_of_the_export(engine, rated):
    """Gold pairs (known answer, rated by everyone outside k) are quality control, not data."""
    from annotate.domain.rating.quality import mark_gold
    from annotate.domain.study.studies import get_study

    before = ratings_dataframe(engine, "main")
    with write_session(engine) as session:
        mark_gold(session, get_study(session, "main"), ["2_0_0"], "chosen")
    after = ratings_dataframe(engine, "main")
    assert "2_0_0" in set(before["pair_id"])
    assert "2_0_0" not in set(after["pair_id"])
    assert len(after) == len(before) - 2 * len(DIMENSIONS) * 2  # alice's and bob's 8 scores
    assert after.equals(before[before["pair_id"] != "2_0_0"].reset_index(drop=True))


def test_a_comment_with_a_carriage_return_stays_in_its_cell(engine, rated, tmp_path):
    from sqlmodel import select

    from annotate.db import write_session
    from annotate.db.tables import Assignment

    with write_session(engine) as session:
        first = session.exec(select(Assignment).order_by(Assignment.id)).first()
        assert first is not None
        first.comment = "line one\rline two"  # nothing else in it that calls for quotes
    frame = ratings_dataframe(engine, "main")
    write_ratings(frame, tmp_path / "r.csv", "csv")
    back = pd.read_csv(tmp_path / "r.csv", dtype={"pair_id": "str"}, keep_default_na=False)
    assert len(back) == len(frame)  # no row split by the carriage return
    assert set(back["comment"]) == {"", "line one\rline two"}
