"""The ratings export: one row per score, in the column order researchers rely on.

A study's design options add columns after the fixed ones (`annotate.vocabulary`): the direct
preference (mapped to the responses here, on the server) when a study asks for it, and each
survey question's answer as an annotator attribute (`survey_<id>`), with instructed-response
checks the annotator's failed checks (`checks_failed`), and in a comparison study the downstream
condition of each response (`condition`). The provenance columns come last, in
every export (`annotate.domain.exports.provenance`: revisions, comment, flag, skip, queue
position, display time, exclusion, adjudication), with one row per skipped assignment.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
from sqlmodel import col, select

from annotate.db.queries import Source, export_rows, session_of, side_shown
from annotate.db.tables import Annotator, Assignment, Pair, Rating, Study, stored_id
from annotate.domain.crowd.checks import check_failures
from annotate.domain.crowd.consent import survey_answers
from annotate.domain.exports.provenance import HIDDEN_COLUMNS, add_provenance
from annotate.domain.exports.spreadsheet import CSV_LINE_END, inert_frame
from annotate.domain.rating.preference import chosen_terms
from annotate.vocabulary import (
    EXPORT_COLUMNS,
    PREFERENCE_EXPORT_COLUMNS,
    SURVEY_COLUMN_PREFIX,
    Side,
)

_DESIGN_COLUMNS = (
    "_study_id",
    "_annotator_id",
    "_chosen_side",
    "_side_preference",
    "_rationale",
    "_preference_history",
)

EXPORT_FORMATS = ("csv", "jsonl", "parquet")
CHECKS_COLUMN = "checks_failed"
"""With instructed-response checks: the annotator's failed checks in the study."""
CONDITION_COLUMN = "condition"
"""A comparison study's export: the downstream condition each response stands for."""


def ratings_dataframe(
    source: Source, study: str | None = None, *, simulated: bool = True
) -> pd.DataFrame:
    """All current scores (earlier revisions in `revision_history`) of one study, or of every
    study, and one row per skipped assignment.

    Gold pairs are left out (`export_rows`); their scores feed the annotators' gold accuracy on
    the progress page instead. `source` an engine, or an open session whose snapshot it reads.
    """
    side = side_shown(col(Rating.response))
    columns: tuple[Any, ...] = (
        col(Study.name).label("study"),
        col(Pair.record_id).label("pair_id"),
        col(Pair.domain),
        col(Annotator.name).label("annotator"),
        col(Rating.response),
        side.label("side"),
        col(Rating.dimension),
        col(Rating.score),
        col(Rating.seconds),
        col(Rating.created_at),
        col(Study.id),
        col(Annotator.id),
        col(Assignment.chosen_side),
        col(Assignment.side_preference),
        col(Assignment.rationale),
        col(Assignment.preference_history),
        col(Assignment.id),
        col(Rating.id),
        col(Rating.revision),
        col(Rating.updated_at),
    )
    then_by = (col(Rating.response), col(Rating.dimension))
    rows = export_rows(source, columns, Rating, then_by, study, simulated=simulated)
    frame = pd.DataFrame(rows, columns=[*EXPORT_COLUMNS, *_DESIGN_COLUMNS, *HIDDEN_COLUMNS])
    frame["score"] = frame["score"].astype("int64")
    frame["seconds"] = frame["seconds"].astype("float64")
    # PostgreSQL returns aware times in the session's time zone, SQLite naive UTC: both to UTC.
    created = pd.to_datetime(frame["created_at"], utc=True)
    frame["created_at"] = created.dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    with session_of(source) as session:
        exported = session.exec(
            select(Study).where(col(Study.id).in_(frame["_study_id"].unique().tolist()))
        ).all()
        answers = {
            s.id: survey_answers(session, stored_id(s)) for s in exported if s.survey_questions
        }
        failures = {
            stored_id(s): check_failures(session, stored_id(s))
            for s in exported
            if s.instructed_checks
        }
    surveyed = [s for s in exported if s.survey_questions]
    _add_preference(frame, [s for s in exported if s.ask_preference])
    _add_survey_columns(frame, surveyed)
    _add_checks_column(frame, [s for s in exported if s.instructed_checks])
    _add_condition(frame, [s for s in exported if s.comparison])
    frame = add_provenance(source, frame, study)
    _fill_survey(frame, surveyed, answers)  # after the skip rows are added: theirs too
    _fill_checks(frame, failures)
    return frame.drop(columns=list(_DESIGN_COLUMNS))


def _add_preference(frame: pd.DataFrame, asking: list[Study]) -> None:
    """The direct preference, for the chosen response (+2 chosen much better .. -2 rejected
    much better) and as answered by side; empty for studies that do not ask for it."""
    if not asking:
        return
    by_side = frame["_side_preference"].astype("Int64")
    sign = frame["_chosen_side"].map({Side.B.value: 1, Side.A.value: -1}).astype("Int64")
    preference, side, rationale, history = PREFERENCE_EXPORT_COLUMNS
    frame[preference] = by_side * sign
    frame[side] = by_side
    frame[rationale] = frame["_rationale"].fillna("").astype(str)
    frame[history] = [
        _preference_history(earlier, chosen_side)
        for earlier, chosen_side in zip(
            frame["_preference_history"], frame["_chosen_side"], strict=True
        )
    ]


def _preference_history(earlier: Any, chosen_side: str) -> str:
    """A revised preference's earlier answers as JSON text, oldest first, each also in terms of
    the responses: [{preference, preference_side, rationale, replaced_at}]."""
    if isinstance(earlier, str):  # SQLite hands a JSON column back as text on a plain query
        earlier = json.loads(earlier)
    return json.dumps(
        [
            {
                "preference": chosen_terms(e["side_preference"], chosen_side),
                "preference_side": e["side_preference"],
                "rationale": e["rationale"],
                "replaced_at": e["replaced_at"],
            }
            for e in earlier or []
        ]
    )


def _add_survey_columns(frame: pd.DataFrame, surveyed: list[Study]) -> None:
    """One column per survey question id (in the design options' place, before provenance)."""
    for study in surveyed:
        for question in study.survey_questions:
            column = SURVEY_COLUMN_PREFIX + question["id"]
            if column not in frame:
                frame[column] = pd.Series(pd.NA, index=frame.index, dtype="string")


def _fill_survey(
    frame: pd.DataFrame, surveyed: list[Study], answers: dict[int | None, dict[int, dict[str, str]]]
) -> None:
    """Each survey question's answer as an annotator attribute, on every row of the annotator
    (their skip rows too)."""
    for study in surveyed:
        here = frame["_study_id"] == study.id
        given = answers[study.id]
        for question in study.survey_questions:
            column = SURVEY_COLUMN_PREFIX + question["id"]
            values = {a: g[question["id"]] for a, g in given.items() if question["id"] in g}
            frame.loc[here, column] = frame.loc[here, "_annotator_id"].map(values)


def _add_checks_column(frame: pd.DataFrame, checked: list[Study]) -> None:
    """`checks_failed`, in the design options' place (before provenance): a study with
    instructed-response checks only."""
    if checked:
        frame[CHECKS_COLUMN] = pd.Series(pd.NA, index=frame.index, dtype="Int64")


def _fill_checks(frame: pd.DataFrame, failures: dict[int, dict[int, int]]) -> None:
    """Each annotator's failed instructed-response checks in the study, on every row of theirs
    (0: every check answered was passed; empty: none answered)."""
    for study_id, counts in failures.items():
        here = frame["_study_id"] == study_id
        frame.loc[here, CHECKS_COLUMN] = (
            frame.loc[here, "_annotator_id"].map(counts).astype("Int64")
        )


def _add_condition(frame: pd.DataFrame, comparing: list[Study]) -> None:
    """A comparison study's downstream condition of each response (`condition`; `chosen` is
    the expected condition's output); empty for other studies."""
    if not comparing:
        return
    frame[CONDITION_COLUMN] = pd.Series(pd.NA, index=frame.index, dtype="string")
    for study in comparing:
        here = frame["_study_id"] == study.id
        names = {"chosen": study.comparison["expected"], "rejected": study.comparison["baseline"]}
        frame.loc[here, CONDITION_COLUMN] = frame.loc[here, "response"].map(names)


def write_ratings(frame: pd.DataFrame, path: Path, fmt: str) -> None:
    """Write the export to `path` (written to a temporary name, then moved into place)."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(EXPORT_FORMATS)}")
    tmp = path.with_name(path.name + ".part")
    if fmt == "csv":
        tmp.write_bytes(csv_text(frame).encode("utf-8"))
    elif fmt == "jsonl":
        frame.to_json(tmp, orient="records", lines=True, force_ascii=False)
    else:
        frame.to_parquet(tmp, index=False)
    tmp.replace(path)


def csv_text(frame: pd.DataFrame) -> str:
    """The export as CSV: rows end in CRLF, true/false are written TRUE/FALSE, which both
    R's `read.csv` (logical; it reads pandas' True/False as text) and pandas (bool) read, and a
    text a spreadsheet would run as a formula (a comment "=HYPERLINK(...)") starts with an
    apostrophe (`annotate.domain.exports.spreadsheet`); Parquet and JSONL keep the raw values."""
    logical = {
        c: frame[c].map({True: "TRUE", False: "FALSE"}) for c in frame if frame[c].dtype == bool
    }
    safe = inert_frame(frame.assign(**logical))
    text: str = safe.to_csv(index=False, lineterminator=CSV_LINE_END)
    return text


def ratings_bytes(frame: pd.DataFrame, fmt: str) -> bytes:
    """The export as bytes, for a download button."""
    if fmt == "csv":
        return csv_text(frame).encode("utf-8")
    if fmt == "jsonl":
        text: str = frame.to_json(orient="records", lines=True, force_ascii=False)
        return text.encode("utf-8")
    if fmt == "parquet":
        data: bytes = frame.to_parquet(index=False)
        return data
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(EXPORT_FORMATS)}")
