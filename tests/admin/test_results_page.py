"""The results page (issue 12): verdict with the reliability caveat, and the power planner."""

from __future__ import annotations

from admin_helpers import make_study

from annotate.db import write_session
from annotate.domain.study import accounts
from annotate.services.simulated import store_simulated_ratings


def test_results_show_the_caveat_and_plan_power(page_engine, open_page) -> None:
    make_study(page_engine, "s", pairs=20, overlap=2)
    store_simulated_ratings(page_engine, "s", n_annotators=3, seed=5)
    with write_session(page_engine) as session:
        token = accounts.create_account(session, "reader", role="researcher")[1]
    at = open_page(token=token, pick="s")  # a researcher lands on Results, picks the study
    warnings = "\n".join(str(w.value) for w in at.warning)
    assert "Reliability caveat" in warnings
    assert [m for m in at.metric if m.label == "Human accuracy"]
    button = next(b for b in at.button if b.label == "Compute power")
    button.click().run()
    assert not at.exception, [e.value for e in at.exception]
    text = "\n".join(str(m.value) for m in at.markdown)
    assert "Joint verdict (validated): power" in text
    assert "pilot (20 pairs), k = 3" in text
