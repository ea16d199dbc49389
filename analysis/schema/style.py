"""Shared look of the figures (plotly and matplotlib): the Okabe-Ito colour-blind-safe palette
and short human labels for the dimensions."""

from __future__ import annotations

from annotate.vocabulary import DIMENSIONS

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
SHORT_LABELS = {
    "factuality": "Factuality",
    "relevance": "Relevance",
    "helpfulness": "Helpfulness",
    "rubric_alignment": "Rubric alignment",
}


def short_labels() -> list[str]:
    """Short labels of the dimensions in their fixed order."""
    return [SHORT_LABELS.get(d, d.replace("_", " ").capitalize()) for d in DIMENSIONS]
