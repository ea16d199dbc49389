"""A study's settings declared once (issue 35, item 4): the `Study` table agrees with the model,
and a setting added to the model reaches the settings file without another edit (the CLI and
the page: tests/annotate/cli/test_study_options_model.py,
tests/annotate/app/admin/test_study_pages.py)."""

from __future__ import annotations

from typing import Annotated, Any

import pytest

from annotate.db.tables import Study
from annotate.domain.study import plan
from annotate.domain.study.settings_model import (
    DESIGN_SETTINGS,
    EDITABLE,
    FILE_SETTINGS,
    PLAN_SETTINGS,
    Setting,
    Settings,
    default,
    settings_where,
)
from annotate.domain.study.studies import stored_questionnaire
from annotate.domain.study.study_settings import file_model, read_settings


class WithPilot(Settings):
    """The model with one more plan setting (declared as `internal_pilot` was)."""

    external_pilot: Annotated[
        dict[str, Any] | None,
        Setting("plan", "External pilot", "Pre-registered external pilot.", plan="pilot"),
    ] = None


def _column_default(name: str) -> Any:
    return Study.model_fields[name].get_default(call_default_factory=True)


@pytest.mark.parametrize("name", [n for n in Settings.model_fields if n != "seed"])
def test_every_setting_is_a_column_of_the_study_with_the_model_default(name: str) -> None:
    assert name in Study.model_fields, f"{name}: no column in the Study table"
    expected = default(name)
    if name == "questionnaire":  # the model gives the template's name, the table stores it
        expected = stored_questionnaire(expected)
    assert _column_default(name) == expected


def test_the_seed_has_no_default_on_the_table_and_is_drawn_when_none() -> None:
    assert default("seed") is None
    assert Study.model_fields["seed"].is_required()


def test_the_derived_lists_are_the_ones_the_study_had() -> None:
    assert PLAN_SETTINGS == plan.PLAN_SETTINGS == (
        "equivalence_margin", "margin_unit", "smallest_effect", "alpha", "planned_pairs",
        "stopping_rule", "sequential", "internal_pilot",
    )  # fmt: skip
    assert plan.RECORD_KEYS["equivalence_margin"] == "margin"
    assert plan.RECORD_KEYS["margin_unit"] == "unit"
    assert {"overlap", "count_simulated", "exclusion_rules", *PLAN_SETTINGS} == DESIGN_SETTINGS
    assert "exclusion_rules" not in EDITABLE
    assert "exclusion_rules" in FILE_SETTINGS
    left_out = {"seed", "pool_open", "enrolment_open"}  # each study draws its own; opened by hand
    assert set(EDITABLE) - set(FILE_SETTINGS) == left_out


def test_a_setting_added_to_the_model_is_in_the_file_and_the_plan() -> None:
    extended = file_model(WithPilot)
    assert list(extended.model_fields)[-1] == "external_pilot"
    assert extended().model_dump()["external_pilot"] is None
    assert "external_pilot" in settings_where(lambda s: s.plan, WithPilot)
    assert "external_pilot" not in file_model().model_fields


def test_a_file_gives_only_the_settings_it_names() -> None:
    given = read_settings("s.yaml", b"overlap: 4\nexclusion_rules: {min_gold_accuracy: 0.5}\n")
    assert given == {"overlap": 4, "exclusion_rules": {"min_gold_accuracy": 0.5}}
