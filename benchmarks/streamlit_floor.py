"""The floor of a Streamlit page's first open, for `bench_browser.py`: three elements (a line of
text, one 5-point radio, a text box holding a token), nothing of prb-annotate's. The time from
its websocket opening to the token and the radio drawn is what Streamlit itself takes."""

import streamlit as st

st.markdown("**Pair 1 of 3** · a page with three elements")
with st.container(key="floor_radio"):
    st.radio("Factuality", [1, 2, 3, 4, 5], index=None, horizontal=True)
st.text_input("token", value="42", key="floor_token")
