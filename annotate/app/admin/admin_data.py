"""Admin: upload dataset files into a study (several at once, all or nothing, with a table of
what each file adds), and choose the gold pairs."""

from __future__ import annotations

from typing import BinaryIO

import pandas as pd
import streamlit as st

from annotate.app.admin.admin_common import (
    act,
    actor_id,
    choose_study,
    draw_pending,
    fresh_for,
    notify,
    show_notice,
)
from annotate.app.safe_text import plain_text
from annotate.app.session import engine
from annotate.app.study_picker import STUDY, page_title
from annotate.config import MAX_UPLOAD_MB
from annotate.domain.dataset.importer import DatasetError, ImportSummary
from annotate.domain.dataset.shapes import (
    Rb2Pairs,
    Shape,
    ShapeOptionError,
    ShapeOptions,
    shape_options,
)
from annotate.domain.rating.quality import GOLD_PREFERENCES
from annotate.services.admin import data, progress, studies

NEW_STUDY = "(a new study)"
UPLOADED = "upload_table"
SHAPE_NAMES: dict[Shape | None, str] = {
    None: "Detect from the records",
    Shape.PRB: "Personalized RewardBench records",
    Shape.HF: "Hugging Face preference set (prompt, chosen, rejected)",
    Shape.RMBENCH: "RM-Bench",
    Shape.REWARDBENCH2: "RewardBench 2",
    Shape.MAP: "Another shape, through the field map",
}
PAIRINGS = [f"{i}-{j}" for i in range(3) for j in range(3)]
RB2_NAMES = {Rb2Pairs.ALL: "one per rejected response", Rb2Pairs.ONE: "one drawn with the seed"}


def draw() -> None:
    study = choose_study()
    page_title("Data and gold pairs", study)
    draw_pending()
    show_notice()
    _draw_upload_table(st.session_state.pop(UPLOADED, None))
    _draw_upload()
    if study is not None:
        _draw_gold(study)


def _draw_upload() -> None:
    st.subheader("Upload a dataset")
    st.caption(
        "JSONL, a JSON array or Parquet in the benchmark's record format or another shape "
        "(docs: Input formats), up to "
        f"{MAX_UPLOAD_MB} MB a file; several files at once. The domain comes from each file's "
        "name (`Art_and_Entertainment_test.jsonl`) unless you give one. All or nothing: a "
        "problem in any file imports nothing."
    )
    study_rows = act(lambda: studies.list_studies(engine(), actor_id())) or []
    names = [s.name for s in study_rows] + [NEW_STUDY]
    current = st.session_state.get(STUDY)
    with st.form("upload", clear_on_submit=False):
        left, right = st.columns(2)
        target = left.selectbox(
            "Into study",
            names,
            index=names.index(current) if current in names else None,
            placeholder="Choose a study",
            key="upload_study",
        )
        new_name = right.text_input(
            "New study's name",
            key="upload_new_study",
            help="A name typed here is the study the files go to (made if it is new), "
            "whatever Into study shows.",
        )
        domain = left.text_input("Domain (optional)", key="upload_domain")
        shape = right.selectbox(
            "Input shape",
            [None, *Shape],
            format_func=lambda v: SHAPE_NAMES[v],
            key="upload_shape",
            help="Detected from each file's first record when left as it is.",
        )
        pairing = left.selectbox(
            "RM-Bench: styles paired (chosen-rejected)",
            PAIRINGS,
            index=PAIRINGS.index("1-1"),
            key="upload_rmbench_pairing",
            help="0 concise, 1 detailed plain, 2 detailed Markdown.",
        )
        rb2_pairs = right.radio(
            "RewardBench 2: pairs per record",
            list(Rb2Pairs),
            format_func=lambda v: RB2_NAMES[v],
            horizontal=True,
            key="upload_rb2_pairs",
        )
        field_map = st.text_input(
            "Field map (any other shape)",
            key="upload_field_map",
            placeholder="question=prompt,chosen=better,rejected=worse",
            help="TARGET=SOURCE pairs: id, question, chosen, rejected, domain, category, "
            "narrative; a source may be a dotted path (task.input).",
        )
        uploads = st.file_uploader(
            "Dataset files",
            type=["jsonl", "ndjson", "json", "parquet"],
            max_upload_size=MAX_UPLOAD_MB,
            accept_multiple_files=True,
            key="upload_file",
        )
        submitted = st.form_submit_button("Import", type="primary", icon=":material/upload:")
    if not submitted:
        return
    study = _target(target, new_name)
    if study is None:
        return
    if not uploads:
        st.error("Choose a file to upload.")
        return
    try:
        options = shape_options(
            shape, pairing=pairing, rb2_pairs=rb2_pairs or Rb2Pairs.ALL, field_map=field_map
        )
    except ShapeOptionError as error:
        st.error(plain_text(str(error)))
        return
    for upload in uploads:
        upload.seek(0)
    _import(study, [(u.name, u) for u in uploads], domain.strip() or None, options)


def _target(chosen: str | None, new_name: str) -> str | None:
    """The study to import into: a new study's name when one is typed (issue 34.5: it was
    ignored unless Into study said "(a new study)"), else the study chosen; None, with why on
    the page, when there is neither."""
    typed = new_name.strip()
    if typed:
        return typed
    if chosen is None:
        st.error("Choose the study to import into, or type a new study's name.")
    elif chosen == NEW_STUDY:
        st.error("Give the new study a name.")
    else:
        return chosen
    return None


def _import(
    study: str, uploads: list[tuple[str, BinaryIO]], domain: str | None, options: ShapeOptions
) -> None:
    files = [name for name, _ in uploads]
    refused: list[DatasetError] = []

    def upload() -> ImportSummary:
        try:
            return data.upload_datasets(
                engine(), actor_id(), study=study, uploads=uploads, domain=domain, shape=options
            )
        except DatasetError as error:
            refused.append(error)
            raise

    summary = act(upload)  # refusals shown as every page shows them
    if summary is None:
        if refused:
            _draw_upload_table(data.upload_lines(files, None, refused[0]))
        return
    st.session_state[STUDY] = study
    st.session_state[UPLOADED] = data.upload_lines(files, summary)
    into = plain_text(study)
    notify(f"Imported into {into}: {len(summary.files)} file(s), {summary.added} new pair(s).")
    st.rerun()


def _draw_upload_table(lines: list[data.UploadLine] | None) -> None:
    """What each uploaded file added (or, refused, how many of its records were)."""
    if not lines:
        return
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "file": line.file,
                    "pairs": line.pairs,
                    "new": line.new,
                    "unchanged": line.unchanged,
                    "refused": line.refused,
                }
                for line in lines
            ]
        ),
        hide_index=True,
        key="upload_lines",
    )


def _draw_gold(study: str) -> None:
    st.subheader(f"Gold pairs of {plain_text(study)}")
    st.caption(
        "Gold pairs have a known answer: which response fits the user's rubric better. They are "
        "mixed into every queue at the study's gold rate (set on the Studies page), look like "
        "any other pair, and give each annotator a gold accuracy on the Progress page."
    )
    board = act(lambda: progress.dashboard(engine(), actor_id(), study))
    if board is None:
        return
    gold = {g.record_id: g.expect for g in board.gold}
    ordinary = sorted(board.coverage)
    fresh_for("gold", study, "gold_pairs", "gold_expect")
    with st.form("gold"):
        picked = st.multiselect("Pairs", sorted(set(ordinary) | set(gold)), key="gold_pairs")
        expect = st.radio(
            "Expected rubric preference",
            GOLD_PREFERENCES,
            horizontal=True,
            format_func=lambda p: {
                "chosen": "chosen fits better",
                "rejected": "rejected fits better",
                "equal": "both fit equally",
            }[p],
            key="gold_expect",
        )
        mark, unmark = st.columns(2)
        marked = mark.form_submit_button("Mark as gold", type="primary")
        unmarked = unmark.form_submit_button("Make ordinary again")
    if marked or unmarked:
        value = expect if marked else None
        n = act(
            lambda: progress.set_gold(
                engine(), actor_id(), study=study, record_ids=picked, expect=value
            )
        )
        if n is not None:
            notify(f"{n} pair(s) " + (f"marked gold ({expect})." if marked else "made ordinary."))
            st.rerun()
    if gold:
        st.dataframe(
            [{"pair": k, "expected": v} for k, v in sorted(gold.items())],
            hide_index=True,
            width="stretch",
        )
    else:
        st.caption("No gold pairs yet.")


if __name__ == "__main__":
    draw()
