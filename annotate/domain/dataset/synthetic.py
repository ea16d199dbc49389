"""Large synthetic datasets in the benchmark's format, for tests and benchmarks.

The text is filler; the shape (field types, profile length, word counts, domains) is the
benchmark's: three domains of 767, 989 and 1,074 pairs, profiles of 100+ posts, ~100-word
responses.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BENCHMARK_DOMAINS: dict[str, int] = {
    "Art_and_Entertainment": 767,
    "Lifestyle_and_Personal_Development": 989,
    "Society_and_Culture": 1074,
}

_WORDS = [
    "answer",
    "question",
    "practice",
    "forum",
    "advice",
    "budget",
    "beginner",
    "weekend",
    "history",
    "detail",
    "source",
    "example",
    "method",
    "plan",
    "guide",
    "simple",
    "quick",
    "clear",
    "reason",
    "evidence",
    "context",
    "experience",
    "level",
    "schedule",
    "family",
    "project",
    "season",
    "style",
    "genre",
    "classic",
    "modern",
    "local",
    "culture",
    "language",
    "story",
    "music",
    "film",
    "book",
    "garden",
    "recipe",
    "training",
    "habit",
    "routine",
    "cost",
    "option",
    "compare",
    "prefer",
    "avoid",
]


def _sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(_WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def synthetic_record(rng: random.Random, record_id: str, *, profile_size: int) -> dict[str, Any]:
    category = rng.choice(["anime", "cooking", "history", "fitness", "music", "law"])
    return {
        "id": record_id,
        "question": _sentence(rng, 14).rstrip(".") + "?",
        "profile": [
            {"id": f"{record_id}_p{i}", "category": category, "text": _sentence(rng, 30)}
            for i in range(profile_size)
        ],
        "rubric_aspects": [
            {
                "aspect": _sentence(rng, 10),
                "evidence": _sentence(rng, 15),
                "reason": _sentence(rng, 12),
            }
            for _ in range(rng.randint(3, 6))
        ],
        "narrative": _sentence(rng, 90),
        "category": category,
        "chosen": _sentence(rng, 100),
        "rejected": _sentence(rng, 100),
    }


def synthetic_records(
    n: int, *, seed: int = 0, profile_size: int = 120, prefix: str = "syn"
) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    for i in range(n):
        yield synthetic_record(rng, f"{prefix}_{i}_0", profile_size=profile_size)


def write_synthetic_benchmark(
    folder: Path, *, seed: int = 0, profile_size: int = 120, scale: float = 1.0
) -> list[Path]:
    """Write one `<Domain>_test.jsonl` per domain, the full benchmark's size times `scale`."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, (domain, size) in enumerate(BENCHMARK_DOMAINS.items()):
        path = folder / f"{domain}_test.jsonl"
        records = synthetic_records(
            max(1, round(size * scale)),
            seed=seed + index,
            profile_size=profile_size,
            prefix=f"{index}",
        )
        with path.open("w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        paths.append(path)
    return paths
