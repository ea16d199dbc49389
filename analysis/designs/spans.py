"""Spans (issue 36.3): for every span label of the study, how often the chosen and the rejected
response carry one, and how much annotators agree on where.

Input: the spans table (`prb-annotate export --kind spans`: one row per span kept, `start` and
`end` code points of the stored response), the ratings (which annotator rated which pair: a
rated response without a span of a label counts as one without it) and the stored texts of the
responses (for the tokens).

- **Share with a span**: over the ratings (a pair as one annotator rated it), the share whose
  chosen response has at least one span of the label, and the same of the rejected response.
  The difference (chosen minus rejected) is estimated pair by pair, a pair's annotators
  averaged, with the t interval over pairs (R: `t.test(d)`: pairs as the unit, so annotators
  of one pair are not taken as independent); McNemar's test over the ratings' paired
  outcomes (R: `mcnemar.test(table)`, continuity-corrected) beside it.
- **Agreement on spans**: token-level F1 between every two annotators of a pair, for each
  response: a token (a run of non-space characters of the stored text) is marked by an
  annotator when one of their spans of the label overlaps it; F1 = 2|A∩B| / (|A| + |B|),
  pooled over all annotator pairs and responses (micro F1), so that responses nobody marked
  do not count as agreement. Undefined (None) when no token was marked.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd
from statsmodels.stats.contingency_tables import mcnemar

from analysis.core.ratings import purpose_mask
from analysis.inference.paired import t_interval
from analysis.schema.jsonable import to_jsonable
from analysis.schema.report_types import Report

TOKEN = re.compile(r"\S+")
Texts = Mapping[tuple[str, str], str]
"""(pair id, response) -> the response's stored text."""


def tokens(text: str) -> list[tuple[int, int]]:
    """The tokens of a text: (start, end) code points of each run of non-space characters."""
    return [(m.start(), m.end()) for m in TOKEN.finditer(text)]


def _rated(ratings: pd.DataFrame) -> pd.DataFrame:
    """The (pair, annotator) ratings, one row each."""
    rows = ratings[purpose_mask(ratings)]
    return rows[["pair_id", "annotator"]].drop_duplicates().reset_index(drop=True)


def _has_span(rated: pd.DataFrame, spans: pd.DataFrame, response: str) -> np.ndarray:
    marked = set(
        zip(
            *(spans.loc[spans["response"] == response, c] for c in ("pair_id", "annotator")),
            strict=True,
        )
    )
    return np.array(
        [(p, a) in marked for p, a in zip(rated["pair_id"], rated["annotator"], strict=True)]
    )


def share_with_span(rated: pd.DataFrame, spans: pd.DataFrame, alpha: float) -> dict[str, Any]:
    """Share of ratings whose chosen / rejected response has a span, their difference by pair
    with its t interval, and McNemar's test (see the module's docstring)."""
    chosen = _has_span(rated, spans, "chosen")
    rejected = _has_span(rated, spans, "rejected")
    by_pair = (
        pd.DataFrame({"pair_id": rated["pair_id"], "d": chosen.astype(float) - rejected})
        .groupby("pair_id")["d"]
        .mean()
    )
    table = [
        [int(np.sum(chosen & rejected)), int(np.sum(chosen & ~rejected))],
        [int(np.sum(~chosen & rejected)), int(np.sum(~chosen & ~rejected))],
    ]
    discordant = table[0][1] + table[1][0]
    p_value = float(mcnemar(table, exact=False, correction=True).pvalue) if discordant else None
    n = len(rated)
    return {
        "n_ratings": n,
        "n_pairs": len(by_pair),
        "chosen_share": float(chosen.mean()) if n else None,
        "rejected_share": float(rejected.mean()) if n else None,
        "difference": float(by_pair.mean()) if len(by_pair) else None,
        "difference_ci": t_interval(by_pair.to_numpy(float), 1 - alpha),
        "mcnemar_table": table,
        "mcnemar_p": p_value,
    }


def _marked_tokens(text: str, marks: Sequence[tuple[int, int]]) -> set[int]:
    return {i for i, (s, e) in enumerate(tokens(text)) if any(a < e and s < b for a, b in marks)}


def token_f1(rated: pd.DataFrame, spans: pd.DataFrame, texts: Texts) -> dict[str, Any]:
    """Micro token-level F1 between every two annotators of a pair (module's docstring)."""
    by_unit: dict[tuple[str, str, str], list[tuple[int, int]]] = {}
    for row in spans.itertuples(index=False):
        key = (str(row.pair_id), str(row.response), str(row.annotator))
        by_unit.setdefault(key, []).append((int(row.start), int(row.end)))
    both = overlap = compared = 0
    for pair_id, group in rated.groupby("pair_id"):
        annotators = sorted(map(str, group["annotator"]))
        for response in ("chosen", "rejected"):
            text = texts.get((str(pair_id), response), "")
            marked = {
                a: _marked_tokens(text, by_unit.get((str(pair_id), response, a), []))
                for a in annotators
            }
            for first, second in itertools.combinations(annotators, 2):
                compared += 1
                overlap += len(marked[first] & marked[second])
                both += len(marked[first]) + len(marked[second])
    return {"f1": 2 * overlap / both if both else None, "n_compared": compared}


def span_summary(
    spans: pd.DataFrame,
    ratings: pd.DataFrame,
    texts: Texts,
    labels: Mapping[str, str],
    alpha: float = 0.05,
) -> list[dict[str, Any]]:
    """One entry per span label (in the questionnaire's order): its words, the shares with a
    span and their difference, and token-level agreement."""
    rated = _rated(ratings)
    spans = spans[purpose_mask(spans)] if len(spans) else spans
    out = []
    for key, words in labels.items():
        own = spans[spans["label"] == key] if len(spans) else spans
        out.append(
            {
                "label": key,
                "words": words,
                "n_spans": len(own),
                **share_with_span(rated, own, alpha),
                "agreement": token_f1(rated, own, texts),
            }
        )
    return out


def attach_spans(
    report: Report,
    spans: pd.DataFrame | None,
    ratings: pd.DataFrame,
    texts: Texts,
    labels: Mapping[str, str],
) -> Report:
    """The report with its `spans` key, for a study with span labels (none: unchanged)."""
    if spans is None or not labels:
        return report
    alpha = float(report.get("settings", {}).get("alpha", 0.05))
    summary = span_summary(spans, ratings, texts, labels, alpha)
    return cast(Report, {**report, "spans": to_jsonable(summary)})
