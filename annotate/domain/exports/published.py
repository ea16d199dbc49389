"""What a published file may hold about the participants (issue 24.1): `published_frame` is the
one step between an export and a published file.

The exports already name annotators by pseudonym (`annotate.domain.exports.pseudonyms`). On top
of that a published file leaves out every free-text field (the annotators' comments, rationales,
flag and skip reasons, an admin's flag notes, the answers to free-text survey questions) unless
the admin discloses that field (`Disclosure`), and gives times to the minute: `created_at`,
`shown_at` and the times inside `revision_history` and `preference_history`. Durations
(`seconds`) stay exact: the exclusion rules read them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from annotate.errors import Invalid
from annotate.vocabulary import SURVEY_COLUMN_PREFIX

FREE_TEXT_FIELDS: dict[str, str] = {
    "comment": "the annotators' comments on pairs",
    "rationale": "the rationales given with the direct preference (and their earlier versions)",
    "flag_reason": "the annotators' reasons for flagging a pair",
    "flag_note": "the admins' notes on flags and skips",
    "skip_reason": "the annotators' reasons for skipping a pair",
}
"""The export's free-text columns written by people (survey text answers come on top)."""

TIME_COLUMNS = ("created_at", "shown_at")
HISTORY_COLUMNS = {"revision_history": ("created_at", "replaced_at"), "preference_history": ()}
MINUTE_FORMAT = "%Y-%m-%dT%H:%M:00Z"


@dataclass(frozen=True)
class Disclosure:
    """The free-text fields the admin chose to publish (none by default)."""

    free_text: frozenset[str] = frozenset()

    @classmethod
    def of(cls, fields: Iterable[str], known: Mapping[str, str]) -> Disclosure:
        """The disclosure of `fields`, each one of `known` (Invalid, naming them, otherwise)."""
        chosen = frozenset(f.strip() for f in fields if f.strip())
        unknown = sorted(chosen - set(known))
        if unknown:
            raise Invalid(
                f"unknown free-text field(s) {', '.join(unknown)}; expected some of "
                f"{', '.join(known)}"
            )
        return cls(chosen)


def free_text_fields(survey_questions: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Field -> what it holds: the fixed free-text columns and each free-text survey question."""
    survey = {
        SURVEY_COLUMN_PREFIX + str(q["id"]): f"answers to the survey question {q['text']!r}"
        for q in survey_questions
        if q.get("kind") == "text"
    }
    return FREE_TEXT_FIELDS | survey


def minute(values: pd.Series) -> pd.Series:
    """Times (ISO text or datetimes) to the minute, as ISO text in UTC; empty stays empty."""
    times = pd.to_datetime(values.replace("", None), utc=True, errors="coerce", format="ISO8601")
    return times.dt.floor("min").dt.strftime(MINUTE_FORMAT).fillna("")


def _minute_text(value: object) -> object:
    if not isinstance(value, str) or "T" not in value:  # not a time (a date stays a date)
        return value
    stamp = pd.to_datetime(value, utc=True, errors="coerce")
    return value if pd.isna(stamp) else stamp.floor("min").strftime(MINUTE_FORMAT)


def _history(text: object, times: Sequence[str], keep_rationale: bool) -> object:
    """A JSON history column's entries with their times to the minute (and the rationale out)."""
    if not isinstance(text, str) or not text:
        return text
    entries = json.loads(text)
    for entry in entries:
        for name in (*times, "replaced_at"):
            if name in entry:
                entry[name] = _minute_text(entry[name])
        if not keep_rationale:
            entry.pop("rationale", None)
    return json.dumps(entries)


def published_frame(
    frame: pd.DataFrame, fields: Mapping[str, str], disclosure: Disclosure = Disclosure()
) -> pd.DataFrame:
    """`frame` (an export, annotators already pseudonymous) as it may be published: free-text
    `fields` not disclosed left out, times to the minute."""
    withheld = [f for f in fields if f not in disclosure.free_text and f in frame.columns]
    out = frame.drop(columns=withheld)
    for column in TIME_COLUMNS:
        if column in out:
            out[column] = minute(out[column].astype("string").fillna(""))
    keep_rationale = "rationale" in disclosure.free_text
    for column, times in HISTORY_COLUMNS.items():
        if column in out:
            out[column] = [_history(v, times, keep_rationale) for v in out[column]]
    return out


def withheld_fields(
    fields: Mapping[str, str], disclosure: Disclosure, present: Iterable[str]
) -> list[str]:
    """The free-text fields of `present` columns that a published file leaves out."""
    here = set(present)
    return [f for f in fields if f not in disclosure.free_text and f in here]


def published_times(value: Any) -> Any:
    """A copy of a JSON-like value (the report, the card's exclusions) with every time under a
    key `at` or ending in `_at` given to the minute (the first rating's time would otherwise be
    a participant's, to the microsecond)."""
    if isinstance(value, Mapping):
        return {
            k: _minute_text(v) if str(k) == "at" or str(k).endswith("_at") else published_times(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [published_times(v) for v in value]
    return value
