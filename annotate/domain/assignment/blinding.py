"""Blinding: which side each response is shown on, and the order of an annotator's pairs.

Both draws are reproducible from the study's seed, the annotator's name and the record id, so a
researcher can recompute them from an export; both are stored with each assignment.

`draw` is the product's one seeded draw: the assignment package uses it too (tie-breaks of the
plan, the pool's pick, the per-domain sample, gold pairs), so every reproducible choice changes
together if it ever changes. Other modules call it as `blinding.draw(...)`, never a copy.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

from annotate.vocabulary import Response, Side


def draw(*parts: object) -> int:
    """A reproducible pseudo-random 64-bit number for these parts (SHA-256 of "p1:p2:...")."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def chosen_side(seed: int, annotator: str, record_id: str) -> Side:
    """'A' or 'B': the side the chosen response is shown on for this (annotator, pair)."""
    return Side.A if draw(seed, "side", annotator, record_id) % 2 == 0 else Side.B


def shuffled(seed: int, annotator: str, record_ids: Sequence[str]) -> list[str]:
    """The annotator's queue order for these records (sorted first, so input order is moot)."""
    order = sorted(record_ids)
    random.Random(draw(seed, "order", annotator)).shuffle(order)
    return order


def response_on(side: str, chosen_on: str) -> Response:
    """Which response ('chosen' or 'rejected') is on `side`, given where chosen is."""
    return Response.CHOSEN if side == chosen_on else Response.REJECTED


def side_of(response: str, chosen_on: str) -> str:
    """Which side ('A' or 'B') `response` is shown on, given where chosen is."""
    if response == Response.CHOSEN:
        return chosen_on
    return Side.B if chosen_on == Side.A else Side.A
