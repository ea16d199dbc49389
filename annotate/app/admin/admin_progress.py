"""Admin: progress per annotator and per domain, quality checks, and flagged pairs."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotate.app.admin.admin_common import (
    act,
    actor_id,
    choose_study,
    draw_pending,
    wide_table,
)
from annotate.app.session import engine
from annotate.app.study_picker import page_title
from annotate.domain.rating.progress import Totals
from annotate.services.admin import progress

# The work per annotator is a bar in its table row (a progress column), not a Plotly chart:
# the admin's landing page would otherwise load Plotly's 4.7 MB script in the browser, seconds
# of parsing before this page (and the next one clicked) is drawn.
DONE_BAR = st.column_config.ProgressColumn(
    "done of assigned", format="percent", min_value=0.0, max_value=1.0
)


def draw() -> None:
    study = choose_study()
    page_title("Progress", study)
    draw_pending()
    if study is None:
        return
    board = act(lambda: progress.dashboard(engine(), actor_id(), study))
    if board is None:
        return
    _draw_totals(board)
    if not board.annotators:
        st.info(_nothing_yet(board.totals), icon=":material/info:")
    else:
        st.subheader("Per annotator")
        wide_table(
            _annotator_table(board), pinned="annotator", columns={"done of assigned": DONE_BAR}
        )
    st.subheader("Per domain")
    wide_table(_domain_table(board), pinned="domain")
    _draw_short(board)
    _draw_flags(board)


def _draw_short(board: progress.Dashboard) -> None:
    """The pairs that cannot reach k as things stand, and why (issue 34.2)."""
    if not board.short:
        return
    st.subheader(f"Pairs that cannot reach k = {board.overlap} ({len(board.short)})")
    rows = [
        {"pair": p.record_id, "domain": p.domain, "rated": p.done, "being rated": p.held,
         "missing": p.missing, "why": p.reason}
        for p in board.short[:MAX_SHORT]
    ]  # fmt: skip
    wide_table(pd.DataFrame(rows), pinned="pair")
    if len(board.short) > MAX_SHORT:
        st.caption(f"The first {MAX_SHORT} of {len(board.short)} are listed.")


MAX_SHORT = 500


def _draw_totals(board: progress.Dashboard) -> None:
    k, totals = board.overlap, board.totals
    assigned = sum(1 for n in board.coverage.values() if n >= k)
    cols = st.columns(4)
    cols[0].metric("Pairs", totals.pairs, help=f"Gold pairs ({len(board.gold)}) not counted")
    cols[1].metric(
        f"Given to {k} people",
        assigned,
        help="Pairs whose k slots are all taken (finished, reserved or planned)",
    )
    cols[2].metric(
        f"Rated by {k} people",
        totals.complete,
        help="Pairs with k finished ratings (an adjudication is not one of them)",
    )
    cols[3].metric("Ratings done", sum(r.done for r in board.annotators))
    cols = st.columns(4)
    cols[0].metric("Still to rate", totals.to_rate, help=_to_rate_help(totals))
    cols[1].metric(
        "Being rated" if totals.pool else "In queues",
        totals.in_progress,
        help="Pairs held for someone now (a live reservation, shown or not yet shown, or a "
        "planned item); skipped and flagged pairs have gone back to the pool",
    )
    cols[2].metric(
        "Adjudications",
        f"{totals.adjudicated} of {totals.adjudications}",
        help="Finished of those sent (they come on top of the k ratings)",
    )
    cols[3].metric("Flags", len(board.flagged))


def _to_rate_help(totals: Totals) -> str:
    if totals.pool:
        return (
            f"Ratings still missing for every pair to be rated by {totals.overlap} people "
            f"({totals.slots} slots in all), whether reserved now or not pulled yet"
        )
    return "Planned ratings not finished yet (pending or skipped)"


def _nothing_yet(totals: Totals) -> str:
    if totals.crowd:
        return (
            "No participant has started yet: share the crowd link (Assignments page) on the "
            "crowd platform."
        )
    if totals.pool:
        return "Nobody has pulled a pair from the open pool yet."
    return "Nothing is assigned yet: plan the work, or open the pool, on the Assignments page."


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
                "adjudicated": row.adjudicated,
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
    wide_table(
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
        pinned="pair",
        texts=("reason", "comment"),
        narrow=("domain",),
    )


if __name__ == "__main__":
    draw()
