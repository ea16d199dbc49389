"""Synthetic reward-model outputs with a chosen accuracy, in the benchmark's own shapes
(`evaluation/pointwise.py`, `evaluation/pairwise.py`), for tests, demos and benchmarks.

Exactly round(accuracy x pairs) pairs are right, which ones is drawn from the seed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from annotate.domain.dataset.problems import DatasetError, Problem
from annotate.domain.dataset.readers import read_raw
from annotate.errors import Invalid
from annotate.vocabulary import MODEL_KINDS, ModelKind


def dataset_ids(paths: Sequence[Path]) -> list[str]:
    """The pair ids of benchmark files, in file order."""
    ids = []
    for path in paths:
        for location, value in read_raw(path):
            if isinstance(value, Problem):
                raise DatasetError([value])
            if not isinstance(value, dict) or not isinstance(value.get("id"), str):
                raise DatasetError([Problem(str(path), location, "expected a record with an id")])
            ids.append(value["id"])
    return ids


def model_outputs(
    ids: Sequence[str], *, kind: str, accuracy: float, seed: int = 0
) -> Iterator[dict[str, Any]]:
    """The records a model with this accuracy would produce on these pairs."""
    if kind not in MODEL_KINDS:
        raise Invalid(f"unknown model kind {kind!r}; expected one of {', '.join(MODEL_KINDS)}")
    if not 0 <= accuracy <= 1:
        raise Invalid(f"accuracy must be between 0 and 1, got {accuracy}")
    rng = np.random.default_rng(seed)
    right = np.zeros(len(ids), bool)
    right[rng.permutation(len(ids))[: round(accuracy * len(ids))]] = True
    for record_id, correct in zip(ids, right.tolist(), strict=True):
        if kind == ModelKind.POINTWISE:
            base, gap = float(rng.normal()), abs(float(rng.normal(1.0, 0.5))) + 1e-3
            chosen, rejected = (base + gap, base) if correct else (base, base + gap)
            for label, score in (("chosen", chosen), ("rejected", rejected)):
                yield {"id": record_id, "query": "", "answer": "", "label": label, "score": score}
        else:
            pos_in_a = bool(rng.random() < 0.5)
            answer = "A" if pos_in_a else "B"
            prediction = answer if correct else ("B" if pos_in_a else "A")
            yield {
                "id": record_id,
                "query": "",
                "pos_in_a": pos_in_a,
                "prediction": prediction,
                "correct_answer": answer,
                "correct": correct,
                "parse_failed": False,
                "raw_output": f"Result: {prediction}",
            }


def write_model_outputs(
    ids: Sequence[str], path: Path, *, kind: str, accuracy: float, seed: int = 0
) -> int:
    """Write the outputs as JSONL; return the number of records."""
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for record in model_outputs(ids, kind=kind, accuracy=accuracy, seed=seed):
            handle.write(json.dumps(record) + "\n")
            count += 1
    return count
