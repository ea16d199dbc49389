"""The benchmark's own record format (Personalized RewardBench), as pydantic models.

Fields beyond the documented ones are kept, as metadata, never rejected.
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, StrictStr
from pydantic_core import to_json

MAX_ID_CHARS = 200

RECORD_FIELDS = (
    "id",
    "question",
    "profile",
    "rubric_aspects",
    "narrative",
    "category",
    "chosen",
    "rejected",
)


def _check_id(value: str) -> str:
    """Ids are compared exactly, so one that could be mistaken for another is refused, not
    trimmed: empty, surrounded by spaces, or too long to index."""
    if not value:
        raise ValueError("the id is empty; expected a non-empty string")
    if value != value.strip():
        raise ValueError(
            "the id has leading or trailing whitespace; expected it without (ids are compared "
            "exactly, so 'a' and 'a ' would be two pairs)"
        )
    if len(value) > MAX_ID_CHARS:
        raise ValueError(f"the id has {len(value):,} characters; expected at most {MAX_ID_CHARS}")
    return value


RecordId = Annotated[StrictStr, AfterValidator(_check_id)]


class ProfileItem(BaseModel):
    """One of the user's earlier posts."""

    model_config = ConfigDict(extra="allow")

    id: StrictStr
    category: StrictStr
    text: StrictStr


class RubricAspect(BaseModel):
    """Something this user expects to see in an answer, with why we think so."""

    model_config = ConfigDict(extra="allow")

    aspect: StrictStr
    evidence: StrictStr
    reason: StrictStr


class BenchmarkRecord(BaseModel):
    """One benchmark pair: a question, the asker's profile and rubric, and two responses."""

    model_config = ConfigDict(extra="allow")

    id: RecordId
    question: StrictStr
    profile: list[ProfileItem]
    rubric_aspects: list[RubricAspect]
    narrative: StrictStr
    category: StrictStr
    chosen: StrictStr
    rejected: StrictStr

    @property
    def extra_fields(self) -> dict[str, Any]:
        """Fields that are not part of the documented format, kept as metadata."""
        return dict(self.model_extra or {})

    def content_hash(self) -> str:
        """A hash of the whole record, to tell a re-import of the same content from a change."""
        return content_hash(self.model_dump(mode="json"))


def content_hash(data: dict[str, Any], conversation: list[dict[str, str]] | None = None) -> str:
    """SHA-256 of a dumped record (`model_dump(mode="json")`) and of the pair's conversation
    when it has one (a single-turn pair keeps the hash it had before conversations were stored).

    A dump lists the documented fields in a fixed order, so only the order of extra fields can
    change the hash of equal content; the importer compares the content itself before it calls
    two records with different hashes different.
    """
    hashed = {**data, "conversation": conversation} if conversation else data
    return hashlib.sha256(to_json(hashed)).hexdigest()
