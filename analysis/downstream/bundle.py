"""The downstream analysis from files (no database): a folder written by
`prb-annotate downstream export` read back into `downstream_summary`'s inputs.

The folder holds `outputs.csv` (the outputs table: condition, kind, model, variant, k, pair_id,
n_aspects, rm_score, judge_scores as JSON text, judge_average, judge_status), `comparisons.json`
(each comparison study's record), `ratings.csv` and `aspects.csv` (the comparison studies'
ratings export and aspect table) and `accuracy.json` (each reward model's benchmark accuracy).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.core.ratings import RatingsError
from analysis.downstream.summary import downstream_summary

FILES = ("outputs.csv", "comparisons.json", "ratings.csv", "aspects.csv", "accuracy.json")


def read_bundle(folder: Path) -> dict[str, Any]:
    """The keyword arguments of `downstream_summary`; RatingsError naming a missing file."""
    missing = [name for name in FILES if not (folder / name).is_file()]
    if missing:
        raise RatingsError(f"{folder}: missing {', '.join(missing)}")
    outputs = pd.read_csv(folder / "outputs.csv", dtype={"pair_id": str})
    outputs["judge_scores"] = [
        json.loads(v) if isinstance(v, str) else None for v in outputs["judge_scores"]
    ]
    outputs["judge_status"] = (
        outputs["judge_status"].astype(object).where(outputs["judge_status"].notna(), None)
    )
    return {
        "outputs": outputs,
        "comparisons": json.loads((folder / "comparisons.json").read_text(encoding="utf-8")),
        "ratings": pd.read_csv(folder / "ratings.csv", dtype={"pair_id": str}),
        "marks": pd.read_csv(folder / "aspects.csv", dtype={"pair_id": str}),
        "accuracy": json.loads((folder / "accuracy.json").read_text(encoding="utf-8")),
    }


def summary_from_folder(
    folder: Path, *, n_boot: int = 1000, seed: int = 0
) -> dict[str, Any] | None:
    return downstream_summary(**read_bundle(folder), n_boot=n_boot, seed=seed)
