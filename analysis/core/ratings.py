"""Reading and checking a ratings export (one row per score).

The export format is fixed (``annotate.vocabulary.EXPORT_COLUMNS``):
``study, pair_id, domain, annotator, response, side, dimension, score, seconds, created_at``.
Files are csv, jsonl or parquet, chosen by extension. Every problem raises :class:`RatingsError`
naming where it is (1-based line for csv/jsonl, 1-based row for parquet and DataFrames), the
column, what was expected and what was found.

An export's provenance columns may mark rows that are not ordinary judgements: a skipped
assignment (``status`` 'skipped', no score) and an adjudication (``purpose`` 'adjudication').
:func:`ordinary_rows` leaves them out, and the validation reads only ordinary rows (the
adjudications are read on their own by :mod:`analysis.designs.adjudication`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.core.coded import BoolArray, IntArray
from annotate.errors import Invalid
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire
from annotate.vocabulary import EXPORT_COLUMNS, RESPONSES, SCALE_MAX, SCALE_MIN, SIDES

PURPOSE_COLUMN = "purpose"
STATUS_COLUMN = "status"
ORDINARY_PURPOSE = "rating"
ADJUDICATION_PURPOSE = "adjudication"
SKIPPED_STATUS = "skipped"

REQUIRED_VALUES = ("pair_id", "annotator", "response", "side", "dimension", "score")
"""Columns that must hold a value in every row; ``study``, ``domain``, ``seconds`` and
``created_at`` may be empty (``study``/``domain`` then read as ``""``)."""

TEXT_COLUMNS = ("study", "pair_id", "domain", "annotator", "response", "side", "dimension")

Locator = Callable[[int], tuple[str, int]]
"""Maps a 0-based row position to (description such as "line 7 of x.csv", 1-based number)."""


class RatingsError(Invalid):
    """Bad ratings input. ``row`` is the 1-based line (csv/jsonl) or row; ``column`` the column."""

    def __init__(self, message: str, *, row: int | None = None, column: str | None = None):
        super().__init__(message)
        self.row = row
        self.column = column


def purpose_mask(df: pd.DataFrame, purpose: str = ORDINARY_PURPOSE) -> BoolArray:
    """Rows of scores given for ``purpose`` ('rating' or 'adjudication'): skip rows left out; a
    file without a purpose column holds ordinary ratings only."""
    mask: BoolArray
    if PURPOSE_COLUMN in df.columns:
        given = df[PURPOSE_COLUMN]
        mask = np.array(given == purpose, dtype=bool)
        if purpose == ORDINARY_PURPOSE:
            mask |= np.array(given.isna(), dtype=bool)
    else:
        mask = np.full(len(df), purpose == ORDINARY_PURPOSE)
    if STATUS_COLUMN in df.columns:
        mask &= np.array(df[STATUS_COLUMN] != SKIPPED_STATUS, dtype=bool)
    return mask


def ordinary_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of ordinary judgements: no skip rows, no adjudications."""
    mask = purpose_mask(df)
    return df if mask.all() else df[mask]


def load_ratings(
    source: str | Path | pd.DataFrame,
    scale_min: int = SCALE_MIN,
    scale_max: int = SCALE_MAX,
    *,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> pd.DataFrame:
    """Read a ratings file (csv, jsonl, parquet) or take a DataFrame, and validate it (each
    row's `dimension` a key of `questionnaire`)."""
    if isinstance(source, pd.DataFrame):
        return validate_ratings(source, scale_min, scale_max, questionnaire=questionnaire)
    path = Path(source)
    if not path.is_file():
        raise RatingsError(f"{path}: no such file")
    raw, locate = read_raw(path)
    return _validate(raw, (scale_min, scale_max), locate, questionnaire=questionnaire)


def validate_ratings(
    df: pd.DataFrame,
    scale_min: int = SCALE_MIN,
    scale_max: int = SCALE_MAX,
    purpose: str = ORDINARY_PURPOSE,
    *,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> pd.DataFrame:
    """Check a ratings DataFrame and return a clean copy with typed columns in export order:
    the rows given for ``purpose`` (ordinary ratings, or adjudications), no skip rows.

    Rows are named by their 1-based position in ``df``.
    """
    locate: Locator = lambda pos: (f"row {pos + 1}", pos + 1)  # noqa: E731
    return _validate(df, (scale_min, scale_max), locate, purpose, questionnaire)


def read_raw(path: Path) -> tuple[pd.DataFrame, Locator]:
    """Read a file without checking its content; return it and a row locator."""
    suffix = path.suffix.lower()
    name = path.name
    try:
        if suffix == ".csv":
            df = pd.read_csv(path, dtype=dict.fromkeys(TEXT_COLUMNS, "str"), keep_default_na=True)
            return df, lambda pos: (f"{name} line {pos + 2}", pos + 2)
        if suffix in (".jsonl", ".ndjson"):
            return _read_jsonl(path)
        if suffix in (".parquet", ".pq"):
            df = pd.read_parquet(path)
            return df, lambda pos: (f"{name} row {pos + 1}", pos + 1)
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        if isinstance(exc, RatingsError):
            raise
        raise RatingsError(f"{name}: cannot read the file: {exc}") from exc
    raise RatingsError(f"{name}: unknown file type {suffix!r}; expected .csv, .jsonl or .parquet")


def _read_jsonl(path: Path) -> tuple[pd.DataFrame, Locator]:
    """Parse JSON lines one by one so a broken line is reported by number; skip blank lines."""
    records: list[dict[str, object]] = []
    line_numbers: list[int] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise RatingsError(
                    f"{path.name} line {number}: expected a JSON object, "
                    f"got invalid JSON ({exc.msg})",
                    row=number,
                ) from exc
            if not isinstance(record, dict):
                raise RatingsError(
                    f"{path.name} line {number}: expected a JSON object, "
                    f"got {type(record).__name__}",
                    row=number,
                )
            records.append(record)
            line_numbers.append(number)
    df = pd.DataFrame.from_records(records)
    lines = np.asarray(line_numbers, dtype=np.int64)
    return df, lambda pos: (f"{path.name} line {lines[pos]}", int(lines[pos]))


def _fail(
    locate: Locator, mask: BoolArray, column: str, expected: str, values: pd.Series | None = None
) -> None:
    """Raise for the first True in ``mask`` (if any), mentioning how many other rows are bad."""
    bad = np.flatnonzero(mask)
    if bad.size == 0:
        return
    where, number = locate(int(bad[0]))
    got = ""
    if values is not None:
        value = values.iloc[bad[0]]
        value = value.item() if isinstance(value, np.generic) else value  # 3, not np.int64(3)
        got = ", got an empty cell" if pd.isna(value) else f", got {value!r}"
    more = f" ({bad.size - 1} more rows like this)" if bad.size > 1 else ""
    raise RatingsError(
        f"{where}, column '{column}': expected {expected}{got}{more}", row=number, column=column
    )


def _validate(
    df: pd.DataFrame,
    scale: tuple[int, int],
    locate: Locator,
    purpose: str = ORDINARY_PURPOSE,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> pd.DataFrame:
    scale_min, scale_max = scale
    if scale_min >= scale_max:
        raise ValueError(f"scale_min ({scale_min}) must be below scale_max ({scale_max})")
    missing = [c for c in EXPORT_COLUMNS if c not in df.columns]
    if missing:
        raise RatingsError(
            f"missing column '{missing[0]}'; expected columns: {', '.join(EXPORT_COLUMNS)}",
            column=missing[0],
        )
    mask = purpose_mask(df, purpose)
    if not mask.all():
        df, locate = df[mask], _kept_locator(locate, np.flatnonzero(mask))
    if len(df) == 0:
        raise RatingsError("no ratings: the input has no rows")
    df = df.reset_index(drop=True)
    for column in REQUIRED_VALUES:
        _fail(locate, df[column].isna().to_numpy(), column, "a value", df[column])
    out = pd.DataFrame(index=df.index)
    for column in TEXT_COLUMNS:
        out[column] = df[column].fillna("").astype("str")
    check_allowed(out, "response", RESPONSES, locate)
    check_allowed(out, "side", SIDES, locate)
    check_allowed(out, "dimension", questionnaire.keys, locate)
    out["score"] = checked_integers(df["score"], scale_min, scale_max, locate)
    _check_choices(out, questionnaire, locate)
    out["seconds"] = _checked_seconds(df["seconds"], locate)
    out["created_at"] = df["created_at"].fillna("").astype("str")
    out = out[list(EXPORT_COLUMNS)]
    _check_structure(out, locate)
    return out


def _check_choices(df: pd.DataFrame, questionnaire: Questionnaire, locate: Locator) -> None:
    """A choice question's score is the choice's position, 1 to the number of choices."""
    for question in questionnaire.questions:
        if question.is_scale:
            continue
        n = len(question.choices)
        bad = (df["dimension"] == question.key) & ~df["score"].between(1, n)
        expected = f"for question {question.key!r}, a choice from 1 to {n}"
        _fail(locate, bad.to_numpy(), "score", expected, df["score"])


def _kept_locator(locate: Locator, kept: IntArray) -> Locator:
    """The locator of the kept rows ``kept`` (positions in the whole input)."""

    def located(pos: int) -> tuple[str, int]:
        return locate(int(kept[pos]))

    return located


def check_allowed(df: pd.DataFrame, column: str, allowed: tuple[str, ...], locate: Locator) -> None:
    expected = "one of " + ", ".join(repr(v) for v in allowed)
    _fail(locate, ~df[column].isin(allowed).to_numpy(), column, expected, df[column])


def checked_integers(
    raw: pd.Series, scale_min: int, scale_max: int, locate: Locator, column: str = "score"
) -> pd.Series:
    """The column as int64; RatingsError at the first value that is not an integer in range."""
    expected = f"an integer from {scale_min} to {scale_max}"
    if raw.dtype == bool:
        _fail(locate, np.ones(len(raw), dtype=bool), column, expected, raw)
    numeric = pd.to_numeric(raw, errors="coerce").astype("float64").to_numpy()
    bad = ~np.isfinite(numeric)
    bad |= np.where(bad, False, numeric != np.round(numeric))
    bad |= np.where(bad, False, (numeric < scale_min) | (numeric > scale_max))
    _fail(locate, bad, column, expected, raw)
    return pd.Series(numeric.astype(np.int64), index=raw.index)


def _checked_seconds(raw: pd.Series, locate: Locator) -> pd.Series:
    numeric = pd.to_numeric(raw, errors="coerce").astype("float64")
    bad = (numeric.isna() & raw.notna()) | (numeric < 0) | np.isinf(numeric)
    _fail(locate, bad.to_numpy(), "seconds", "a non-negative number of seconds or empty", raw)
    return numeric


def _check_structure(df: pd.DataFrame, locate: Locator) -> None:
    """Checks across rows: one score per (pair, annotator, response, dimension); each response
    shown on one side per (annotator, pair), chosen and rejected on different sides; one domain
    per pair."""
    pair = df.groupby(["study", "pair_id"], sort=False).ngroup().to_numpy(np.int64)
    annotator = pd.factorize(df["annotator"])[0].astype(np.int64)
    rating = pair * (int(annotator.max()) + 1) + annotator
    response = (df["response"].to_numpy() == "rejected").astype(np.int64)
    side = (df["side"].to_numpy() == "B").astype(np.int64)
    dimension = pd.factorize(df["dimension"])[0].astype(np.int64)

    score_key = (rating * 2 + response) * (int(dimension.max()) + 1) + dimension
    duplicate = pd.Series(score_key).duplicated().to_numpy()
    _fail(
        locate,
        duplicate,
        "dimension",
        "one score per pair, annotator, response and dimension (this one repeats an earlier row)",
        df["dimension"],
    )
    _fail_if_varies(
        locate,
        rating * 2 + response,
        side,
        df["side"],
        "side",
        "the same side as this annotator's other scores of this response on this pair",
    )
    _fail_if_varies(
        locate,
        rating * 2 + side,
        response,
        df["response"],
        "response",
        "chosen and rejected on different sides for one annotator and pair",
    )
    domain = pd.factorize(df["domain"])[0]
    _fail_if_varies(
        locate, pair, domain, df["domain"], "domain", "the same domain as this pair's other rows"
    )


def _fail_if_varies(
    locate: Locator,
    group: IntArray,
    codes: IntArray,
    values: pd.Series,
    column: str,
    expected: str,
) -> None:
    """Fail on the first row whose code differs from the first code seen in its group."""
    first = pd.Series(codes).groupby(group, sort=False).transform("first").to_numpy()
    _fail(locate, codes != first, column, expected, values)


FLAGGED_COLUMN = "flagged"
SLOT_COLUMNS = ("study", "pair_id", "annotator", "skipped", "flagged")


def assignment_slots(raw: pd.DataFrame) -> pd.DataFrame:
    """One row per ordinary assignment (a pair given to an annotator, rated or skipped) of a
    raw export: ``study, pair_id, annotator, skipped, flagged``. An export without a status
    column has no skips; one without a flagged column no flags. A skip row without a pair or
    an annotator raises :class:`RatingsError` naming its 1-based row."""
    raw = raw.reset_index(drop=True)
    ordinary = np.ones(len(raw), dtype=bool)
    if PURPOSE_COLUMN in raw.columns:
        given = raw[PURPOSE_COLUMN]
        ordinary = np.array((given == ORDINARY_PURPOSE) | given.isna(), dtype=bool)
    skipped = np.zeros(len(raw), dtype=bool)
    if STATUS_COLUMN in raw.columns:
        skipped = np.array(raw[STATUS_COLUMN] == SKIPPED_STATUS, dtype=bool) & ordinary
    for column in ("pair_id", "annotator"):
        bad = skipped & raw[column].isna().to_numpy(bool)
        _fail(lambda pos: (f"row {pos + 1}", pos + 1), bad, column, "a value on a skip row")
    flagged = np.zeros(len(raw), dtype=bool)
    if FLAGGED_COLUMN in raw.columns:
        flagged = np.array([_truthy(v) for v in raw[FLAGGED_COLUMN]], dtype=bool)
    raw = raw[ordinary]
    slots = pd.DataFrame(
        {
            "study": raw["study"].fillna("").astype("str"),
            "pair_id": raw["pair_id"].astype("str"),
            "annotator": raw["annotator"].astype("str"),
            "skipped": skipped[ordinary],
            "flagged": flagged[ordinary],
        }
    )
    grouped = slots.groupby(["study", "pair_id", "annotator"], sort=True, as_index=False)
    return grouped[["skipped", "flagged"]].max()


def _truthy(value: object) -> bool:
    """A flag cell: True, 1, 'true' (any case) or '1'; anything else (empty included) False."""
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1")
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return False
    return bool(value)
