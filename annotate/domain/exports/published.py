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
import re
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


FREE_TEXT_KEYS = ("pair_id", "annotator")
"""The columns that say whose free text a row of `free_text_table` is."""


def without_free_text(frame: pd.DataFrame, fields: Mapping[str, str]) -> pd.DataFrame:
    """The export less its free-text `fields` (the researcher's ratings download, issue 32:
    the free text is a download of its own, audited), the earlier rationales inside
    `preference_history` included; nothing else changes (times stay exact)."""
    out = frame.drop(columns=[f for f in fields if f in frame.columns])
    if "rationale" in fields and "preference_history" in out.columns:
        out["preference_history"] = [_without_rationale(v) for v in out["preference_history"]]
    return out


def _without_rationale(text: object) -> object:
    if not isinstance(text, str) or not text:
        return text
    entries = json.loads(text)
    for entry in entries:
        entry.pop("rationale", None)
    return json.dumps(entries)


def free_text_table(frame: pd.DataFrame, fields: Mapping[str, str]) -> pd.DataFrame:
    """The free text of an export: pair, annotator and each free-text field, one row per pair
    and annotator that wrote any."""
    present = [f for f in fields if f in frame.columns]
    keys = [k for k in FREE_TEXT_KEYS if k in frame.columns]
    table = frame[keys + present].copy()
    text = table[present].astype("string").fillna("").apply(lambda c: c.str.strip())
    written = (text != "").any(axis=1) if present else pd.Series(False, index=table.index)
    return table[written].drop_duplicates().reset_index(drop=True)


_LOCAL = r"[\w.!#$%&'*+/=?^`{|}~-]+"
_AT = r"(?:@|\s*[(\[{<]\s*at\s*[)\]}>]\s*)"
_DOT = r"(?:\.|\s*[(\[{<]\s*dot\s*[)\]}>]\s*|\s+dot\s+)"
_LABEL = r"[\w](?:[\w-]{0,62}[\w])?"
EMAIL = re.compile(rf"{_LOCAL}{_AT}(?:{_LABEL}{_DOT})+[^\W\d_]{{2,}}\b", re.IGNORECASE)
"""An e-mail-like string: `name@host.tld`, also written `name (at) host (dot) tld` or
`name [at] host dot tld` (a plain " at " is prose: "looked at example.com" is no address); the
top-level label is letters only (so `v1.2@3.4` is no address)."""
EMAIL_MASK = "[e-mail]"


def mask_emails(text: str) -> str:
    """`text` with every e-mail-like string replaced by `EMAIL_MASK` (the rest kept as typed)."""
    return EMAIL.sub(EMAIL_MASK, text)


def emails_in(frame: pd.DataFrame, fields: Iterable[str]) -> dict[str, int]:
    """Field -> how many of its entries (one per pair and annotator: an export repeats them on
    every score's row) hold an e-mail-like string, fields holding none left out: the warning
    before disclosing free text."""
    keys = [k for k in FREE_TEXT_KEYS if k in frame.columns]
    found = {}
    for field_name in fields:
        if field_name in frame.columns:
            entries = frame[[*keys, field_name]].dropna(subset=[field_name]).drop_duplicates()
            cells = entries[field_name].astype(str)
            count = int(cells.map(lambda v: EMAIL.search(v) is not None).sum())
            if count:
                found[field_name] = count
    return found


def masked_frame(frame: pd.DataFrame, fields: Iterable[str]) -> pd.DataFrame:
    """A copy of `frame` with the e-mail-like strings of its `fields` masked."""
    out = frame.copy()
    for field_name in fields:
        if field_name in out.columns:
            out[field_name] = out[field_name].map(
                lambda v: mask_emails(v) if isinstance(v, str) else v
            )
    return out
