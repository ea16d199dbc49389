"""A crowd study's own settings checked before they are stored: its survey questions and its
completion URL (no database). The participant's side of them is `annotate.domain.crowd.consent`."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from annotate.vocabulary import SURVEY_KINDS

MAX_QUESTIONS = 20
MAX_OPTIONS = 30
_QUESTION_ID = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


def survey_problems(questions: object) -> list[str]:
    """Everything wrong with a study's survey questions, each naming the question."""
    if not isinstance(questions, list):
        return ["survey questions: expected a list of questions"]
    problems: list[str] = []
    if len(questions) > MAX_QUESTIONS:
        problems.append(f"survey questions: at most {MAX_QUESTIONS}, not {len(questions)}")
    seen: set[str] = set()
    for number, question in enumerate(questions, 1):
        where = f"survey question {number}"
        if not isinstance(question, dict):
            problems.append(f"{where}: expected an object with id, text, kind (and options)")
            continue
        problems += _question_problems(where, question, seen)
    return problems


def _question_problems(where: str, question: dict[str, Any], seen: set[str]) -> list[str]:
    problems = []
    unknown = sorted(set(question) - {"id", "text", "kind", "options"})
    if unknown:
        problems.append(f"{where}: unknown field(s) {', '.join(unknown)}")
    qid = question.get("id")
    if not isinstance(qid, str) or not _QUESTION_ID.match(qid):
        problems.append(
            f"{where}, field 'id': expected lower-case letters, digits and _ (starting with a "
            f"letter, at most 40), got {qid!r}"
        )
    elif qid in seen:
        problems.append(f"{where}, field 'id': {qid!r} is used twice")
    else:
        seen.add(qid)
    if not str(question.get("text") or "").strip():
        problems.append(f"{where}, field 'text': expected the question's wording")
    kind = question.get("kind")
    if kind not in SURVEY_KINDS:
        problems.append(f"{where}, field 'kind': expected one of {', '.join(SURVEY_KINDS)}")
    options = question.get("options", [])
    if kind == "choice":
        texts = [str(o).strip() for o in options] if isinstance(options, list) else []
        if len(texts) < 2 or len(set(texts)) != len(texts) or not all(texts):
            problems.append(f"{where}, field 'options': expected 2 or more distinct options")
        elif len(texts) > MAX_OPTIONS:
            problems.append(f"{where}, field 'options': at most {MAX_OPTIONS}")
    elif options:
        problems.append(f"{where}, field 'options': only a choice question has options")
    return problems


def completion_url_problems(url: str | None) -> list[str]:
    """A completion URL must be an http(s) address; `{code}` in it is replaced by the code."""
    if url is None:
        return []
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.netloc or re.search(r"\s", url):
        return [f"completion URL: expected an https:// address, got {url!r}"]
    return []
