"""The results page (issue 12): verdict with the reliability caveat, and the power planner."""

from __future__ import annotations

import re

from annotate.db import write_session
from annotate.domain.study import accounts
from annotate.services.admin.simulated import store_simulated_ratings
from tests.helpers.admin_helpers import active_markdown, make_study


def test_results_show_the_caveat_and_plan_power(page_engine, open_page) -> None:
    make_study(page_engine, "s", pairs=20, overlap=2)
    store_simulated_ratings(page_engine, "s", n_annotators=3, seed=5, count=True)
    with write_session(page_engine) as session:
        token = accounts.create_account(session, "reader", role="researcher")[1]
    at = open_page(token=token, pick="s")  # a researcher lands on Results, picks the study
    warnings = "\n".join(str(w.value) for w in at.warning)
    assert "Reliability caveat" in warnings
    assert "it already includes this disagreement" in warnings  # issue 33.6
    assert "Krippendorff's alpha of the rubric chosen - rejected difference is" in warnings
    captions = "\n".join(str(c.value) for c in at.caption)
    assert "it already includes this disagreement" not in captions  # said once, in the warning
    assert [m for m in at.metric if m.label == "Human accuracy"]
    button = next(b for b in at.button if b.label == "Size the study")
    button.click().run(timeout=60)
    assert not at.exception, [e.value for e in at.exception]
    text = "\n".join(str(m.value) for m in at.markdown)
    assert "Sizing from a pilot of 20 pairs, 3 annotators" in text
    assert "70% upper confidence limit (profile likelihood, for reading" in text
    assert "Recommended:" in text or "No design on this grid" in text
    assert "x 1 annotators per pair" not in text  # k >= 2 by default (issue 33.4)
    assert "| 1 | 6 |" not in text
    assert "planned for" in text  # which rubric difference it assumed
    if "Recommended:" in text:  # a pilot this small also gets an internal pilot (issue 33.4)
        assert "**Recommended for this small pilot: an internal pilot.**" in text


def test_results_say_interim_simulated_and_keep_the_study_s_margin_unit(
    page_engine, open_page
) -> None:
    """A study with its margin in SD units, a planned size not reached and counted simulated
    ratings: the page reads the verdict as interim, labels the simulated ratings, and its
    default settings are the plan's (no departure from it)."""
    make_study(page_engine, "s", pairs=20, overlap=2, margin_unit="sd", planned_pairs=50)
    store_simulated_ratings(page_engine, "s", n_annotators=3, seed=5, count=True)
    with write_session(page_engine) as session:
        token = accounts.create_account(session, "reader", role="researcher")[1]
    at = open_page(token=token, pick="s")
    assert not at.exception, [e.value for e in at.exception]
    shown = "\n".join(str(w.value) for w in [*at.success, *at.warning, *at.info])
    assert "**Interim:** " in shown
    assert "rubric alignment " in shown  # the verdict line names dimensions in words
    assert "rubric_alignment" not in shown
    assert "**Simulated ratings:** 3 SIMULATED annotator(s)" in shown
    assert "COUNTED in every figure" in shown
    assert "**Analysis plan:** INTERIM\\: 20 of 50 planned pairs analysed." in shown  # (plain)
    assert "not the pre-registered analysis" not in shown  # the page's defaults are the plan
    margins = [n for n in at.number_input if n.label.startswith("Equivalence margin")]
    assert [n.label for n in margins] == ["Equivalence margin (SD units)"]  # issue 35.4


def test_results_say_the_group_sequential_look_and_its_decision(page_engine, open_page) -> None:
    """A study with a group-sequential plan (looks at 20, 40, 60 pairs) at its first look: the
    page says the look, the boundary and "continue" or "stop", and reads the verdict as
    interim; validated only where the boundary is crossed."""
    plan = {"looks": [20, 40, 60], "alpha_spending": "obrien-fleming"}
    make_study(page_engine, "s", pairs=20, overlap=2, sequential=plan)
    store_simulated_ratings(page_engine, "s", n_annotators=3, seed=5, count=True)
    with write_session(page_engine) as session:
        token = accounts.create_account(session, "reader", role="researcher")[1]
    at = open_page(token=token, pick="s")
    assert not at.exception, [e.value for e in at.exception]
    shown = "\n".join(str(w.value) for w in [*at.success, *at.warning, *at.info])
    assert "**Group-sequential plan: " in shown
    # rpact, 3 equal looks, asOF, alpha 0.05: z 3.200102, 1 - pnorm(3.200102) = 0.0006869
    assert "look 1 of 3 (20 of 60 pairs)\\: boundary p \\< 0.0006869 (z 3.200)" in shown  # (plain)
    assert "**Interim:** " in shown


def test_the_downstream_section_and_a_comparison_study_without_a_verdict(
    page_engine, open_page
) -> None:
    from annotate.services.admin.demo import demo_data_folder, set_up_demo_downstream

    set_up_demo_downstream(page_engine, demo_data_folder(), 3)
    store_simulated_ratings(page_engine, "demo-downstream", n_annotators=2, seed=3)
    with write_session(page_engine) as session:
        token = accounts.create_account(session, "reader", role="researcher")[1]
    at = open_page(token=token, pick="demo-downstream")
    assert "Downstream" in [h.value for h in at.subheader]
    text = "\n".join(str(m.value) for m in at.markdown)
    assert "Over 3 reward models, the humans" in text
    assert len(at.get("plotly_chart")) >= 2  # the scaling curve and the judge-human chart
    assert not at.exception
    at = open_page(token=token, pick="demo-bon-madeup-rm-a")
    infos = "\n".join(str(i.value) for i in at.info)
    assert "Comparison study" in infos
    verdicts = "\n".join(str(s.value) for s in [*at.success, *at.warning])
    assert "Validated" not in verdicts
    assert "Not validated" not in verdicts
    (table,) = [t.value for t in at.table if "Dimension" in t.value.columns]
    assert "Verdict" not in table.columns
    assert {"Mean expected", "Mean baseline"} <= set(table.columns)
    assert not at.exception
    # issue 34.5: its tables, captions and charts said chosen/rejected and "validated"
    frames = [d.value for d in [*at.dataframe, *at.table]]
    said = [str(c.value) for c in at.caption] + [
        " ".join(map(str, [*f.columns, *f.astype(str).to_numpy().ravel()])) for f in frames
    ]
    said += [str(c.proto.spec) for c in at.get("plotly_chart")]
    words = re.compile(r"\bchosen\b|\brejected\b|validated", re.I)
    assert [text[:300] for text in said if words.search(text)] == [], "\n".join(
        t[:300] for t in said if words.search(t)
    )
    assert "Model diff [95% CI]" in table.columns


def test_a_stopping_rule_changed_after_data_shows_as_its_own_characters(
    page_engine, open_page
) -> None:
    """The plan's note quotes an admin's stopping rule: in the warning above the verdict and in
    the caption of the analysis plan's table it is text, never a link, an image or HTML."""
    from annotate.domain.study.studies import update_study

    hostile = "[click](https://evil.example/x) ![t](https://evil.example/p.png) <img src=x>"
    make_study(page_engine, "s", pairs=20, overlap=2)
    store_simulated_ratings(page_engine, "s", n_annotators=3, seed=5, count=True)
    with write_session(page_engine) as session:
        update_study(session, "s", force=True, stopping_rule=hostile)  # after data
        token = accounts.create_account(session, "reader", role="researcher")[1]
    at = open_page(token=token, pick="s")
    assert not at.exception, [e.value for e in at.exception]
    shown = [str(w.value) for w in at.warning] + [str(c.value) for c in at.caption]
    quoting = [text for text in shown if "evil" in text]
    assert len(quoting) == 2, quoting  # the warning and the plan table's caption
    for text in quoting:
        assert active_markdown(text) == set(), text
