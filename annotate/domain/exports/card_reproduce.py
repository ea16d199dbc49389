"""Reproducing the card's verdict: the R script and its Python twin shipped in the folder, and
the lines they print for a report, to the last digit that reproduces (:data:`DECIMALS`)."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import Any

from annotate.domain.exports.card_format import DECIMALS
from annotate.domain.exports.card_results import asked

REPRODUCE_FILES = {"reproduce.R": "reproduce.R", "reproduce.py": "reproduce.py.txt"}
"""Published name -> package data file (in ``reproduce/``): scripts that recompute the verdict's
figures and its Krippendorff's alphas from the ratings file (R: lme4/lmerTest and a base-R
alpha; Python: the analysis package and the krippendorff package)."""


def printed(value: float | None, kind: str) -> str:
    """A figure as the card's reproduce scripts print it: ``DECIMALS[kind]`` decimals, "NA"
    for none, a p-value below the last digit as "<0.001", never a negative zero."""
    if value is None:
        return "NA"
    digits = DECIMALS[kind]
    if kind == "p" and value < 10**-digits:
        return f"<{10**-digits:g}"
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def reproduced_output(report: Mapping[str, Any]) -> list[str]:
    """The lines `Rscript reproduce.R` and `python reproduce.py` print for `report` (from the
    published ratings they recompute the same figures, to the last printed digit): per
    dimension the estimate, 95% interval, df, TOST p, superiority p and verdict, then its
    ordinal, interval and difference alphas; the rubric preference's alpha; the study verdict."""
    lines = []
    for dim, r in report["dimensions"].items():
        ci = r["ci95"] or (None, None)
        fit = [*(printed(v, "estimate") for v in (r["mean_diff"], *ci))]
        fit += [printed(r.get("primary", {}).get("df"), "df"), printed(r["tost_p"], "p")]
        fit += [printed(r["superiority_p"], "p"), r["verdict"]]
        lines.append(" ".join([dim, *fit]))
        kinds = ("alpha_ordinal", "alpha_interval", "alpha_difference")
        lines.append(" ".join([f"alpha:{dim}", *(printed(r[k], "alpha") for k in kinds)]))
        if dim == asked(report).target:
            preference = report["agreement"]["preference"]["alpha_nominal"]
            lines.append(f"alpha:preference {printed(preference, 'alpha')}")
    lines.append(f"validated {'TRUE' if report['checks']['validated'] else 'FALSE'}")
    return lines


def reproduce_scripts() -> dict[str, bytes]:
    """The R script and its Python twin that recompute the verdict from the published files."""
    here = resources.files("annotate.domain.exports") / "reproduce"
    return {name: (here / source).read_bytes() for name, source in REPRODUCE_FILES.items()}
