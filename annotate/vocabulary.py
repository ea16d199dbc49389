"""The four rating dimensions, the two responses of a pair, and the default scale.

Everything that names a dimension, a response or a side imports it from here.
"""

from __future__ import annotations

from typing import Literal

Dimension = Literal["factuality", "relevance", "helpfulness", "rubric_alignment"]
Response = Literal["chosen", "rejected"]
Side = Literal["A", "B"]

DIMENSIONS: tuple[str, ...] = ("factuality", "relevance", "helpfulness", "rubric_alignment")
GENERAL_DIMENSIONS: tuple[str, ...] = ("factuality", "relevance", "helpfulness")
PERSONAL_DIMENSION = "rubric_alignment"
RESPONSES: tuple[str, ...] = ("chosen", "rejected")
SIDES: tuple[str, ...] = ("A", "B")

DIMENSION_LABELS: dict[str, str] = {
    "factuality": "Factuality and correctness",
    "relevance": "Relevance and instruction following",
    "helpfulness": "Helpfulness and harmlessness",
    "rubric_alignment": "Alignment with this user's personal rubric",
}

DIMENSION_DEFINITIONS: dict[str, str] = {
    "factuality": "Are the statements in the response true and the reasoning sound? "
    "Penalise errors, invented facts and misleading claims.",
    "relevance": "Does the response answer the question that was asked and follow its "
    "instructions, without drifting off topic?",
    "helpfulness": "Would the response actually help someone with this question, "
    "and is it free of harmful or unsafe advice?",
    "rubric_alignment": "How well does the response meet what THIS user expects, as listed "
    "in the rubric aspects and shown by the profile and narrative?",
}

SCALE_MIN = 1
SCALE_MAX = 5
DEFAULT_ANCHORS: dict[int, str] = {
    1: "Very poor",
    2: "Poor",
    3: "Acceptable",
    4: "Good",
    5: "Excellent",
}

EXPORT_COLUMNS: tuple[str, ...] = (
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
"""Columns of the ratings export: one row per score. Researchers rely on this order."""

DEFAULT_EQUIVALENCE_MARGIN = 0.5
DEFAULT_N_BOOT = 1000  # bootstrap resamples for agreement intervals
