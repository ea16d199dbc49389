"""The results page's sizing planner: a main study sized from this study as its pilot (the form,
then `analysis.inference.sizing`'s answer)."""

from __future__ import annotations

import streamlit as st

from analysis.inference.reestimate import with_internal_pilot
from analysis.inference.sizing import (
    DEFAULT_PER_PAIR,
    size_study,
)
from analysis.inference.sizing_pilot import (
    DEFAULT_CONFIDENCE,
    pilot_components,
)
from analysis.inference.sizing_text import (
    sizing_text,
)
from analysis.study_report import StudyData


def draw_power(data: StudyData, margin: float, alpha: float) -> None:
    """The study-sizing planner, with this study's ratings as the pilot: pairs, annotators per
    pair and pool for the primary (crossed) analysis, from the pilot's variance components at
    their upper confidence limits (`analysis.inference.sizing`)."""
    with st.expander("Power and sample size", icon=":material/query_stats:"):
        st.caption(
            "Sizes a main study from this study as its pilot: each design's variance of the "
            "mean at an upper confidence limit of the pilot's pair, annotator and residual "
            "variance, for the TOST of the general dimensions and rubric alignment's "
            "superiority beyond the smallest effect; 2 or more annotators per pair by default, "
            "so the main study measures agreement."
        )
        left, middle, right = st.columns(3)
        target = left.number_input("Target power", 0.5, 0.99, 0.8, 0.05)
        confidence = middle.number_input(
            "Confidence of the upper limits",
            0.55,
            0.99,
            DEFAULT_CONFIDENCE,
            0.05,
            help="One-sided, of each design's variance of the mean: with the Bonferroni bound's "
            "slack the plan reached power 0.80 in 90% or more of simulated pilots at 0.7 "
            "(benchmarks/bench_sizing.py).",
        )
        general = right.number_input("True difference, general dimensions", value=0.0, step=0.1)
        rubric = left.number_input(
            "True difference, rubric alignment",
            value=None,
            step=0.1,
            placeholder="the pilot's lower limit",
        )
        per_pair = middle.multiselect(
            "Annotators per pair",
            [1, 2, 3, 4, 5, 7, 9],
            default=list(DEFAULT_PER_PAIR),
            help="1 measures no agreement: the reliability caveat cannot be assessed.",
        )
        pools = right.multiselect(
            "Annotator pool sizes", [4, 6, 8, 12, 16, 24, 32, 48, 64, 96], default=[6, 12, 24, 48]
        )
        halfwidth = left.number_input(
            "Alpha half-width (optional)",
            min_value=0.01,
            max_value=0.99,
            value=None,
            step=0.05,
            placeholder="none",
            help="Also enough pairs for a 95% interval of this half-width on Krippendorff's "
            "alpha of the rubric difference.",
        )
        if not st.button("Size the study", icon=":material/calculate:"):
            return
        try:
            settings = data.settings
            pilot = pilot_components(
                data.snapshot.primary(), float(confidence), settings.questionnaire
            )
            result = size_study(
                pilot,
                margin=margin,
                smallest_effect=settings.smallest_effect
                if settings.margin.unit == "points"
                else None,
                alpha=alpha,
                target=float(target),
                general_diff=float(general),
                rubric_diff=None if rubric is None else float(rubric),
                per_pair=[int(k) for k in per_pair],
                pools=[int(m) for m in pools],
                alpha_halfwidth=None if halfwidth is None else float(halfwidth),
            )
            result = with_internal_pilot(pilot, result)
        except ValueError as error:
            st.error(f"This study cannot serve as the pilot: {error}")
            return
        st.markdown(sizing_text(result))
