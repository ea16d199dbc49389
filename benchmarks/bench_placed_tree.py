"""What spans cost the server per response (issue 36.3): a response drawn by the pair
component is parsed into a text tree (`text_tree.text_tree`); a study with span labels sends a
*placed* tree instead (`text_tree.placed_tree`: every text with its place in the stored text).
Both are cached per text; this is the uncached cost and the bytes sent, for responses of the
benchmark's size (about 100 words) with a list, bold and a code block, and for the 5,000-word
hostile text.

Run:  python benchmarks/bench_placed_tree.py [--texts 200]

Measured (2026-12-06, the shared 2-core machine at load 19, medians of 100 texts): a ~130-word
response 0.12 ms plain, 0.14 ms placed (969 and 1,039 bytes of JSON); the 5,000-word text
0.27 and 0.44 ms (34,510 and 34,520 bytes).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.helpers.hostile import long_text

trees = importlib.import_module("annotate.app.participant.pair_component.text_tree")


def _response(i: int) -> str:
    return f"{long_text(120)} {i}\n\n- a **b** c\n- d\n\n```\ncode {i}\n```\n"


def _per_text_ms(texts: list[str], placed: bool) -> float:
    times = []
    for text in texts:
        start = time.perf_counter()
        trees._tree.__wrapped__(text, placed)  # uncached
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=200)
    n = parser.parse_args().texts
    for name, texts in (
        ("~130-word response", [_response(i) for i in range(n)]),
        ("5,000-word text", [long_text(5000) + f" {i}" for i in range(max(n // 20, 3))]),
    ):
        plain, placed = _per_text_ms(texts, False), _per_text_ms(texts, True)
        size = (
            len(json.dumps(trees.text_tree(texts[0]))),
            len(json.dumps(trees.placed_tree(texts[0]))),
        )
        print(
            f"{name}: text_tree {plain:.2f} ms, placed_tree {placed:.2f} ms (median); "
            f"JSON {size[0]:,} and {size[1]:,} bytes; load average {os.getloadavg()[0]:.1f}"
        )


if __name__ == "__main__":
    main()
