"""Driving the rating page with AppTest, and reading back what the database holds.

The expected database content is computed here from first principles (side + where chosen is
shown -> response), not with the product's own `response_on`, so a mapping bug cannot hide.
"""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import select
from streamlit.testing.v1 import AppTest

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Assignment, Pair, Rating, RatingRevision
from annotate.domain.study import accounts
from annotate.vocabulary import Role

SIDES = ("A", "B")
DIMENSIONS = ("factuality", "relevance", "helpfulness", "rubric_alignment")

# Distinct within a side (catches swapped dimensions) and different across sides on every
# dimension (catches swapped sides).
SCORES: dict[str, dict[str, int]] = {
    "A": {"factuality": 1, "relevance": 2, "helpfulness": 3, "rubric_alignment": 4},
    "B": {"factuality": 5, "relevance": 4, "helpfulness": 2, "rubric_alignment": 1},
}


def scan_installed_components_once() -> None:
    """Keep the first answer of Streamlit's scan for installed v2 components in this process.

    Every new AppTest scans the metadata of every installed distribution for component
    manifests (about a third of an AppTest file's CPU: `py-spy` on test_app_rating.py); the
    production server scans once, at its start. The installed packages do not change during a
    test run, so the first scan's answer serves every AppTest after it."""
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    if not hasattr(scan, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.cache(scan)  # type: ignore[assignment]


PAIR_TOKEN = "pair_token"  # the hidden widget holding the pair the page shows


def score_key(dim: str, side: str, assignment_id: int) -> str:
    """A score radio's key: its own on every pair (issue 22.1)."""
    return f"{dim}_{side}_p{assignment_id}"


def field(at: AppTest, name: str) -> str:
    """The key of the field `name` ('comment', 'flag', 'skip_reason', 'rationale',
    'preference', 'aspect_A_0') on the pair the page shows."""
    return f"{name}_p{current_assignment(at)}"


def current_assignment(at: AppTest) -> int:
    """The assignment the page shows (its hidden pair token); its 8 score radios are there."""
    tokens = [t.value for t in at.text_input if t.key == PAIR_TOKEN]
    assert len(tokens) == 1, f"expected one pair on the page, found {tokens}"
    keys = {r.key for r in at.radio}
    shown = int(tokens[0])
    assert {score_key(d, s, shown) for d in DIMENSIONS for s in SIDES} <= keys, keys
    return shown


def progress(at: AppTest) -> str:
    """The progress line, e.g. '**Pair 2 of 27** · 1 rated'."""
    lines = [m.value for m in at.markdown if m.value.startswith("**Pair ")]
    assert len(lines) == 1, lines
    return lines[0]


def shown_scores(at: AppTest, assignment_id: int) -> dict[str, dict[str, int | None]]:
    assert current_assignment(at) == assignment_id
    return {
        side: {dim: at.radio(key=score_key(dim, side, assignment_id)).value for dim in DIMENSIONS}
        for side in SIDES
    }


def set_scores(
    at: AppTest, assignment_id: int, scores: dict[str, dict[str, int]] | None = None
) -> None:
    assert current_assignment(at) == assignment_id
    for side, by_dim in (scores or SCORES).items():
        for dim, value in by_dim.items():
            at.radio(key=score_key(dim, side, assignment_id)).set_value(value)


def submit(at: AppTest, assignment_id: int) -> AppTest:
    assert current_assignment(at) == assignment_id
    buttons = [b for b in at.button if getattr(b, "form_id", None) == "pair"]
    assert len(buttons) == 1, "the pair's form has one submit button"
    buttons[0].click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def click(at: AppTest, key: str) -> AppTest:
    at.button(key=key).click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def rate_current(at: AppTest, scores: dict[str, dict[str, int]] | None = None) -> int:
    """Give all 8 scores to the pair on the page and submit; return its assignment id."""
    assignment_id = current_assignment(at)
    set_scores(at, assignment_id, scores)
    submit(at, assignment_id)
    return assignment_id


def messages(elements: Any) -> list[str]:
    return [e.value for e in elements]


# --- what the database holds ----------------------------------------------------------------


def assignment_row(engine: Engine, assignment_id: int) -> Assignment:
    with read_session(engine) as session:
        assignment = session.get(Assignment, assignment_id)
        assert assignment is not None
        return assignment


def annotator_id(engine: Engine, name: str) -> int:
    with read_session(engine) as session:
        account = session.exec(select(Annotator).where(Annotator.name == name)).one()
        return int(account.id)  # type: ignore[arg-type]


def stored_ratings(engine: Engine, assignment_id: int) -> list[Rating]:
    with read_session(engine) as session:
        return list(session.exec(select(Rating).where(Rating.assignment_id == assignment_id)))


def stored_scores(engine: Engine, assignment_id: int) -> dict[tuple[str, str], int]:
    """(response, dimension) -> score, as stored."""
    rows = stored_ratings(engine, assignment_id)
    table = {(r.response, r.dimension): r.score for r in rows}
    assert len(table) == len(rows), "duplicate (response, dimension) rows"
    return table


def expected_scores(
    chosen_side: str, scores: dict[str, dict[str, int]] | None = None
) -> dict[tuple[str, str], int]:
    """What the page's side scores must be stored as, given where chosen was shown."""
    assert chosen_side in SIDES
    return {
        ("chosen" if side == chosen_side else "rejected", dim): value
        for side, by_dim in (scores or SCORES).items()
        for dim, value in by_dim.items()
    }


def revisions(engine: Engine, assignment_id: int) -> list[RatingRevision]:
    with read_session(engine) as session:
        return list(
            session.exec(
                select(RatingRevision)
                .join(Rating, Rating.id == RatingRevision.rating_id)
                .where(Rating.assignment_id == assignment_id)
            )
        )


def count_ratings(engine: Engine) -> int:
    with read_session(engine) as session:
        return len(session.exec(select(Rating.id)).all())


def pair_of(engine: Engine, assignment_id: int) -> Pair:
    with read_session(engine) as session:
        assignment = session.get(Assignment, assignment_id)
        assert assignment is not None
        pair = session.get(Pair, assignment.pair_id)
        assert pair is not None
        return pair


def queue_ids(engine: Engine, name: str) -> list[int]:
    """The annotator's assignment ids in queue order."""
    with read_session(engine) as session:
        return [
            int(a)
            for a in session.exec(
                select(Assignment.id)
                .join(Annotator, Annotator.id == Assignment.annotator_id)
                .where(Annotator.name == name)
                .order_by(Assignment.study_id, Assignment.position)
            )
        ]


def pick_study(at: AppTest, name: str) -> AppTest:
    """Pick `name` in the sidebar's study picker (a new session has none picked) and rerun."""
    (picker,) = [s for s in at.sidebar.selectbox if s.label == "Study"]
    return picker.set_value(name).run()


def sent_elements(node: Any) -> list[str]:
    """Every element the page sends, as text (the AppTest tree walked: `sent_elements(at._tree)`),
    for blinding checks."""
    found = [str(node.proto)] if getattr(node, "proto", None) is not None else []
    children = getattr(node, "children", {})
    for child in children.values() if isinstance(children, dict) else children:
        found += sent_elements(child)
    return found


def researcher_token(engine: Engine, name: str = "res") -> str:
    """A new researcher account's login token."""
    with write_session(engine) as session:
        _, token = accounts.create_account(session, name, role=Role.RESEARCHER)
    return token
