"""The Studies page's words for a study's settings, from the settings model
(`annotate.domain.study.settings_model`): each input's label and help, and an input for every
setting the page's laid-out forms do not draw (a setting added to the model is on the page
without another edit): a toggle for a yes/no, a number box for a number (empty: none where the
setting may be none), a text box for a text, a JSON box for a list or mapping."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, get_args

import streamlit as st
from pydantic import BaseModel

from annotate.domain.study.settings_model import Settings, default, setting, settings_where


class Unread(str):
    """A JSON box's text that cannot be read: where and why (the form shows it, saves nothing)."""

    __slots__ = ()


ELSEWHERE = ("training", "rules", "adjudication")
"""Groups drawn by their own forms (the training YAML, the exclusion rules; the Adjudication
page's threshold)."""


def label(name: str) -> str:
    return setting(name).label


def help_text(name: str) -> str | None:
    return setting(name).help or None


def other_settings(drawn: Iterable[str], model: type[BaseModel] = Settings) -> tuple[str, ...]:
    """The settings of `model` an admin edits that the laid-out forms (`drawn`) leave out."""
    seen = set(drawn)
    return tuple(
        name
        for name in settings_where(lambda s: s.group not in ELSEWHERE, model)
        if name not in seen and name != "seed"
    )


def other_inputs(
    study: Any, key: str, drawn: Iterable[str], model: type[BaseModel] = Settings
) -> dict[str, Any]:
    """An input for each setting the forms leave out; a JSON box that cannot be read gives
    its located reason as a str (shown by the form, nothing saved)."""
    names = other_settings(drawn, model)
    if not names:
        return {}
    st.markdown("##### Other settings")
    return {name: _input(study, key, name, model) for name in names}


def _input(study: Any, key: str, name: str, model: type[BaseModel]) -> Any:
    return setting_input(st, study, name, f"{key}_{name}", model=model)


def setting_input(
    where: Any,
    study: Any,
    name: str,
    key: str,
    *,
    none_as: float | None = None,
    model: type[BaseModel] = Settings,
    **options: Any,
) -> Any:
    """The input of setting `name` in `where` (the page or a column), with the model's label
    and help (`options` may add limits or another help), at the study's value (the model's
    default when the row has none); `none_as`: the number a number box shows for none."""
    field, spec = model.model_fields[name], setting(name, model)
    now = getattr(study, name, default(name, model))
    options = {"key": key, "help": spec.help or None} | options
    optional = type(None) in get_args(field.annotation)
    kind = _inner(field.annotation) if optional else field.annotation
    if kind is bool:
        return where.toggle(spec.label, value=bool(now), **options)
    if kind in (int, float):
        shown = none_as if now is None and none_as is not None else now
        shown = kind(shown) if shown is not None else None  # a float box wants a float
        value = where.number_input(spec.label, value=shown, **{"step": 1, **options})
        return None if value is None or value == none_as else kind(value)
    if kind is str:
        text = where.text_input(spec.label, value=now or "", **options)
        return (text.strip() or None) if optional else text
    shown = "" if now is None else json.dumps(now, indent=1)
    text = where.text_area(f"{spec.label} (JSON)", value=shown, **options)
    return read_json(text, spec.label, None if optional else default(name, model))


def _inner(annotation: Any) -> Any:
    kinds = [a for a in get_args(annotation) if a is not type(None)]
    return kinds[0] if len(kinds) == 1 else None


def read_json(text: str, what: str, empty: Any) -> Any:
    """A setting typed as JSON in a box (`what`: its label); `empty` when the box is empty; an
    `Unread` with the line and column when it is not JSON."""
    if not text.strip():
        return empty
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        return Unread(f"{what}, line {error.lineno}, column {error.colno}: {error.msg}")
