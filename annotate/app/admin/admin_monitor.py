"""Admin: a study watched while it runs (issue 34 items 4 and 5): throughput, time per pair,
agreement so far, check failures, speeders and straight-liners, cost, the time to the planned
size and the verdict at the current look of the group-sequential plan.

The figures are `annotate.services.admin.monitor`'s, read from the database on every refresh (a
fragment that reruns every `REFRESH_SECONDS`, so a rating shows within 15 s); the page offers no
action on people: signals are acted on only through the pre-registered exclusion rules.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotate.app.admin.admin_common import act, actor_id, choose_study, draw_pending
from annotate.app.safe_text import plain_text
from annotate.app.session import engine
from annotate.app.study_picker import page_title
from annotate.services.admin import monitor as monitoring

REFRESH_SECONDS = 10
# The agreement and the plan's look (the report's crossed models, seconds to compute) are
# computed again when the ratings change, at most this often. (A comment: Streamlit draws a
# string standing alone in a page's script.)
REPORT_SECONDS = 60
SIGNALS_NOTE = (
    "Signals, not decisions: they are acted on only through the study's pre-registered "
    "exclusion rules (Studies page), which the analysis applies. Nothing here excludes anyone."
)


def draw() -> None:
    study = choose_study()
    page_title("Monitor", study)
    draw_pending()
    if study is None:
        return
    _figures(study)


@st.fragment(run_every=REFRESH_SECONDS)
def _figures(study: str) -> None:
    figures = act(
        lambda: monitoring.monitor(engine(), actor_id(), study, report_every=REPORT_SECONDS)
    )
    if figures is None:
        return
    _draw_plan(figures)
    _draw_metrics(figures)
    st.markdown(f"**Agreement so far.** {plain_text(_sentence(figures.agreement.words))}")
    st.markdown(f"**Planned size.** {plain_text(_sentence(figures.size.words))}")
    cost = "not set (reward and bonus rule on the Studies page)"
    st.markdown(
        f"**Cost.** {plain_text(_sentence(cost if figures.cost is None else figures.cost.words))}"
    )
    _draw_signals(figures)
    st.caption(
        f"Read from the database at {figures.at:%Y-%m-%d %H:%M:%S} UTC; refreshes every "
        f"{REFRESH_SECONDS} s. The agreement and the plan's look were computed at "
        f"{figures.report_at:%H:%M:%S} UTC (again when the ratings change, at most every "
        f"{REPORT_SECONDS} s)."
    )


def _sentence(words: str) -> str:
    """`words` as a sentence on the page (the command line prints them as they are)."""
    return words[:1].upper() + words[1:]


def _draw_plan(figures: monitoring.MonitorFigures) -> None:
    look = figures.look
    words = plain_text(_sentence(figures.look_words))
    if look is None or look.get("decision") == "continue" or not look.get("look"):
        st.info(words, icon=":material/hourglass_top:")
    else:
        decision = plain_text(look["decision"]).capitalize()
        st.warning(f"**{decision}.** {words}", icon=":material/flag:")
    if figures.closed_words:
        st.warning(plain_text(figures.closed_words), icon=":material/block:")
    elif figures.close_at_stop:
        st.caption("Crowd enrolment closes itself when the plan says stop.")


def _draw_metrics(figures: monitoring.MonitorFigures) -> None:
    rate = figures.throughput
    cols = st.columns(4)
    cols[0].metric("Pair-ratings done", rate.rated, help="Finished, gold pairs not counted")
    cols[1].metric(
        "Per hour, last hour", f"{rate.recent_per_hour:.1f}", help="Pair-ratings finished"
    )
    overall = "-" if rate.overall_per_hour is None else f"{rate.overall_per_hour:.1f}"
    cols[2].metric("Per hour, overall", overall, help="Since the first finished pair-rating")
    median = "-" if figures.median_seconds is None else f"{figures.median_seconds:.0f} s"
    cols[3].metric("Median time per pair", median)
    failed = sum(1 for n in figures.check_failures.values() if n >= 1)
    ended = sum(1 for n in figures.check_failures.values() if n >= 2)
    cols = st.columns(4)
    cols[0].metric("Failed a check", failed, help="Instructed-response checks")
    cols[1].metric("Failed two checks", ended, help="Their participation ended")
    cols[2].metric("Speeders", sum(1 for s in figures.signals if s.kind == "speeder"))
    cols[3].metric("Straight-liners", sum(1 for s in figures.signals if s.kind != "speeder"))


def _draw_signals(figures: monitoring.MonitorFigures) -> None:
    st.markdown("**Quality signals**")
    st.caption(SIGNALS_NOTE)
    if not figures.signals:
        st.caption("No speeder or straight-liner so far.")
        return
    rows = [
        {
            "annotator": s.annotator,
            "signal": s.kind,
            "figure": s.figure,
            "threshold": s.threshold,
            "pre-registered rule": s.rule or "none: a signal only",
        }
        for s in figures.signals
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


if __name__ == "__main__":
    draw()
