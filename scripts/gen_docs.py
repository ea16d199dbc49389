"""The documentation's reference pages, generated from the code (issue 26, item 5).

An MkDocs hook (`hooks:` in mkdocs.yml): a page line `<!-- generated: NAME -->` is replaced at
build time by what `GENERATORS[NAME]` renders, so the references follow the code with nothing
to regenerate by hand:

* `cli`: every `prb-annotate` command from Typer's command tree (arguments, options, help);
* `report`: the validation report's JSON keys from its typed dicts (`analysis/schema`);
* `export`: the ratings export's columns from `annotate/vocabulary.py`;
* `settings`: a study settings file's fields from `annotate/domain/study/settings_model.py`;
* `methods`: how each figure of the report is computed (`analysis/methods.py`).

    python scripts/gen_docs.py cli      # print one generated section
"""

from __future__ import annotations

import re
import sys
import types
import typing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import typer  # noqa: E402
import yaml  # noqa: E402

MARKER = re.compile(r"^<!-- generated: (?P<name>[a-z_]+) -->$", re.M)


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split()).replace("|", "\\|")


# ---------------------------------------------------------------- the command line


def _command_trees() -> list[tuple[str, Any]]:
    """Typer's command trees (its own vendored click: groups have `commands`)."""
    from analysis.cli import app as analysis_app
    from annotate.cli import app, commands

    commands.load_all()  # every command module: the top group loads one only when it runs
    return [
        ("prb-annotate", typer.main.get_command(app)),
        ("python -m analysis", typer.main.get_command(analysis_app)),
    ]


def _walk(command: Any, path: list[str]) -> list[tuple[list[str], Any]]:
    found = [(path, command)]
    for name, sub in getattr(command, "commands", {}).items():
        if not sub.hidden:
            found += _walk(sub, [*path, name])
    return found


def _parameter_row(param: Any) -> str:
    if param.param_type_name == "option":
        names = ", ".join(f"`{o}`" for o in [*param.opts, *param.secondary_opts])
        default = param.default
        unset = default is None or default is False or default in ((), [])
        shown = "" if unset or callable(default) else f"`{default}`"
        return f"| {names} | {_one_line(param.help)} | {shown} |"
    name = (param.name or "").upper()
    many = " ..." if param.nargs == -1 else ""
    required = "required" if param.required else "optional"
    help_text = getattr(param, "help", None)
    return f"| `{name}{many}` (argument) | {_one_line(help_text)} | {required} |"


def cli_reference() -> str:
    """Every command: its usage, its help, and a table of its arguments and options."""
    lines = []
    for program, tree in _command_trees():
        lines += [f"## `{program}`", "", _one_line(tree.help), ""]
        lines += _commands(tree, program)
    return "\n".join(lines)


def _commands(tree: Any, program: str) -> list[str]:
    lines: list[str] = []
    for path, command in _walk(tree, [program]):
        if hasattr(command, "commands"):  # a group: its commands follow
            if len(path) > 1:
                lines += [f"## `{' '.join(path)}`", "", _one_line(command.help), ""]
            continue
        params = [p for p in command.params if p.name != "help"]
        lines += [f"### `{' '.join(path)}`", "", (command.help or "").strip(), ""]
        if params:
            lines += ["| argument or option | what it does | default |", "| --- | --- | --- |"]
            lines += [_parameter_row(p) for p in params]
            lines.append("")
    return lines


# ---------------------------------------------------------------- the report's schema


def _type_name(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin is typing.NotRequired:
        return _type_name(typing.get_args(hint)[0])
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(hint))
    if origin is list:
        return f"list of {_type_name(typing.get_args(hint)[0])}"
    if origin is dict:
        key, value = typing.get_args(hint)
        return f"{{{_type_name(key)}: {_type_name(value)}}}"
    if hint is type(None):
        return "null"
    name = getattr(hint, "__name__", str(hint))
    return {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}.get(name, name)


def _typed_dicts_in(hint: Any) -> list[type]:
    if typing.is_typeddict(hint):
        return [hint]
    return [t for arg in typing.get_args(hint) for t in _typed_dicts_in(arg)]


def report_reference() -> str:
    """The report's keys, one table per typed dict, from `Report` down."""
    from analysis.schema.report_types import Report

    seen: list[type] = []
    queue: list[type] = [Report]
    while queue:
        current = queue.pop(0)
        if current in seen:
            continue
        seen.append(current)
        hints = typing.get_type_hints(current, include_extras=True)
        queue += [t for hint in hints.values() for t in _typed_dicts_in(hint)]
    lines = []
    for typed in seen:
        hints = typing.get_type_hints(typed, include_extras=True)
        optional = typed.__optional_keys__  # type: ignore[attr-defined]
        lines += [f"### `{typed.__name__}`", "", _one_line(typed.__doc__), ""]
        lines += ["| key | type | present |", "| --- | --- | --- |"]
        for key, hint in hints.items():
            where = "when the study uses it" if key in optional else "always"
            lines.append(f"| `{key}` | {_type_name(hint)} | {where} |")
        lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------- the export's columns


def export_reference() -> str:
    from annotate import vocabulary as v

    groups = [
        ("Fixed columns (every export, in this order)", "EXPORT_COLUMNS"),
        ("With the direct preference", "PREFERENCE_EXPORT_COLUMNS"),
        ("Provenance (every export, last)", "PROVENANCE_EXPORT_COLUMNS"),
        ("The aspect table (`--table aspects`)", "ASPECT_EXPORT_COLUMNS"),
    ]
    lines = []
    for title, name in groups:
        columns = getattr(v, name)
        lines += [f"### {title}", "", ", ".join(f"`{c}`" for c in columns), ""]
        lines += [f"(`annotate.vocabulary.{name}`)", ""]
    lines += [
        f"With a survey, one `{v.SURVEY_COLUMN_PREFIX}<id>` column per question. Dimensions: "
        + ", ".join(f"`{d}`" for d in v.DIMENSIONS)
        + ".",
        "",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------- the settings file


def settings_reference() -> str:
    from annotate.domain.study.study_settings import VERSION_KEY, StudySettings

    lines = ["| field | type | default | note |", "| --- | --- | --- | --- |"]
    for name, field in StudySettings.model_fields.items():
        default = field.get_default(call_default_factory=True)
        hint = _type_name(field.annotation)
        lines.append(
            f"| `{name}` | {_one_line(hint)} | `{default!r}` | {_one_line(field.description)} |"
        )
    example = {VERSION_KEY: 1, **StudySettings().model_dump(exclude={VERSION_KEY})}
    lines += ["", "Every field at its default, as a YAML file:", "", "```yaml"]
    lines += [yaml.safe_dump(example, sort_keys=False, allow_unicode=True).rstrip(), "```", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- the methods text


def methods_reference() -> str:
    """How each figure is computed: `analysis.methods` on a report of simulated ratings, with
    the report's default settings (and its default bootstrap)."""
    from analysis.methods import methods
    from analysis.report import build_report
    from analysis.simulate import simulate_ratings
    from annotate.vocabulary import DEFAULT_N_BOOT

    report = build_report(simulate_ratings(30, 3, seed=1), n_boot=0)
    report["settings"]["n_boot"] = DEFAULT_N_BOOT
    lines = ["| figure | how it is computed |", "| --- | --- |"]
    lines += [f"| `{key}` | {_one_line(text)} |" for key, text in methods(report).items()]
    return "\n".join([*lines, ""])


GENERATORS = {
    "methods": methods_reference,
    "cli": cli_reference,
    "report": report_reference,
    "export": export_reference,
    "settings": settings_reference,
}


def expand(markdown: str) -> str:
    """The page with each `<!-- generated: NAME -->` line replaced by its section."""
    return MARKER.sub(lambda found: GENERATORS[found["name"]](), markdown)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """MkDocs hook."""
    return expand(markdown)


if __name__ == "__main__":
    print(GENERATORS[sys.argv[1]]())
