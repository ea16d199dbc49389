"""How the validation card writes figures and tables: only the digits that reproduce
(:data:`DECIMALS`), "n/a" for none, cells made inert (:func:`annotate.markup.markdown_cell`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annotate.markup import markdown_cell

DECIMALS = {"estimate": 3, "df": 1, "p": 3, "alpha": 3}
"""The decimals the card and both reproduce scripts print, kind of figure -> decimals: only
digits that reproduce. lme4/lmerTest and this package's REML agree to about 1e-4 on the
estimate and interval, 2e-3 on Satterthwaite's df (its optimum is flat) and 2e-5 on a p-value;
each kind is printed where that error is under a tenth of the last digit (the alphas are exact
formulas). The scripts write these numbers as they are, so change them together."""


def num(value: Any, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def p_text(value: float | None) -> str:
    smallest = 10 ** -DECIMALS["p"]
    return (
        f"< {smallest:g}" if value is not None and value < smallest else num(value, DECIMALS["p"])
    )


def interval(value: Sequence[float] | None) -> str:
    return "n/a" if not value else f"[{num(value[0])}, {num(value[1])}]"


def cell(text: Any) -> str:
    return markdown_cell(text)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    return out + ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
