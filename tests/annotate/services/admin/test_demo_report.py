"""The demo study's report (issue 12): its low rubric alpha shows as a reliability caveat."""

from __future__ import annotations

from sqlalchemy.engine import Engine

from analysis.renderers.render import render_report
from annotate.services.admin.demo import DEMO_STUDY, set_up_demo
from annotate.services.results.reporting import study_ratings, study_report


def test_demo_report_shows_its_reliability_caveat(engine: Engine) -> None:
    set_up_demo(engine, simulated_annotators=5)
    report = study_report(study_ratings(engine, DEMO_STUDY), n_boot=50)
    # The caveat reads the alpha of the rubric chosen - rejected difference (issue 23.5).
    assert report["checks"]["reliability_caveat"] is True
    md = render_report(report, "md")
    assert "reliability caveat: annotators agree little on the size of the rubric difference" in md
    # what it measures, and that the interval already includes it (issue 33.6)
    assert "the verdict&#x27;s interval treats annotators as random" in render_report(
        report, "html"
    )
