"""Helpers for the admin tests: studies with pairs, accounts, rating a pair, reading the plan.

Test modules import them as `from admin_helpers import ...` (a name unique in the test tree).
The checks here recount from the raw tables, not through the functions under test.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import insert
from sqlalchemy.engine import Engine
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, Pair, Rating, Study
from annotate.domain.study import accounts, studies
from annotate.services.participant.rating import submit_rating

DOMAINS = ("Art", "Life", "Society")


def pair_row(study_id: int, record_id: str, domain: str) -> dict[str, Any]:
    return {
        "study_id": study_id,
        "record_id": record_id,
        "domain": domain,
        "category": "books",
        "question": f"Question {record_id}?",
        "narrative": "I read on the train.",
        "profile": [],
        "rubric_aspects": [{"aspect": "finished series", "evidence": "-", "reason": "-"}],
        "chosen": f"chosen text {record_id}",
        "rejected": f"rejected text {record_id}",
        "extra": {},
        "content_hash": record_id,
        "created_at": datetime.now(UTC),
    }


def make_study(
    engine: Engine,
    name: str = "s",
    *,
    pairs: int = 12,
    domains: tuple[str, ...] = DOMAINS,
    **settings: Any,
) -> int:
    """A study with `pairs` pairs spread round-robin over `domains`; returns its id."""
    with write_session(engine) as session:
        study = studies.create_study(session, name, seed=settings.pop("seed", 7), **settings)
        rows = [pair_row(study.id, f"p{i:03d}", domains[i % len(domains)]) for i in range(pairs)]
        if rows:
            session.execute(insert(Pair), rows)
        return study.id  # type: ignore[return-value]


def make_people(engine: Engine, n: int, prefix: str = "a", role: str = "annotator") -> list[int]:
    with write_session(engine) as session:
        return [
            accounts.create_account(session, f"{prefix}{i}", role=role)[0].id  # type: ignore[misc]
            for i in range(n)
        ]


def people(engine: Engine, ids: list[int]) -> list[Annotator]:
    with read_session(engine) as session:
        return [session.get(Annotator, i) for i in ids]  # type: ignore[misc]


def study_of(engine: Engine, study_id: int) -> Study:
    with read_session(engine) as session:
        return session.get(Study, study_id)  # type: ignore[return-value]


def all_pairs(engine: Engine, study_id: int) -> list[Pair]:
    with read_session(engine) as session:
        return list(session.exec(select(Pair).where(Pair.study_id == study_id)).all())


def assignments(engine: Engine, study_id: int) -> list[Assignment]:
    with read_session(engine) as session:
        return list(session.exec(select(Assignment).where(Assignment.study_id == study_id)).all())


def holders(engine: Engine, study_id: int, statuses=("pending", "done", "skipped")) -> dict:
    """pair id -> list of annotator ids whose assignment has one of `statuses`."""
    held: dict[int, list[int]] = defaultdict(list)
    for a in assignments(engine, study_id):
        if a.status in statuses:
            held[a.pair_id].append(a.annotator_id)
    return held


def loads(engine: Engine, study_id: int, statuses=("pending", "done", "skipped")) -> Counter:
    return Counter(a.annotator_id for a in assignments(engine, study_id) if a.status in statuses)


def rated_per_pair(engine: Engine, study_id: int) -> Counter:
    """pair id -> how many annotators have scores saved for it (from the rating table)."""
    with read_session(engine) as session:
        rows = session.exec(
            select(Assignment.pair_id, Assignment.annotator_id)
            .join(Rating, Rating.assignment_id == Assignment.id)
            .where(Assignment.study_id == study_id)
            .distinct()
        ).all()
    return Counter(pair_id for pair_id, _ in rows)


def scores(value: int = 3, **by_dim: int) -> dict[str, dict[str, int]]:
    dims = ("factuality", "relevance", "helpfulness", "rubric_alignment")
    return {side: {d: by_dim.get(d, value) for d in dims} for side in ("A", "B")}


def rate(engine: Engine, annotator_id: int, assignment_id: int, value: int = 3, **kw: Any):
    return submit_rating(
        engine,
        annotator_id=annotator_id,
        assignment_id=assignment_id,
        scores=kw.pop("given", None) or scores(value),
        seconds=kw.pop("seconds", 10.0),
        **kw,
    )


def in_minutes(minutes: float) -> datetime:
    return datetime.now(UTC) + timedelta(minutes=minutes)


def button(at: Any, label: str) -> Any:
    """The one button of an AppTest page with this label."""
    matches = [b for b in at.button if b.label == label]
    assert len(matches) == 1, [b.label for b in at.button]
    return matches[0]


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")  # CommonMark's backslash escapes


def page_texts(at: Any) -> str:
    """Every message and text an AppTest page shows, one per line, as a reader sees the
    characters of a name or a message shown as plain text (`plain_text`: "a\\_b" reads
    "a_b"; Markdown emphasis is left as written)."""
    parts = [m.value for m in at.markdown] + [e.value for e in at.error]
    parts += [s.value for s in at.success] + [c.value for c in at.code]
    parts += [w.value for w in at.warning] + [i.value for i in at.info]
    parts += [t.value for t in at.text]
    return as_read("\n".join(str(p) for p in parts)).replace("  \n", "\n")


def as_read(text: str) -> str:
    """A message shown as plain text (`plain_text`, `plain_lines`) as a reader sees it."""
    return _ESCAPED.sub(r"\1", text)


def active_markdown(markdown: str) -> set[str]:
    """The link, image, HTML and heading tokens CommonMark finds in `markdown` (none: the text
    shows as its own characters)."""
    from markdown_it import MarkdownIt

    found, stack = set(), list(MarkdownIt("commonmark").parse(markdown))
    while stack:
        token = stack.pop()
        found.add(token.type)
        stack.extend(token.children or [])
    return found & {"link_open", "image", "html_inline", "html_block", "heading_open"}
