"""Admin: progress per annotator and per domain, quality checks, and flagged pairs."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotate.app.app_pages.admin_common import act, actor_id, choose_study
from annotate.app.session import engine
from annotate.app.study_picker import page_title
from annotate.services import progress

# The work per annotator is a bar in its table row (a progress column), not a Plotly chart:
# the admin's landing page would otherwise load Plotly's 4.7 MB script in the browser, seconds
# of parsing before this page (and the next one clicked) is drawn.
DONE_BAR = st.column_config.ProgressColumn(
    "done of assigned", format="percent", min_value=0.0, max_value=1.0
)


def draw() -> None:
    study = choose_study()
    page_title("Progress", study)
    if study is None:
        return
    board = act(lambda: progress.dashboard(engine(), actor_id(), study))
    if board is None:
        return
    _draw_totals(board)
    if not board.annotators:
        st.info("Nothing is assigned yet: plan the work on the Assignments page.")
    else:
        st.subheader("Per annotator")
        st.dataframe(
            _annotator_table(board),
            hide_index=True,
            width="stretch",
            column_config={"done of assigned": DONE_BAR},
        )
    st.subheader("Per domain")
    st.dataframe(_domain_table(board), hide_index=True, width="stretch")
    _draw_flags(board)


def _draw_totals(board: progress.Dashboard) -> None:
    k = board.overlap
    assigned = sum(1 for n in board.coverage.values() if n >= k)
    rated = sum(d.complete for d in board.domains)
    cols = st.columns(6)
    cols[0].metric("Pairs", len(board.coverage), help=f"Gold pairs ({len(board.gold)}) not counted")
    cols[1].metric(f"Given to {k} people", assigned, help="Pairs whose k slots are all taken")
    cols[2].metric(f"Rated by {k} people", rated, help="Pairs with k finished ratings")
    cols[3].metric("Ratings done", sum(r.done for r in board.annotators))
    cols[4].metric("Still to rate", sum(r.pending for r in board.annotators))
    cols[5].metric("Flags", len(board.flagged))


def _seconds(value: float | None) -> float:
    return float("nan") if value is None else round(value, 1)


def _share(value: float | None) -> float:
    return float("nan") if value is None else round(100 * value, 1)


def _annotator_table(board: progress.Dashboard) -> pd.DataFrame:
    checks = {q.annotator: q for q in board.quality}
    rows = []
    for row in board.annotators:
        check = checks.get(row.name)
        rows.append(
            {
                "annotator": row.name,
                "done of assigned": row.done / row.assigned if row.assigned else 0.0,
                "assigned": row.assigned,
                "done": row.done,
                "skipped": row.skipped,
                "pending": row.pending,
                "flagged": row.flagged,
                "median s / pair": _seconds(row.median_seconds),
                "gold rated": check.gold_rated if check else 0,
                "gold accuracy %": _share(check.gold_accuracy if check else None),
                "straight-lined %": _share(check.straight_lining if check else None),
            }
        )
    return pd.DataFrame(rows)


def _domain_table(board: progress.Dashboard) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "domain": row.name,
                "pairs": row.pairs,
                f"with {board.overlap} ratings": row.complete,
                "assigned": row.assigned,
                "done": row.done,
                "skipped": row.skipped,
                "pending": row.pending,
                "flagged": row.flagged,
                "median s / pair": _seconds(row.median_seconds),
            }
            for row in board.domains
        ]
    )


def _draw_flags(board: progress.Dashboard) -> None:
    st.subheader(f"Flagged pairs ({len(board.flagged)})")
    if not board.flagged:
        st.caption("No annotator has flagged a pair.")
        return
    st.caption("Open, resolve or exclude them on the Flags and skips page.")
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "pair": f.pair_id,
                    "domain": f.domain,
                    "annotator": f.annotator,
                    "reason": f.reason,
                    "comment": f.comment,
                    "status": f.status,
                }
                for f in board.flagged
            ]
        ),
        hide_index=True,
        width="stretch",
    )


if __name__ == "__main__":
    draw()
