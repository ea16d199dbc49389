"""Loading and validating ratings exports."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from analysis.core.ratings import RatingsError, load_ratings, validate_ratings
from annotate.vocabulary import EXPORT_COLUMNS


@pytest.mark.parametrize("suffix", ["csv", "jsonl", "parquet"])
def test_load_each_format_round_trips(small_study, tmp_path, suffix):
    path = tmp_path / f"ratings.{suffix}"
    if suffix == "csv":
        small_study.to_csv(path, index=False)
    elif suffix == "jsonl":
        small_study.to_json(path, orient="records", lines=True)
    else:
        small_study.to_parquet(path)
    loaded = load_ratings(path)
    assert list(loaded.columns) == list(EXPORT_COLUMNS)
    assert loaded["score"].dtype == np.int64
    pd.testing.assert_frame_equal(
        loaded.drop(columns="created_at"), small_study.drop(columns="created_at"), check_dtype=False
    )


def test_dataframe_accepted_directly_and_pair_ids_kept_as_text(small_study):
    df = small_study[small_study["pair_id"] == small_study["pair_id"].iloc[0]].copy()
    df["pair_id"] = "007"
    df["score"] = df["score"].astype(float)  # e.g. from a database driver
    out = load_ratings(df)
    assert out["pair_id"].iloc[0] == "007"
    assert out["score"].dtype == np.int64


def test_csv_numeric_looking_pair_ids_stay_text(small_study, tmp_path):
    df = small_study.copy()
    df["pair_id"] = df["pair_id"].str.replace("p", "0")
    path = tmp_path / "r.csv"
    df.to_csv(path, index=False)
    assert load_ratings(path)["pair_id"].iloc[0].startswith("0")


def _with(df: pd.DataFrame, row: int, column: str, value) -> pd.DataFrame:
    df = df.copy()
    if column == "score" and not isinstance(value, int):
        df["score"] = df["score"].astype(object)
    df.loc[row, column] = value
    return df


def test_unknown_dimension_names_row_and_column(small_study):
    with pytest.raises(RatingsError) as info:
        validate_ratings(_with(small_study, 4, "dimension", "fluency"))
    err = info.value
    assert (err.row, err.column) == (5, "dimension")
    assert "row 5" in str(err)
    assert "'fluency'" in str(err)
    assert "rubric_alignment" in str(err)


def test_score_off_scale_names_csv_line(small_study, tmp_path):
    path = tmp_path / "r.csv"
    _with(small_study, 9, "score", 7).to_csv(path, index=False)
    with pytest.raises(RatingsError) as info:
        load_ratings(path)
    assert info.value.row == 11  # header is line 1, data row 9 (0-based) is line 11
    assert info.value.column == "score"
    assert "r.csv line 11" in str(info.value)
    assert "from 1 to 5" in str(info.value)


def test_score_within_custom_scale_is_accepted(small_study):
    out = validate_ratings(_with(small_study, 0, "score", 7), scale_min=1, scale_max=7)
    assert out["score"].iloc[0] == 7


@pytest.mark.parametrize("value", [3.5, "good", None])
def test_non_integer_or_missing_score(small_study, value):
    with pytest.raises(RatingsError) as info:
        validate_ratings(_with(small_study, 2, "score", value))
    assert (info.value.row, info.value.column) == (3, "score")


def test_missing_column(small_study):
    with pytest.raises(RatingsError) as info:
        validate_ratings(small_study.drop(columns="side"))
    assert info.value.column == "side"
    assert "missing column 'side'" in str(info.value)


@pytest.mark.parametrize(
    ("column", "value"), [("response", "preferred"), ("side", "C"), ("annotator", None)]
)
def test_bad_values(small_study, column, value):
    with pytest.raises(RatingsError) as info:
        validate_ratings(_with(small_study, 6, column, value))
    assert (info.value.row, info.value.column) == (7, column)


def test_negative_seconds(small_study):
    with pytest.raises(RatingsError, match="seconds"):
        validate_ratings(_with(small_study, 1, "seconds", -3.0))


def test_empty_seconds_allowed(small_study):
    out = validate_ratings(_with(small_study, 1, "seconds", np.nan))
    assert np.isnan(out["seconds"].iloc[1])


def test_duplicate_score_is_rejected(small_study):
    df = pd.concat([small_study, small_study.iloc[[3]]], ignore_index=True)
    with pytest.raises(RatingsError) as info:
        validate_ratings(df)
    assert info.value.row == len(df)
    assert "one score per pair" in str(info.value)


def test_inconsistent_side_is_rejected(small_study):
    df = small_study.copy()
    first = df.index[(df["response"] == "chosen")][1]
    df.loc[first, "side"] = "B" if df.loc[first, "side"] == "A" else "A"
    with pytest.raises(RatingsError) as info:
        validate_ratings(df)
    assert info.value.column in {"side", "response"}


def test_pair_with_two_domains_is_rejected(small_study):
    df = small_study.copy()
    df.loc[5, "domain"] = "Other"
    with pytest.raises(RatingsError, match="domain"):
        validate_ratings(df)


def test_jsonl_line_numbers_count_blank_lines(small_study, tmp_path):
    rows = small_study.head(3).to_dict(orient="records")
    rows[2]["dimension"] = "fluency"
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join([json.dumps(rows[0]), "", json.dumps(rows[1]), json.dumps(rows[2])]))
    with pytest.raises(RatingsError) as info:
        load_ratings(path)
    assert info.value.row == 4
    assert "r.jsonl line 4" in str(info.value)


def test_invalid_json_line(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"study": "s"}\n{not json\n')
    with pytest.raises(RatingsError, match="line 2"):
        load_ratings(path)


def test_unknown_extension_and_missing_file(tmp_path):
    path = tmp_path / "r.xlsx"
    path.write_text("x")
    with pytest.raises(RatingsError, match="unknown file type"):
        load_ratings(path)
    with pytest.raises(RatingsError, match="no such file"):
        load_ratings(tmp_path / "absent.csv")


def test_empty_input():
    with pytest.raises(RatingsError, match="no rows"):
        validate_ratings(pd.DataFrame(columns=list(EXPORT_COLUMNS)))
