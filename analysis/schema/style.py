"""Shared look of the figures (plotly and matplotlib): the Okabe-Ito colour-blind-safe palette
and short human labels for the questions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.schema.questions import report_questionnaire
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE

OKABE_ITO = {
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "grey": "#999999",
    "black": "#000000",
}
"""Okabe & Ito (2008), "Color Universal Design"."""

CHOSEN_COLOUR = OKABE_ITO["blue"]
REJECTED_COLOUR = OKABE_ITO["orange"]
MODEL_COLOUR = OKABE_ITO["purple"]  # a reward model, beside the humans
HUMAN_COLOUR = CHOSEN_COLOUR
VERDICT_COLOURS = {
    "tie": OKABE_ITO["green"],
    "diverges": OKABE_ITO["vermillion"],
    "inconclusive": OKABE_ITO["grey"],
    "insufficient_data": OKABE_ITO["black"],
}
LEVEL_COLOURS = {
    "ordinal": OKABE_ITO["purple"],
    "interval": OKABE_ITO["sky_blue"],
    "difference": OKABE_ITO["yellow"],
}
SHORT_LABELS = {  # the default questionnaire's labels, short enough for an axis
    "factuality": "Factuality",
    "relevance": "Relevance",
    "helpfulness": "Helpfulness",
    "rubric_alignment": "Rubric alignment",
}


def short_labels(report: Mapping[str, Any]) -> list[str]:
    """Short labels of the report's questions in their order: the default questionnaire's
    abbreviated, any other's as written."""
    return list(labels_by_key(report).values())


def labels_by_key(report: Mapping[str, Any]) -> dict[str, str]:
    """Question key -> short label (see `short_labels`), in the report's order."""
    dims = report["dimensions"]
    short = SHORT_LABELS if report_questionnaire(report) == DEFAULT_QUESTIONNAIRE else {}
    return {d: short.get(d, str(dims[d].get("label", d))) for d in dims}
