"""Admin: publish a study's validation card (issue 26.3). The admin chooses which free-text
fields to disclose (none by default; issue 24.1), builds the card, reads its preview, then
downloads it as one zip made in memory: with several servers behind a balancer, no server's
disk is the admin's, so nothing is written on the server."""

from __future__ import annotations

import io
from functools import partial

import pandas as pd
import streamlit as st

from annotate.app.admin.admin_common import act, actor_id, choose_study
from annotate.app.downloads import offer_download
from annotate.app.safe_text import inert_markdown
from annotate.app.session import engine
from annotate.app.study_picker import page_title
from annotate.domain.exports.publish import CARD_FILE, RATINGS_FILE, folder_name

BUILT = "publish_built"
BOOTSTRAP = {"none (fast)": 0, "2,000 resamples": 2000}


def draw() -> None:
    study = choose_study()
    page_title("Publish", study)
    if study is None:
        return
    # The card's service brings the statistics and the report's renderers (scipy, statsmodels,
    # plotly: ~3 s on a server's first visit), so it is imported once the title is drawn.
    from annotate.services.admin import publish

    choices = act(lambda: publish.free_text_choices(engine(), actor_id(), study))
    if choices is None:
        return
    st.markdown(
        "The card names annotators by a pseudonym of this study, gives times to the minute and "
        "leaves every free-text field out unless you disclose it here (the card says which)."
    )
    disclosed = _draw_disclosure(choices)
    mask = _draw_email_warning(study, disclosed)
    boot = st.radio("Bootstrap intervals", list(BOOTSTRAP), horizontal=True, key="publish_boot")
    wanted = (study, tuple(disclosed), mask, BOOTSTRAP[str(boot)])
    if st.button("Build the card", type="primary", key="publish_build"):
        files = act(
            lambda: publish.card_files(
                engine(),
                actor_id(),
                study,
                disclose=disclosed,
                mask_emails=mask,
                n_boot=BOOTSTRAP[str(boot)],
            )
        )
        if files is not None:
            st.session_state[BUILT] = (wanted, files)
    built = st.session_state.get(BUILT)
    if built is None or built[0] != wanted:
        return
    _draw_preview(study, built[1])


def _draw_disclosure(choices: dict[str, str]) -> list[str]:
    st.subheader("Free text to publish")
    return [
        field
        for field, what in choices.items()
        if st.checkbox(f"`{field}`: {inert_markdown(what)}", key=f"disclose_{field}")
    ]


def _draw_email_warning(study: str, disclosed: list[str]) -> bool:
    """The warning before disclosing free text that holds e-mail-like strings, and the choice
    to mask them (checked); whether to mask."""
    from annotate.services.admin import publish  # imported already by `draw`

    if not disclosed:
        return False
    found = act(lambda: publish.emails_disclosed(engine(), actor_id(), study, disclosed)) or {}
    if not found:
        return False
    counts = ", ".join(f"`{field}`: {n}" for field, n in found.items())
    st.warning(
        f"The free text you disclose holds e-mail-like strings ({counts} entries). A published "
        "card is public: mask them unless each person agreed.",
        icon=":material/alternate_email:",
    )
    return st.checkbox(
        "Mask the e-mail addresses (each becomes [e-mail])", value=True, key="publish_mask_emails"
    )


def _draw_preview(study: str, files: dict[str, bytes]) -> None:
    from annotate.services.admin import publish  # imported already by `draw`

    st.subheader("Preview")
    st.dataframe(
        pd.DataFrame([{"file": name, "bytes": len(data)} for name, data in sorted(files.items())]),
        hide_index=True,
    )
    card = files[CARD_FILE].decode("utf-8")
    body = card.split("\n---\n", 1)[-1]
    with st.container(border=True, height=420, key="publish_card"):
        st.markdown(inert_markdown(body))
    with st.expander(f"{RATINGS_FILE}: the first rows"):
        st.dataframe(pd.read_parquet(io.BytesIO(files[RATINGS_FILE])).head(20), hide_index=True)
    offer_download(
        st,
        "publish_card",
        "Download the card (zip)",
        partial(publish.card_zip, files, study),
        file_name=f"{folder_name(study)}.zip",
        mime="application/zip",
        key="publish_download",
        type="primary",
    )


if __name__ == "__main__":
    draw()
