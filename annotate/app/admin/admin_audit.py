"""Admin: the audit log of admin actions (who, when, which study, before and after)."""

from __future__ import annotations

import json

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
from annotate.services import audited


def draw() -> None:
    study = choose_study()
    page_title("Audit log", study)
    draw_pending()
    every = st.toggle("Every study and the accounts", value=study is None, key="audit_every")
    if study is None and not every:
        return
    lines = act(lambda: audited.audit_entries(engine(), actor_id(), None if every else study))
    if not lines:
        st.info("No admin action recorded yet.")
        return
    st.caption(f"The newest {len(lines)} entries first.")
    wide_table(
        pd.DataFrame(
            [
                {
                    "when": f"{line.at:%Y-%m-%d %H:%M:%S}",
                    "who": line.who,
                    "study": line.study or "",
                    "action": line.action,
                    "before": json.dumps(line.before, ensure_ascii=False),
                    "after": json.dumps(line.after, ensure_ascii=False),
                }
                for line in lines
            ]
        ),
        pinned="when",
        texts=("before", "after"),
    )


if __name__ == "__main__":
    draw()
