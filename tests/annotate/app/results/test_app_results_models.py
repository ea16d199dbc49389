"""The results page's reward-model tab (AppTest on the real entry script): the demo's made-up
models beside the humans, the label audit with its drill-down, model outputs shown as plain
text, and nothing of it on an annotator's page."""

from __future__ import annotations

from annotate.db import write_session
from annotate.db.tables import ModelPrediction
from tests.helpers.apptest_helpers import researcher_token

HOSTILE = '<img src=x onerror="window.__pwned=1"> **bold** ![x](http://evil/x.png)'


def test_the_demo_imports_both_made_up_models(rated_demo):
    assert rated_demo.models == ("madeup-pairwise-judge", "madeup-pointwise-rm")


def test_results_show_the_models_and_the_audit_drills_down_to_inert_text(
    open_app, rated_demo, engine
):
    with write_session(engine) as session:  # a judge output with markup, on an audited pair
        session.execute(
            ModelPrediction.__table__.update().values(raw_output=HOSTILE)  # type: ignore[attr-defined]
        )
    at = open_app(researcher_token(engine), pick="demo")
    assert [t.label for t in at.tabs][-2:] == ["Reward models", "Label audit"]
    shown = " ".join(str(df.value.to_dict()) for df in at.dataframe)
    assert "madeup-pointwise-rm" in shown
    assert "madeup-pairwise-judge" in shown
    audit = at.selectbox(key="audit_pair")
    assert audit.options, "the simulated demo has pairs against their label"
    audit.set_value(audit.options[0]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(m.value == "**Chosen** (the benchmark's label)" for m in at.markdown)
    assert HOSTILE in [t.value for t in at.text]  # plain text, never Markdown or HTML
    assert not any("<img" in m.value for m in at.markdown)


def test_an_annotator_sees_no_model_output(open_app, rated_demo, engine):
    at = open_app(rated_demo.token)
    page = " ".join(str(e.value) for e in at.markdown) + " ".join(str(e.value) for e in at.text)
    assert "**Pair 1 of 27**" in page  # the rating page, with its pair
    assert "madeup" not in page
    assert "Result:" not in page
    assert "Reward models" not in page
