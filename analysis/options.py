"""The report's command-line options, shared by `python -m analysis report` and
`prb-annotate report`. Light to import: no statistics libraries are loaded here."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from annotate.questionnaire import TEMPLATES, Questionnaire, parse_questionnaire


class Format(StrEnum):
    json = "json"
    md = "md"
    html = "html"
    latex = "latex"


MarginOption = Annotated[
    float, typer.Option("--margin", help="TOST equivalence margin (scale points).")
]


class MarginUnit(StrEnum):
    points = "points"
    sd = "sd"


MarginUnitOption = Annotated[
    MarginUnit,
    typer.Option(
        "--margin-unit", help="Unit of --margin: scale points, or SDs of the paired differences."
    ),
]
AlphaOption = Annotated[float, typer.Option("--alpha", help="Significance level.")]
SmallestEffectOption = Annotated[
    float | None,
    typer.Option(
        "--smallest-effect",
        help="Smallest effect of interest, in the margin's unit: chosen 'diverges' only when it "
        "exceeds rejected by more than this (default: the margin).",
    ),
]
HolmOption = Annotated[
    bool,
    typer.Option(
        "--holm/--no-holm",
        help="Holm-adjust the exploratory by-domain tests (the study verdict, an "
        "intersection-union test, needs no correction).",
    ),
]
BootstrapOption = Annotated[
    int, typer.Option("--bootstrap", help="Bootstrap resamples for alpha CIs (0: none).")
]
SeedOption = Annotated[int, typer.Option("--seed", help="Bootstrap seed.")]
FormatOption = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
OutputOption = Annotated[
    Path | None, typer.Option("--output", "-o", help="Write to this file, not stdout.")
]
PlanPairsOption = Annotated[
    int | None,
    typer.Option("--plan-pairs", help="Planned pairs: adds the power analysis ('power')."),
]
PlanAnnotatorsOption = Annotated[
    int, typer.Option("--plan-annotators", help="Planned annotators per pair.")
]


def planned_values(plan_pairs: int | None, plan_annotators: int) -> dict[str, float] | None:
    """The report's planned values for its power analysis (None: no plan given)."""
    if plan_pairs is None:
        return None
    return {"n_pairs": plan_pairs, "annotators_per_pair": plan_annotators}


QuestionnaireOption = Annotated[
    str,
    typer.Option(
        "--questionnaire",
        help="The study's questions: a template's name (prb, rmbench, pairwise) or a JSON or "
        "YAML file holding a questionnaire (a template's name, {template, span_labels} or "
        "{questions: [...]}).",
    ),
]


def read_questionnaire(value: str) -> Questionnaire:
    """The questionnaire of --questionnaire: a template's name, or a file holding one;
    ValueError naming the file and the field."""
    if value.strip() in TEMPLATES:
        return TEMPLATES[value.strip()]
    path = Path(value)
    if not path.is_file():
        raise ValueError(
            f"--questionnaire: expected a template's name ({', '.join(TEMPLATES)}) or a file, "
            f"got {value!r}"
        )
    import yaml  # JSON is YAML too

    try:
        return parse_questionnaire(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (ValueError, yaml.YAMLError) as error:
        raise ValueError(f"{path}: {error}") from None
