"""Where each exported score comes from (issue 15.6): the provenance columns of the export.

`add_provenance` appends `vocabulary.PROVENANCE_EXPORT_COLUMNS` to the ratings export, after
the fixed and design columns: the assignment's purpose and status, the score's revision and its
earlier values (JSON), the annotator's comment and flag, what an admin did with the flag, the
skip reason, the pair's place in the annotator's queue, when the pair was shown, the quality
signals the browser counted while it was shown (focus losses, pastes into the rationale:
`annotate.domain.rating.signals`; the time on the pair is `seconds`), and whether the pair is
excluded from the analysis (with the reason). A skipped assignment has no scores, so it
is one row of its own: `status` 'skipped', the skip reason, and empty response, side, dimension,
score, seconds and created_at. The analysis leaves skip rows and adjudications out of its
ordinary figures (`analysis.core.ratings.ordinary_rows`).
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
from sqlalchemy import select as sa_select
from sqlmodel import col

from annotate.db.queries import Source, connection_of, joined_assignments
from annotate.db.tables import (
    Annotator,
    Assignment,
    FlagResolution,
    Pair,
    PairExclusion,
    Rating,
    RatingRevision,
    Study,
)
from annotate.vocabulary import PROVENANCE_EXPORT_COLUMNS, AssignmentStatus

ASSIGNMENT_ID = "_assignment_id"
RATING_ID = "_rating_id"
REVISION = "_revision"
SAVED_AT = "_updated_at"
HIDDEN_COLUMNS = (ASSIGNMENT_ID, RATING_ID, REVISION, SAVED_AT)
"""The export query's hidden columns this module needs (dropped before the export is returned):
the assignment and rating ids, the score's revision and its last save."""

COLUMN_NOTES: dict[str, str] = {
    "purpose": "'rating' (one of the pair's k) or 'adjudication' (of a disputed pair)",
    "status": "the assignment's status: 'done', or 'skipped' (a row without scores)",
    "revision": "the score's revision, 1 for a score never changed (empty on skip rows)",
    "revision_history": "earlier values as JSON: [{revision, score, seconds, created_at, "
    "replaced_at}], oldest first; [] if never revised",
    "comment": "the annotator's comment on the pair",
    "flagged": "true when the annotator flagged the pair",
    "flag_reason": "the annotator's reason for the flag",
    "flag_resolution": "what an admin did with the flag or skip: 'resolved' or 'adjudication'",
    "flag_note": "the admin's note with that resolution",
    "skip_reason": "why the annotator skipped the pair (skip rows)",
    "queue_position": "the pair's place in the annotator's shuffled queue, from 0",
    "shown_at": "when the pair was shown for the submit that gave the score (UTC)",
    "focus_losses": "times the page lost focus (tab hidden, window left) while the pair was "
    "shown, summed over its saved submits; empty: not counted",
    "pastes": "pastes into the rationale while the pair was shown (the count, never the text), "
    "summed over its saved submits; empty: not counted",
    "pair_excluded": "true when an admin left the pair out of the analysis",
    "exclusion_reason": "the admin's reason for leaving the pair out",
}
"""What each provenance column holds (the README's table and the dataset card say the same)."""

_ASSIGNMENT_FIELDS = (
    "purpose",
    "status",
    "comment",
    "flagged",
    "flag_reason",
    "skip_reason",
    "queue_position",
    "focus_losses",
    "pastes",
)


def _utc_text(values: pd.Series) -> pd.Series:
    """Times as the export writes them (UTC, ISO 8601 with Z); empty when missing."""
    times = pd.to_datetime(values, utc=True)
    return times.dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ").fillna("")


def _assignments(source: Source, study: str | None) -> pd.DataFrame:
    """Every assignment of ordinary pairs (of one study, or all) with its provenance fields,
    the admin's flag resolution and the pair's current exclusion."""
    columns: tuple[Any, ...] = (
        col(Assignment.id).label(ASSIGNMENT_ID),
        col(Assignment.purpose),
        col(Assignment.status),
        col(Assignment.comment),
        col(Assignment.flagged),
        col(Assignment.flag_reason),
        col(Assignment.skip_reason),
        col(Assignment.position).label("queue_position"),
        col(Assignment.focus_losses),
        col(Assignment.pastes),
        col(Assignment.created_at).label("_assigned_at"),
        col(FlagResolution.action).label("flag_resolution"),
        col(FlagResolution.note).label("flag_note"),
        col(PairExclusion.reason).label("exclusion_reason"),
        col(Study.name).label("study"),
        col(Pair.record_id).label("pair_id"),
        col(Pair.domain),
        col(Annotator.name).label("annotator"),
        col(Assignment.annotator_id).label("_annotator_id"),
        col(Study.id).label("_study_id"),
    )
    query = (
        joined_assignments(*columns)
        .join(Study, col(Pair.study_id) == col(Study.id))
        .outerjoin(FlagResolution, col(FlagResolution.assignment_id) == col(Assignment.id))
        .outerjoin(
            PairExclusion,
            (col(PairExclusion.pair_id) == col(Pair.id)) & col(PairExclusion.reversed_at).is_(None),
        )
        .where(col(Pair.gold_preference).is_(None))
    )
    if study is not None:
        query = query.where(col(Study.name) == study)
    with connection_of(source) as connection:
        rows = connection.execute(query).all()
    return pd.DataFrame(rows, columns=[c.key for c in query.selected_columns])


def _histories(source: Source, study: str | None) -> dict[int, str]:
    """rating id -> its earlier values as JSON text: [{revision, score, seconds, created_at,
    replaced_at}, ...], oldest first (only ratings that were revised)."""
    columns: tuple[Any, ...] = (
        col(RatingRevision.rating_id),
        col(RatingRevision.revision),
        col(RatingRevision.score),
        col(RatingRevision.seconds),
        col(RatingRevision.created_at),
        col(RatingRevision.replaced_at),
    )
    query = (
        sa_select(*columns)
        .join(Rating, col(Rating.id) == col(RatingRevision.rating_id))
        .join(Assignment, col(Assignment.id) == col(Rating.assignment_id))
        .join(Study, col(Study.id) == col(Assignment.study_id))
        .order_by(col(RatingRevision.rating_id), col(RatingRevision.revision))
    )
    if study is not None:
        query = query.where(col(Study.name) == study)
    with connection_of(source) as connection:
        rows = pd.DataFrame(connection.execute(query).all(), columns=list(range(6)))
    if rows.empty:
        return {}
    rows[4], rows[5] = _utc_text(rows[4]), _utc_text(rows[5])
    out: dict[int, list[dict[str, Any]]] = {}
    for rating_id, revision, score, seconds, created, replaced in rows.itertuples(index=False):
        out.setdefault(int(rating_id), []).append(
            {
                "revision": int(revision),
                "score": int(score),
                "seconds": float(seconds),
                "created_at": created,
                "replaced_at": replaced,
            }
        )
    return {k: json.dumps(v) for k, v in out.items()}


def add_provenance(source: Source, frame: pd.DataFrame, study: str | None) -> pd.DataFrame:
    """The export with the provenance columns, and one row per skipped assignment (which has
    no scores). `frame` carries the hidden `_assignment_id` and `_rating_id` columns."""
    assignments = _assignments(source, study)
    scored = set(frame[ASSIGNMENT_ID].tolist())
    skipped = assignments[
        (assignments["status"] == AssignmentStatus.SKIPPED)
        & ~assignments[ASSIGNMENT_ID].isin(scored)
    ]
    if not skipped.empty:
        keep = [ASSIGNMENT_ID, "study", "pair_id", "domain", "annotator"]
        frame = pd.concat([frame, skipped[[*keep, "_annotator_id", "_study_id"]]])
        frame = frame.sort_values(["study", "pair_id", "annotator"], kind="stable")
        frame = frame.reset_index(drop=True)
        frame["score"] = frame["score"].astype("Int64")
        for text in ("response", "side", "dimension", "created_at"):
            frame[text] = frame[text].fillna("")
    fields = assignments.set_index(ASSIGNMENT_ID)
    ids = frame[ASSIGNMENT_ID]
    histories = _histories(source, study)
    revision = frame[REVISION].astype("Int64")
    history = frame[RATING_ID].map(histories).astype("object")
    history = history.where(history.notna(), "[]").where(revision.notna(), "")
    saved = pd.to_datetime(frame[SAVED_AT], utc=True)
    shown = saved - pd.to_timedelta(frame["seconds"].astype("float64"), unit="s")
    frame = frame.assign(
        **{name: ids.map(fields[name]) for name in _ASSIGNMENT_FIELDS},
        revision=revision,
        revision_history=history,
        flag_resolution=ids.map(fields["flag_resolution"]),
        flag_note=ids.map(fields["flag_note"]),
        shown_at=_utc_text(shown),
        pair_excluded=ids.map(fields["exclusion_reason"]).notna(),
        exclusion_reason=ids.map(fields["exclusion_reason"]),
    )
    frame["flagged"] = frame["flagged"].astype(bool)
    frame["queue_position"] = frame["queue_position"].astype("int64")
    for count in ("focus_losses", "pastes"):
        frame[count] = frame[count].astype("Int64")
    rest = [c for c in frame.columns if c not in PROVENANCE_EXPORT_COLUMNS + HIDDEN_COLUMNS]
    return frame[[*rest, *PROVENANCE_EXPORT_COLUMNS]]
