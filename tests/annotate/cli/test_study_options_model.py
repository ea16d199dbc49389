"""The study commands' options are generated from the settings model (issue 35, item 4): a
setting added to the model is an option of `studies create|edit` with its help, read into the
settings, without another edit; the declared options keep their names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.testing import CliRunner

from annotate.cli.study_options import parameters, with_study_options
from annotate.domain.study.settings_model import Setting, Settings


class Extended(Settings):
    external_pilot: Annotated[
        dict[str, Any] | None,
        Setting("plan", "External pilot", "Pre-registered external pilot (JSON).", plan="pilot"),
    ] = None
    pilot_note: Annotated[str, Setting("plan", "Pilot note", "A note on the pilot.")] = ""
    pilot_blind: Annotated[bool, Setting("plan", "Blind pilot", "Whether the pilot is blind.")] = (
        False
    )


def _app(model: type[Settings]) -> tuple[typer.Typer, list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []

    def create(name: Annotated[str, typer.Argument()], settings: dict[str, Any]) -> None:
        seen.append({"name": name, **settings})

    app = typer.Typer()
    app.command("create")(with_study_options(create, model))
    return app, seen


def test_a_setting_added_to_the_model_is_an_option_with_its_help(tmp_path: Path) -> None:
    app, seen = _app(Extended)
    shown = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}).output
    for flag in ("--external-pilot-file", "--pilot-note", "--pilot-blind", "--no-pilot-blind"):
        assert flag in shown
    assert "A note on the pilot." in shown
    pilot = tmp_path / "pilot.json"
    pilot.write_text(json.dumps({"pairs": 40}), encoding="utf-8")
    args = ["s1", "--external-pilot-file", str(pilot), "--pilot-note", "n", "--pilot-blind"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert seen == [{"name": "s1", "external_pilot": {"pairs": 40}, "pilot_note": "n",
                     "pilot_blind": True}]  # fmt: skip


def test_the_declared_options_keep_their_names_and_order() -> None:
    names = [p.name for p in parameters()]
    assert names[:4] == ["seed", "questionnaire", "guidelines", "guidelines_file"]
    for name in ("margin", "pool", "enrolment", "preference", "platform_fee", "no_consent",
                 "consent_file", "survey_file", "checks_file", "overlap"):  # fmt: skip
        assert name in names
    assert names[-1] == "settings_file"
    assert "internal_pilot" in names  # its own parser: --internal-pilot 'first=N ...'
    assert "internal_pilot_file" not in names
    assert "practice_pairs_file" not in names


def test_options_read_by_their_parsers(tmp_path: Path) -> None:
    app, seen = _app(Settings)
    args = ["s1", "--pool-quota", "0", "--skip-limit", "-1", "--currency", " usd ",
            "--platform", "", "--smallest-effect", "margin", "--sequential", "looks=10,20",
            "--no-consent", "-k", "4", "--retention-days", "30"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    settings = seen[0]
    assert settings["pool_quota"] is None
    assert settings["skip_limit"] is None
    assert settings["currency"] == "USD"
    assert settings["platform"] is None
    assert settings["smallest_effect"] is None
    assert settings["consent_text"] == ""
    assert settings["sequential"]["looks"] == [10, 20]
    assert settings["overlap"] == 4
    assert settings["retention_days"] == 30  # derived: --the-name of the setting's type
    bad = CliRunner().invoke(app, ["s1", "--sequential", "looks"])
    assert bad.exit_code == 1
    assert "--sequential 'looks': expected one of" in bad.output
