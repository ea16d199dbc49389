"""The floor of a Streamlit page's first open, for `bench_browser.py`: three elements (a line of
text, one 5-point radio, a text box holding a token), nothing of prb-annotate's. The time from
its websocket opening to the token and the radio drawn is what Streamlit itself takes.

`PRB_FLOOR_EXTRA="<kind>:<n>"` (`bench_streamlit_elements.py`) draws n more elements of one kind
before them: `markdown` (a short paragraph each) or `radio` (a 5-point radio with anchors, as
the rating page's scores), to see what each element adds to the first open."""

import os

import streamlit as st

POINTS = {1: "Very poor", 2: "Poor", 3: "Fair", 4: "Good", 5: "Excellent"}

kind, _, count = os.environ.get("PRB_FLOOR_EXTRA", "markdown:0").partition(":")
for number in range(int(count)):
    if kind == "radio":
        st.radio(
            f"Question {number}",
            list(POINTS),
            index=None,
            format_func=lambda v: f"{v} · {POINTS[v]}",
            horizontal=True,
            key=f"extra_{number}",
        )
    else:
        st.markdown(f"Paragraph {number}: *a line* of **text**, as a short answer might be.")

st.markdown("**Pair 1 of 3** · a page with three elements")
with st.container(key="floor_radio"):
    st.radio("Factuality", [1, 2, 3, 4, 5], index=None, horizontal=True)
st.text_input("token", value="42", key="floor_token")
