"""The validated pairs as a preference dataset (issue 35.3): TRL's documented preference format
(https://huggingface.co/docs/trl/dataset_formats) plus what the humans said about each pair.

A row is one benchmark pair: `prompt`, `chosen` and `rejected` as strings (TRL's *standard*
format), or, when any pair of the study has earlier turns, as message lists (its
*conversational* format: the prompt's turns, and the chosen and the rejected response each as
one assistant message); one file holds one format, so a single-turn pair of such a study is a
prompt of one user message. Then the pair's id and domain, and the humans' figures: how many
annotators rated the pair, the share of them whose target-question difference favours the
chosen response (`human_agreement`), the majority's `verdict` (chosen, rejected or tie, as the
analysis computes it) and whether the benchmark's label held (`label_held`: the verdict is
chosen). A pair nobody rated is kept with `n_annotators` 0 and the three figures empty.

Nothing about the annotators is in it: no name, no pseudonym, no free text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from annotate.vocabulary import Verdict

PREFERENCE_COLUMNS = (
    "prompt",
    "chosen",
    "rejected",
    "pair_id",
    "domain",
    "n_annotators",
    "human_agreement",
    "verdict",
    "label_held",
)
PREFERENCE_FORMATS = ("jsonl", "parquet")
"""The file types of the preference export (a message list has no CSV cell)."""
PREFERENCE_NOTES = {
    "prompt": "the question asked (conversational format: the turns before the compared "
    "responses, as {role, content} messages)",
    "chosen": "the benchmark's chosen response (conversational: one assistant message)",
    "rejected": "the benchmark's rejected response (conversational: one assistant message)",
    "pair_id": "the benchmark record's id",
    "domain": "the record's domain",
    "n_annotators": "annotators who rated the pair (0: not rated yet)",
    "human_agreement": "share of the pair's annotators whose score difference on the target "
    "question favours the chosen response (empty: not rated)",
    "verdict": "the human majority: chosen, rejected or tie (empty: not rated)",
    "label_held": "true when the human majority prefers the chosen response (empty: not rated)",
}


@dataclass(frozen=True)
class PreferencePair:
    """A benchmark pair as the export reads it: `conversation` holds the {role, content} turns
    before the compared responses (empty: a single-turn pair)."""

    pair_id: str
    domain: str
    question: str
    chosen: str
    rejected: str
    conversation: Sequence[Mapping[str, str]] = field(default_factory=tuple)


def pair_of(record: Mapping[str, Any]) -> PreferencePair:
    """A pair from a plain mapping (a `Pair` row's fields; `conversation` optional)."""
    return PreferencePair(
        pair_id=str(record["pair_id"]),
        domain=str(record["domain"]),
        question=str(record["question"]),
        chosen=str(record["chosen"]),
        rejected=str(record["rejected"]),
        conversation=tuple(record.get("conversation") or ()),
    )


def standard_row(pair: PreferencePair) -> dict[str, str]:
    """TRL's standard preference row: the question and the two responses as strings."""
    return {"prompt": pair.question, "chosen": pair.chosen, "rejected": pair.rejected}


def conversational_row(pair: PreferencePair) -> dict[str, list[dict[str, str]]]:
    """TRL's conversational preference row: the prompt's turns (the pair's earlier turns, then
    the question as the user's turn unless the last earlier turn already is the user's), the
    chosen and the rejected response each as one assistant message."""
    turns = [{"role": str(t["role"]), "content": str(t["content"])} for t in pair.conversation]
    if not turns or turns[-1]["role"] != "user":
        turns.append({"role": "user", "content": pair.question})
    return {
        "prompt": turns,
        "chosen": [{"role": "assistant", "content": pair.chosen}],
        "rejected": [{"role": "assistant", "content": pair.rejected}],
    }


def preference_frame(pairs: Sequence[PreferencePair], verdicts: pd.DataFrame) -> pd.DataFrame:
    """The preference export of `pairs`, in their order, with the human figures of `verdicts`
    (the analysis' per-pair verdicts: index pair_id, columns n_annotators, n_chosen, verdict;
    a pair missing from it was not rated)."""
    conversational = any(p.conversation for p in pairs)
    rows: list[dict[str, Any]] = [
        {
            **(conversational_row(p) if conversational else standard_row(p)),
            "pair_id": p.pair_id,
            "domain": p.domain,
        }
        for p in pairs
    ]
    frame = pd.DataFrame(rows, columns=list(PREFERENCE_COLUMNS[:5]))
    found = verdicts.reindex(frame["pair_id"])
    rated = found["n_annotators"].fillna(0).astype("int64").to_numpy()
    frame["n_annotators"] = rated
    agreement = found["n_chosen"].to_numpy(float) / found["n_annotators"].to_numpy(float)
    frame["human_agreement"] = pd.Series(agreement, index=frame.index, dtype="Float64")
    frame["verdict"] = pd.Series(found["verdict"].to_numpy(), index=frame.index, dtype="string")
    held = frame["verdict"] == Verdict.CHOSEN.value
    frame["label_held"] = held.astype("boolean").where(frame["verdict"].notna())
    return frame


def agreeing(frame: pd.DataFrame) -> pd.DataFrame:
    """The pairs whose human majority agrees with the benchmark's label (`--agreeing-only`)."""
    return frame[frame["label_held"].fillna(False).astype(bool)].reset_index(drop=True)
