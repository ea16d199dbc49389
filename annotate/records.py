"""The benchmark's own record format (Personalized RewardBench), as pydantic models.

Fields beyond the documented ones are kept, as metadata, never rejected.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictStr

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

    id: StrictStr
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
        canonical = json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
