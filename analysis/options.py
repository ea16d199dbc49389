"""The report's command-line options, shared by `python -m analysis report` and
`prb-annotate report`. Light to import: no statistics libraries are loaded here."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


class Format(StrEnum):
    json = "json"
    md = "md"
    html = "html"


MarginOption = Annotated[
    float, typer.Option("--margin", help="TOST equivalence margin (scale points).")
]
AlphaOption = Annotated[float, typer.Option("--alpha", help="Significance level.")]
HolmOption = Annotated[
    bool, typer.Option("--holm", help="Holm-adjust p-values across the four dimensions.")
]
BootstrapOption = Annotated[
    int, typer.Option("--bootstrap", help="Bootstrap resamples for alpha CIs (0: none).")
]
SeedOption = Annotated[int, typer.Option("--seed", help="Bootstrap seed.")]
FormatOption = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
OutputOption = Annotated[
    Path | None, typer.Option("--output", "-o", help="Write to this file, not stdout.")
]
