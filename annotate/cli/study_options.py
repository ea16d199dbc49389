"""The options of `prb-annotate studies create` and `studies edit`, generated from the study's
settings model (`annotate.domain.study.settings_model`): each setting's declared `Option`s, or
by default `--the-name` of its type (`--the-name/--no-the-name` for a yes/no, `--the-name-file`
of JSON for a list or mapping), with the setting's help; `--settings FILE` gives a settings file
under them. :func:`with_study_options` gives a command all of them and calls it with the
settings they give."""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union, get_args, get_origin

import typer
from pydantic import BaseModel

from annotate.cli.common import fail, refusals
from annotate.domain.study import option_values
from annotate.domain.study.settings_model import Option, Setting, Settings, spec_of
from annotate.domain.study.study_settings import read_settings

SCALARS = (bool, int, float, str)
SETTINGS_FILE = inspect.Parameter(
    "settings_file",
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    default=typer.Option(
        None,
        "--settings",
        help="A settings file (.yaml/.json, as `studies export-settings` writes; training: "
        "practice pairs, comprehension questions); the other options given win over it.",
    ),
    annotation=Path | None,
)


@dataclass(frozen=True)
class StudyOption:
    """One option of the study commands: the setting it sets and how."""

    setting: str
    option: Option
    kind: Any

    def parameter(self, help_text: str) -> inspect.Parameter:
        annotation = self.kind if self.option.default is not None else self.kind | None
        return inspect.Parameter(
            self.option.param,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=typer.Option(self.option.default, *self.option.names, help=help_text),
            annotation=annotation,
        )


def study_options(model: type[BaseModel] = Settings) -> Iterator[tuple[StudyOption, Setting]]:
    """Every option the settings of `model` have, in the model's order, with its setting."""
    for name, field in model.model_fields.items():
        spec = spec_of(field)
        scalar = _scalar(field.annotation)
        for option in _default_options(name, scalar) if spec.cli is None else spec.cli:
            yield StudyOption(name, option, option.kind or scalar or Path), spec


def _scalar(annotation: Any) -> Any:
    """int, float, str or bool for a setting of that type (or of it or None); None else."""
    if get_origin(annotation) in (Union, types.UnionType):
        kinds = [a for a in get_args(annotation) if a is not type(None)]
        annotation = kinds[0] if len(kinds) == 1 else None
    return annotation if annotation in SCALARS else None


def _default_options(name: str, scalar: Any) -> tuple[Option, ...]:
    flag = "--" + name.replace("_", "-")
    if scalar is bool:
        return (Option((f"{flag}/--no-{flag[2:]}",)),)
    if scalar is None:  # a list or mapping: read from a JSON file
        return (Option((f"{flag}-file",), kind=Path, parse=option_values.read_json),)
    return (Option((flag,)),)


def parameters(model: type[BaseModel] = Settings) -> list[inspect.Parameter]:
    """The study commands' parameters: every setting's options, then `--settings`."""
    shown = [o.parameter(o.option.help or spec.help) for o, spec in study_options(model)]
    return [*shown, SETTINGS_FILE]


def given_settings(given: dict[str, Any], model: type[BaseModel] = Settings) -> dict[str, Any]:
    """The settings a study command was given: its options (each read by its parser), over
    those of its --settings file."""
    settings: dict[str, Any] = {}
    with refusals():
        for study_option, _spec in study_options(model):
            option = study_option.option
            value = given.get(option.param)
            if value is None or value == option.default:
                continue
            settings[study_option.setting] = option.parse(value) if option.parse else value
    return settings_from_file(given.get("settings_file")) | settings


def with_study_options(
    command: Callable[..., None], model: type[BaseModel] = Settings
) -> Callable[..., None]:
    """`command(name, settings, **own options)` as a Typer command whose options are the study
    options (shown after `name`) and its own; it is called with the settings they give."""
    shared = parameters(model)
    own = inspect.signature(command, eval_str=True).parameters
    name, _settings_param, *rest = own.values()

    @functools.wraps(command)
    def run(**given: Any) -> None:
        options = {p.name: given.pop(p.name) for p in shared}
        command(given.pop(name.name), given_settings(options, model), **given)

    listed = [name, *shared, *rest]
    run.__signature__ = inspect.Signature(listed)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in listed}
    return run


def settings_from_file(path: Path | None) -> dict[str, Any]:
    """The settings a `--settings` file gives (all of its problems, located, if any)."""
    if path is None:
        return {}
    try:
        data = path.read_bytes()
    except OSError as error:
        raise fail(f"{path}: cannot read it ({error})") from None
    with refusals():
        return read_settings(str(path), data)
