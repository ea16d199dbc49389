"""A page whose login stopped being valid saves nothing and says so (issue 16, item 2); a submit
sent by a page still showing an earlier pair is not saved to the pair now shown."""

from __future__ import annotations

import pytest

from annotate.db import write_session
from annotate.domain.study import accounts
from tests.helpers.apptest_helpers import (
    DIMENSIONS,
    PAIR_TOKEN,
    SCORES,
    count_ratings,
    current_assignment,
    field,
    messages,
    progress,
    rate_current,
    score_key,
    set_scores,
    shown_scores,
    stored_ratings,
    submit,
)


def _deactivate(engine, name: str) -> None:
    with write_session(engine) as session:
        accounts.set_active(session, name, False)


def _rotate(engine, name: str) -> None:
    with write_session(engine) as session:
        accounts.rotate_token(session, name)


@pytest.mark.parametrize("revoke", [_deactivate, _rotate], ids=["deactivated", "rotated"])
def test_a_submit_after_the_link_was_revoked_saves_nothing_and_says_so(
    open_app, demo, engine, revoke
):
    at = open_app(demo.token)
    first = current_assignment(at)
    set_scores(at, first)
    revoke(engine, demo.annotator)  # while the annotator is rating
    before = count_ratings(engine)
    submit(at, first)

    assert count_ratings(engine) == before
    assert stored_ratings(engine, first) == []
    errors = messages(at.error)
    assert any(e.startswith("Not saved: this login link is no longer valid") for e in errors)
    assert not any("saved." in m for m in messages(at.success))


def test_a_revoked_link_refuses_a_skip_too(open_app, demo, engine):
    at = open_app(demo.token)
    first = current_assignment(at)
    at.text_input(key=field(at, "skip_reason")).set_value("not my topic")
    _deactivate(engine, demo.annotator)
    at.button(key="skip").click()
    at.run()
    assert stored_ratings(engine, first) == []
    errors = messages(at.error)
    assert any(e.startswith("Not saved: this login link is no longer valid") for e in errors)


def test_a_save_is_confirmed_before_the_link_is_said_to_be_invalid(open_app, demo, engine):
    at = open_app(demo.token)
    rate_current(at)  # saved while the link was valid
    assert messages(at.success) == ["Pair 1 saved."]
    _deactivate(engine, demo.annotator)
    at.run()
    assert count_ratings(engine) == 8
    assert not any("Pair 2" in m for m in messages(at.markdown))  # no pair for a dead link


def test_a_submit_from_a_page_still_showing_the_last_pair_is_not_saved_to_the_new_one(
    open_app, demo, engine
):
    at = open_app(demo.token)
    first = rate_current(at)
    second = current_assignment(at)
    assert progress(at) == "**Pair 2 of 27** · 1 rated"
    # The second click of a double click: the browser still shows pair 1 and sends its token
    # and scores, while the server already shows pair 2.
    at.text_input(key=PAIR_TOKEN).set_value(str(first))
    for side, by_dim in SCORES.items():
        for dim, value in by_dim.items():
            at.radio(key=score_key(dim, side, second)).set_value(value)
    [button] = [b for b in at.button if getattr(b, "form_id", None) == "pair"]
    button.click()
    at.run()

    assert stored_ratings(engine, second) == []
    assert all(r.revision == 1 for r in stored_ratings(engine, first))
    assert current_assignment(at) == second  # still pair 2, its radios empty again
    assert shown_scores(at, second) == {s: dict.fromkeys(DIMENSIONS) for s in ("A", "B")}
    assert messages(at.error) == []
