"""The direct preference (issue 14, item 2): after the scores, which response fits this user
better, on a symmetric scale by side (-2 A much better .. 0 tie .. +2 B much better), with a
rationale that a study may ask for (optional or required).

Blinding: the page and everything it sends know only sides. The answer is stored by side on
the assignment; `chosen_terms` maps it to the responses, and only server code (the export, the
analysis inputs) calls it.
"""

from __future__ import annotations

from annotate.db.tables import Study
from annotate.vocabulary import PREFERENCE_POINTS, Side

MAX_RATIONALE_CHARS = 2000
MISSING_PREFERENCE = "Which response fits this user better"
MISSING_RATIONALE = "Why (your rationale)"


def missing(
    ask_preference: bool, rationale_mode: str, value: int | None, rationale: str | None
) -> list[str]:
    """Names of what is still to be given (for the page's message), in page terms."""
    gaps = []
    if ask_preference and value is None:
        gaps.append(MISSING_PREFERENCE)
    if ask_preference and rationale_mode == "required" and not (rationale or "").strip():
        gaps.append(MISSING_RATIONALE)
    return gaps


def problems(study: Study, value: int | None, rationale: str | None) -> list[str]:
    """What is wrong with a submitted preference for this study (empty: it can be saved)."""
    if not study.ask_preference:
        return ["this study does not ask for a preference"] if value is not None else []
    found = [f"Missing: {gap}" for gap in missing(True, study.rationale, value, rationale)]
    valid = isinstance(value, int) and not isinstance(value, bool)
    if value is not None and not (valid and value in PREFERENCE_POINTS):
        found.append(f"preference {value!r} is not one of {', '.join(map(str, PREFERENCE_POINTS))}")
    if len(rationale or "") > MAX_RATIONALE_CHARS:
        found.append(f"the rationale has at most {MAX_RATIONALE_CHARS} characters")
    return found


def chosen_terms(side_preference: int | None, chosen_side: str) -> int | None:
    """The preference for the chosen response: +2 chosen much better .. -2 rejected much
    better (server-side only: it needs the side the chosen response was shown on)."""
    if side_preference is None:
        return None
    return side_preference if chosen_side == Side.B else -side_preference
