"""A study's instructed-response checks (issue 34, point 6), checked before they are stored (no
database).

An instructed-response check is an item that tells the participant which option to pick ("For
this item, select 'Somewhat'"): someone reading the page picks it, someone clicking through
may not. A study lists its checks in `instructed_checks`, each `{text, options, expected,
after}`: the wording, the options offered (2 or more, distinct), the one asked for, and after
how many of the participant's pairs (rated or set aside) it is shown. The participant's side
(answers, the warning, the end after two failures) is `annotate.domain.crowd.checks`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

MAX_CHECKS = 10
MAX_OPTIONS = 10
MAX_TEXT_CHARS = 1000
MAX_OPTION_CHARS = 200
FIELDS = ("text", "options", "expected", "after")


@dataclass(frozen=True)
class InstructedCheck:
    """One check as the rating flow shows it (`index`: its place in the study's list)."""

    index: int
    text: str
    options: tuple[str, ...]
    expected: str
    after: int


def checks_of(checks: Sequence[Mapping[str, Any]]) -> list[InstructedCheck]:
    """A study's stored checks (already checked by `check_problems`), in the order they are
    shown: by `after`, then by their place in the list."""
    found = [
        InstructedCheck(
            index,
            str(c["text"]).strip(),
            tuple(str(o).strip() for o in c["options"]),
            str(c["expected"]).strip(),
            int(c["after"]),
        )
        for index, c in enumerate(checks)
    ]
    return sorted(found, key=lambda c: (c.after, c.index))


def check_problems(checks: object, quota: int | None = None) -> list[str]:
    """Everything wrong with a study's instructed-response checks, each naming the check.
    `quota`: the pairs per person; a check shown after more pairs than that is never seen."""
    if not isinstance(checks, list):
        return ["instructed checks: expected a list of {text, options, expected, after}"]
    problems: list[str] = []
    if len(checks) > MAX_CHECKS:
        problems.append(f"instructed checks: at most {MAX_CHECKS}, not {len(checks)}")
    for number, check in enumerate(checks, 1):
        where = f"instructed check {number}"
        if not isinstance(check, dict):
            problems.append(f"{where}: expected an object with {', '.join(FIELDS)}")
            continue
        problems += _problems(where, check, quota)
    return problems


def _problems(where: str, check: dict[str, Any], quota: int | None) -> list[str]:
    problems = []
    unknown = sorted(map(str, set(check) - set(FIELDS)))
    if unknown:
        problems.append(f"{where}: unknown field(s) {', '.join(unknown)}")
    text = check.get("text")
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT_CHARS:
        problems.append(
            f"{where}, field 'text': expected the item's wording (at most "
            f"{MAX_TEXT_CHARS} characters)"
        )
    options = check.get("options")
    texts = [o.strip() for o in options if isinstance(o, str)] if isinstance(options, list) else []
    if (
        not isinstance(options, list)
        or len(texts) != len(options)
        or not 2 <= len(texts) <= MAX_OPTIONS
        or len(set(texts)) != len(texts)
        or not all(0 < len(t) <= MAX_OPTION_CHARS for t in texts)
    ):
        problems.append(
            f"{where}, field 'options': expected 2 to {MAX_OPTIONS} distinct texts (at most "
            f"{MAX_OPTION_CHARS} characters each)"
        )
    expected = check.get("expected")
    if not isinstance(expected, str) or expected.strip() not in texts:
        problems.append(f"{where}, field 'expected': expected one of the options, got {expected!r}")
    after = check.get("after")
    if isinstance(after, bool) or not isinstance(after, int) or not 1 <= after <= 10**6:
        problems.append(f"{where}, field 'after': expected a number of pairs, 1 or more")
    elif quota is not None and after > quota:
        problems.append(
            f"{where}, field 'after': {after} pairs is past the pairs per person ({quota}); "
            "nobody would see it"
        )
    return problems


def checks_words(checks: list[dict[str, Any]]) -> str:
    """The checks in a few words: '2, after pairs 2 and 4' ('-': none)."""
    if not checks:
        return "-"
    afters = sorted(int(c["after"]) for c in checks)
    places = ", ".join(map(str, afters[:-1])) + (" and " if len(afters) > 1 else "")
    return f"{len(checks)}, after pair{'s' if len(afters) > 1 else ''} {places}{afters[-1]}"
