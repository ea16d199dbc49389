"""The preference export (issue 35.3) on a real database (SQLite, or PostgreSQL with
PRB_TEST_DATABASE_URL): TRL's standard preference columns and the human figures per pair, as
`datasets.load_dataset` reads the Parquet and JSONL files; `--agreeing-only`; a pair nobody rated
(kept, its figures empty); hostile response text kept as data; the conversational format of a
pair with earlier turns.

The expected verdicts are written out by hand from the scores given below, not recomputed."""

from __future__ import annotations

import json
import math

import datasets
import pytest
from sqlalchemy import update
from sqlmodel import select
from typer.testing import CliRunner

from annotate.cli.common import State, app
from annotate.db import write_session
from annotate.db.tables import Pair
from annotate.domain.assignment import PairSelection
from annotate.domain.exports.preference import (
    PREFERENCE_COLUMNS,
    conversational_row,
    pair_of,
    preference_frame,
)
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin import flags, plans
from annotate.services.admin.preference import export_preference
from annotate.services.participant.rating import skip_pair
from annotate.vocabulary import DIMENSIONS
from tests.helpers.admin_helpers import assignments, make_people, make_study, rate

HOSTILE = "<script>alert(1)</script>\n---\nconfigs: []\n| a | b | {{ x }} [link](javascript:x)"
RUBRIC = {  # pair -> each annotator's rubric_alignment (chosen, rejected); other dims 3 vs 3
    "p000": [(5, 1), (4, 2), (4, 3)],  # all chosen: verdict chosen, agreement 1
    "p001": [(4, 2), (4, 2), (2, 4)],  # 2 of 3 chosen: chosen, 2/3
    "p002": [(4, 2), (2, 4), (3, 3)],  # one vote each: tie, 1/3
    "p003": [(1, 5), (2, 4), (4, 2)],  # rejected, 1/3
    # p004: nobody rated it
}
EXPECTED = {
    "p000": (3, 1.0, "chosen", True),
    "p001": (3, 2 / 3, "chosen", True),
    "p002": (3, 1 / 3, "tie", False),
    "p003": (3, 1 / 3, "rejected", False),
    "p004": (0, None, None, None),
}


@pytest.fixture
def rated(engine):
    """Study `s`: 5 pairs, 3 annotators each; p000-p003 rated as RUBRIC says, p004 not rated;
    p001's chosen response is hostile text."""
    study_id = make_study(engine, "s", pairs=5, overlap=3)
    ids = make_people(engine, 3)
    plans.make_plan(
        engine, SYSTEM, study="s", annotators=["a0", "a1", "a2"], selection=PairSelection()
    )
    with write_session(engine) as session:
        session.execute(update(Pair).where(Pair.record_id == "p001").values(chosen=HOSTILE))
        record_ids = {p.id: p.record_id for p in session.exec(select(Pair)).all()}
    for item in assignments(engine, study_id):
        record = record_ids[item.pair_id]
        if record not in RUBRIC:
            continue
        chosen, rejected = RUBRIC[record][ids.index(item.annotator_id)]
        other = "B" if item.chosen_side == "A" else "A"
        given = {
            item.chosen_side: {**dict.fromkeys(DIMENSIONS, 3), "rubric_alignment": chosen},
            other: {**dict.fromkeys(DIMENSIONS, 3), "rubric_alignment": rejected},
        }
        rate(engine, item.annotator_id, item.id, given=given)
    return engine


def _figures(rows: list[dict]) -> dict[str, tuple]:
    return {
        r["pair_id"]: (r["n_annotators"], r["human_agreement"], r["verdict"], r["label_held"])
        for r in rows
    }


def _same(found: dict[str, tuple], expected: dict[str, tuple]) -> None:
    assert found.keys() == expected.keys()
    for pair, (n, agreement, verdict, held) in expected.items():
        got = found[pair]
        assert got[0] == n, pair
        assert (got[1] is None) if agreement is None else math.isclose(got[1], agreement), pair
        assert (got[2], got[3]) == (verdict, held), pair


def _export(db_url, path, *extra: str) -> str:
    try:
        result = CliRunner().invoke(
            app, ["--db", db_url, "export", "--kind", "preference", "-s", "s", "-o", str(path),
                  *extra],
        )  # fmt: skip
    finally:
        if State._engine is not None:
            State._engine.dispose()
    assert result.exit_code == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.parametrize(("fmt", "builder"), [("parquet", "parquet"), ("jsonl", "json")])
def test_the_export_loads_with_datasets_in_trl_standard_format(
    rated, db_url, tmp_path, fmt, builder
):
    folder = tmp_path / "out"
    folder.mkdir()
    printed = _export(db_url, folder / f"train.{fmt}", "--format", fmt)
    assert "Wrote 5 pairs" in printed
    loaded = datasets.load_dataset(
        builder, data_dir=str(folder), split="train", cache_dir=str(tmp_path / "cache")
    )
    assert loaded.column_names == list(PREFERENCE_COLUMNS)
    # pandas 3 writes its text columns to Parquet as large_string: text either way
    types = {
        name: str(feature.dtype).replace("large_string", "string")
        for name, feature in loaded.features.items()
    }
    assert types == {
        "prompt": "string",
        "chosen": "string",
        "rejected": "string",
        "pair_id": "string",
        "domain": "string",
        "n_annotators": "int64",
        "human_agreement": "float64",
        "verdict": "string",
        "label_held": "bool",
    }
    rows = list(loaded)
    _same(_figures(rows), EXPECTED)
    by_id = {r["pair_id"]: r for r in rows}
    assert by_id["p001"]["chosen"] == HOSTILE  # kept as data, byte for byte
    assert by_id["p000"]["prompt"] == "Question p000?"
    assert by_id["p000"]["rejected"] == "rejected text p000"
    # nothing about the annotators
    text = (folder / f"train.{fmt}").read_bytes()
    assert b"a0" not in text
    assert b"a1" not in text


def test_agreeing_only_keeps_the_pairs_whose_majority_agrees(rated, db_url, tmp_path):
    path = tmp_path / "agreeing.jsonl"
    assert "Wrote 2 pairs" in _export(db_url, path, "-f", "jsonl", "--agreeing-only")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    _same(_figures(rows), {k: EXPECTED[k] for k in ("p000", "p001")})


def test_a_pair_an_admin_excluded_is_left_out(rated):
    flags.exclude_pair(rated, SYSTEM, study="s", record_id="p000", reason="label wrong")
    frame = export_preference(rated, SYSTEM, "s")
    assert list(frame["pair_id"]) == ["p001", "p002", "p003", "p004"]


def test_csv_or_no_study_is_refused(rated, db_url, tmp_path):
    runner = CliRunner()
    for args, said in (
        (["-s", "s", "-f", "csv"], "expected one of jsonl, parquet for --kind preference"),
        (["-f", "parquet"], "give --study"),
    ):
        result = runner.invoke(
            app,
            ["--db", db_url, "export", "--kind", "preference", "-o", str(tmp_path / "x"), *args],
        )
        assert result.exit_code == 1, result.stdout
        assert said in result.stderr
    assert not (tmp_path / "x").exists()


def test_a_pair_with_earlier_turns_is_written_as_messages():
    earlier = [
        {"role": "user", "content": "I read on the train."},
        {"role": "assistant", "content": "What do you like?"},
    ]
    single = pair_of(
        {"pair_id": "p", "domain": "Art", "question": "Q?", "chosen": "C", "rejected": "R"}
    )
    turns = pair_of({**single.__dict__, "pair_id": "t", "conversation": earlier})
    assert conversational_row(turns) == {
        "prompt": [*earlier, {"role": "user", "content": "Q?"}],
        "chosen": [{"role": "assistant", "content": "C"}],
        "rejected": [{"role": "assistant", "content": "R"}],
    }
    # one file, one format: the single-turn pair becomes one user message
    frame = preference_frame([single, turns], _no_votes())
    assert frame.loc[0, "prompt"] == [{"role": "user", "content": "Q?"}]
    assert frame.loc[1, "chosen"] == [{"role": "assistant", "content": "C"}]
    assert list(frame["n_annotators"]) == [0, 0]


def test_conversational_rows_load_as_message_lists(tmp_path):
    earlier = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
    pair = pair_of(
        {"pair_id": "t", "domain": "Art", "question": "Q?", "chosen": "C", "rejected": "R",
         "conversation": earlier}
    )  # fmt: skip
    path = tmp_path / "train.parquet"
    preference_frame([pair], _no_votes()).to_parquet(path, index=False)
    loaded = datasets.load_dataset(
        "parquet", data_files=str(path), split="train", cache_dir=str(tmp_path / "cache")
    )
    row = loaded[0]
    assert row["prompt"][-1] == {"role": "user", "content": "Q?"}
    assert row["chosen"] == [{"role": "assistant", "content": "C"}]


def _no_votes():
    import pandas as pd

    return pd.DataFrame(
        {"n_annotators": [], "n_chosen": [], "verdict": []}, index=pd.Index([], name="pair_id")
    )


def test_a_study_nobody_rated_exports_every_pair_without_figures(engine):
    make_study(engine, "s", pairs=3, overlap=1)
    frame = export_preference(engine, SYSTEM, "s")
    assert list(frame["pair_id"]) == ["p000", "p001", "p002"]
    assert list(frame["n_annotators"]) == [0, 0, 0]
    assert frame["verdict"].isna().all()
    assert frame["label_held"].isna().all()
    assert export_preference(engine, SYSTEM, "s", agreeing_only=True).empty


def test_a_skipped_pair_casts_no_vote(engine):
    study_id = make_study(engine, "s", pairs=2, overlap=1)
    make_people(engine, 1)
    plans.make_plan(engine, SYSTEM, study="s", annotators=["a0"], selection=PairSelection())
    first = min(assignments(engine, study_id), key=lambda a: a.pair_id)
    skip_pair(engine, annotator_id=first.annotator_id, assignment_id=first.id, reason="off topic")
    frame = export_preference(engine, SYSTEM, "s")
    assert list(frame["n_annotators"]) == [0, 0]
