"""The report's typed shape is the JSON's shape, and every renderer walks the same sections."""

from __future__ import annotations

from typing import NotRequired, get_origin, get_type_hints, is_typeddict

import pandas as pd
import pytest

from analysis.models.reward_models import attach_reward_models
from analysis.renderers import charts
from analysis.renderers.render import render_report
from analysis.renderers.sections import SECTIONS, drawn_sections
from analysis.report import build_report
from analysis.schema import model_types, report_types
from annotate.domain.models.reward_models import PREDICTION_COLUMNS

NESTED = {
    ("Report", "dimensions"): report_types.DimensionResult,
    ("Report", "by_domain"): report_types.DomainResult,
    ("Report", "position_bias"): report_types.PositionBias,
    ("DomainResult", "dimensions"): report_types.PairedTest,
    ("Exclusions", "dimensions"): report_types.DimensionExclusions,
    ("Report", "reward_models"): model_types.RewardModelResult,
    ("RewardModelResult", "by_domain"): model_types.ModelDomain,
    ("RewardModelResult", "margin_correlation"): model_types.Correlation,
    ("RewardModelResult", "position"): model_types.Proportion,
    ("RewardModelResult", "human_position"): model_types.Proportion,
}
LISTS = {
    ("Report", "annotators"): report_types.AnnotatorRow,
    ("Agreement", "pairwise"): report_types.AnnotatorPair,
    ("Report", "label_audit"): model_types.AuditRow,
}


def _check_keys(value: dict, shape: type) -> None:
    """Keys of ``value`` are exactly those of the TypedDict ``shape`` (its optional keys may be
    absent), recursively."""
    hints = get_type_hints(shape)
    # `NotRequired` is seen only with include_extras (the annotations are postponed strings).
    extras = get_type_hints(shape, include_extras=True)
    required = {key for key, hint in extras.items() if get_origin(hint) is not NotRequired}
    assert required <= set(value) <= set(hints), shape.__name__
    for key, hint in hints.items():
        inner = value.get(key)
        if inner is None:
            continue
        if is_typeddict(hint):
            _check_keys(inner, hint)
        elif (shape.__name__, key) in NESTED:
            for item in inner.values():
                _check_keys(item, NESTED[shape.__name__, key])
        elif (shape.__name__, key) in LISTS:
            for item in inner:
                _check_keys(item, LISTS[shape.__name__, key])


@pytest.fixture(scope="module")
def report(validating_study):
    return build_report(validating_study, n_boot=10)


def test_the_json_has_exactly_the_typed_keys(report):
    _check_keys(report, report_types.Report)


def test_the_json_with_reward_models_has_exactly_the_typed_keys(report, validating_study):
    first = validating_study["pair_id"].iloc[0]
    predictions = pd.DataFrame(
        [
            ["rm", "pointwise", first, "D", 1.0, 0.0, None, None, None, False, "ok"],
            ["judge", "pairwise", first, "D", None, None, "A", True, True, False, "ok"],
        ],
        columns=list(PREDICTION_COLUMNS),
    )
    extended = attach_reward_models(report, validating_study, predictions)
    assert set(extended["reward_models"]) == {"rm", "judge"}
    assert extended["label_audit"]
    _check_keys(extended, report_types.Report)


def test_every_chart_is_drawn_in_exactly_one_section():
    drawn = [name for section in SECTIONS for name in section.charts]
    assert sorted(drawn) == sorted(charts.FIGURES)


def test_markdown_and_html_show_the_same_sections_in_the_same_order(report):
    headings = [heading for _, _, heading, _ in drawn_sections(report)]
    md = render_report(report, "md")
    page = render_report(report, "html")
    md_positions = [md.index(f"\n## {h}\n") for h in headings]
    html_positions = [page.index(f"<h2>{h.replace(chr(39), '&#x27;')}</h2>") for h in headings]
    assert md_positions == sorted(md_positions)
    assert html_positions == sorted(html_positions)
