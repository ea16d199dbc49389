"""The rating page driven with AppTest: every flow checks what the database holds afterwards."""

from __future__ import annotations

import pytest
from sqlmodel import select

from annotate.app.safe_text import inert_markdown
from annotate.db import read_session, write_session
from annotate.db.tables import Assignment, Study
from annotate.domain.rating.queue import pair_view
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import update_study
from annotate.questionnaire import prb_with
from annotate.services.admin.flags import flag_queue
from annotate.services.participant.rating import skip_pair, submit_rating
from annotate.vocabulary import DEFAULT_ANCHORS
from tests.helpers.apptest_helpers import (
    DIMENSIONS,
    SCORES,
    annotator_id,
    assignment_row,
    click,
    count_ratings,
    current_assignment,
    expected_scores,
    field,
    messages,
    pair_of,
    progress,
    queue_ids,
    rate_current,
    revisions,
    score_key,
    set_scores,
    shown_scores,
    stored_ratings,
    stored_scores,
    submit,
)


def missing_named(error: str) -> list[str]:
    """The names in the error's bullet list ('- Response B: ...'), before its closing hint."""
    listed, hint = error.split("\n\n")
    assert "Flag this pair" in hint
    lines = listed.split("\n")[1:]
    assert all(line.startswith("- ") for line in lines), lines
    return [line[2:] for line in lines]


def test_rate_a_pair_saves_eight_scores_mapped_through_the_blinded_side(open_app, demo, engine):
    at = open_app(demo.token)
    first = current_assignment(at)
    assert first == queue_ids(engine, demo.annotator)[0]
    assert shown_scores(at, first) == {s: dict.fromkeys(DIMENSIONS) for s in ("A", "B")}
    set_scores(at, first)
    shown_at = at.session_state["shown_at"]  # the pair was shown 0.3 s earlier than it was:
    at.session_state["shown_at"] = shown_at | {first: shown_at[first] - 0.3}  # (no sleep)
    submit(at, first)

    chosen_side = assignment_row(engine, first).chosen_side
    assert stored_scores(engine, first) == expected_scores(chosen_side)
    rows = stored_ratings(engine, first)
    assert len(rows) == 8
    assert all(0.3 <= r.seconds < 30 for r in rows)
    assert all(r.revision == 1 for r in rows)
    assignment = assignment_row(engine, first)
    assert assignment.status == "done"
    assert assignment.completed_at is not None
    # ... and the next pair is on the page, with its own, empty radios.
    second = current_assignment(at)
    assert second == queue_ids(engine, demo.annotator)[1]
    assert progress(at) == "**Pair 2 of 27** · 1 rated"
    assert shown_scores(at, second) == {s: dict.fromkeys(DIMENSIONS) for s in ("A", "B")}
    assert messages(at.success) == ["Pair 1 saved."]


def test_the_text_shown_as_response_a_is_the_one_stored_for_side_a(open_app, demo, engine):
    """Walk the whole queue: the page's sides agree with the stored side, and both occur."""
    at = open_app(demo.token)
    sides_seen = set()
    for number, assignment_id in enumerate(queue_ids(engine, demo.annotator), 1):
        if number > 1:
            at.selectbox(key="nav_jump").set_value(assignment_id)
            at.run()
        assert current_assignment(at) == assignment_id
        chosen_side = assignment_row(engine, assignment_id).chosen_side
        pair = pair_of(engine, assignment_id)
        texts = messages(at.markdown)
        a_text = inert_markdown(pair.chosen if chosen_side == "A" else pair.rejected)
        b_text = inert_markdown(pair.rejected if chosen_side == "A" else pair.chosen)
        assert texts.count(a_text) == 1
        assert texts.count(b_text) == 1
        assert texts.index(a_text) < texts.index(b_text)  # A is drawn first (left column)
        sides_seen.add(chosen_side)
    assert sides_seen == {"A", "B"}, "the chosen response must sit on both sides across pairs"


def test_missing_scores_are_named_and_nothing_is_saved(open_app, demo, engine):
    at = open_app(demo.token)
    first = current_assignment(at)
    partial = {"A": dict(SCORES["A"]), "B": {"factuality": 5}}
    set_scores(at, first, partial)
    submit(at, first)

    assert len(at.error) == 1
    error = at.error[0].value
    assert error.startswith("Please give every score before submitting. Missing:\n")
    named = missing_named(error)
    assert named == [
        "Response B: Relevance and instruction following",
        "Response B: Helpfulness and harmlessness",
        "Response B: Alignment with this user's personal rubric",
    ]
    assert stored_ratings(engine, first) == []
    assert assignment_row(engine, first).status == "pending"
    # Still on the same pair, with the scores given so far kept.
    assert current_assignment(at) == first
    assert shown_scores(at, first)["A"] == SCORES["A"]
    assert progress(at) == "**Pair 1 of 27** · 0 rated"


def test_no_scores_at_all_names_all_eight(open_app, demo, engine):
    at = open_app(demo.token)
    first = current_assignment(at)
    submit(at, first)

    assert len(missing_named(at.error[0].value)) == 8
    assert count_ratings(engine) == 0


def test_revise_an_earlier_pair_keeps_the_old_score_as_a_revision(open_app, demo, engine):
    at = open_app(demo.token)
    first = rate_current(at)
    assert current_assignment(at) != first

    click(at, "nav_previous")
    assert current_assignment(at) == first
    assert progress(at) == "**Pair 1 of 27** · 1 rated"
    assert shown_scores(at, first) == SCORES  # the saved scores are shown again
    assert any("rated this pair already" in i for i in messages(at.info))

    at.radio(key=score_key("helpfulness", "B", first)).set_value(5)
    submit(at, first)

    chosen_side = assignment_row(engine, first).chosen_side
    revised = {side: dict(by_dim) for side, by_dim in SCORES.items()}
    revised["B"]["helpfulness"] = 5
    assert stored_scores(engine, first) == expected_scores(chosen_side, revised)
    rows = stored_ratings(engine, first)
    assert len(rows) == 8
    response_b = "chosen" if chosen_side == "B" else "rejected"
    changed = [r for r in rows if r.revision != 1]
    assert [(r.response, r.dimension, r.revision) for r in changed] == [
        (response_b, "helpfulness", 2)
    ]
    history = revisions(engine, first)
    assert [(h.rating_id, h.revision, h.score) for h in history] == [(changed[0].id, 1, 2)]
    assert messages(at.success) == ["Pair 1 revised; your earlier scores are kept in its history."]
    assert current_assignment(at) == queue_ids(engine, demo.annotator)[1]


def test_resubmitting_the_same_scores_creates_nothing(open_app, demo, engine):
    at = open_app(demo.token)
    first = rate_current(at)
    click(at, "nav_previous")
    submit(at, first)
    submit_rating(  # a second click that reaches the server late
        engine,
        annotator_id=annotator_id(engine, demo.annotator),
        assignment_id=first,
        scores=SCORES,
        seconds=1.0,
    )

    assert messages(at.success) == ["Pair 1 was already saved with these scores."]
    assert len(stored_ratings(engine, first)) == 8
    assert revisions(engine, first) == []
    assert count_ratings(engine) == 8


def test_comment_and_flag_are_saved_with_the_pair(open_app, demo, engine):
    at = open_app(demo.token)
    first = current_assignment(at)
    set_scores(at, first)
    at.text_area(key=field(at, "comment")).set_value("  Both are fine.  ")
    at.text_input(key=field(at, "flag")).set_value("Response B is cut off")
    submit(at, first)

    assignment = assignment_row(engine, first)
    assert (assignment.comment, assignment.flagged, assignment.flag_reason) == (
        "Both are fine.",
        True,
        "Response B is cut off",
    )
    click(at, "nav_previous")
    assert at.text_area(key=field(at, "comment")).value == "Both are fine."
    assert at.text_input(key=field(at, "flag")).value == "Response B is cut off"


def test_skip_with_a_reason(open_app, demo, engine):
    at = open_app(demo.token)
    first = current_assignment(at)
    at.text_input(key=field(at, "skip_reason")).set_value("I know nothing about this topic")
    click(at, "skip")

    assignment = assignment_row(engine, first)
    assert assignment.status == "skipped"
    assert assignment.skip_reason == "I know nothing about this topic"
    assert stored_ratings(engine, first) == []
    assert current_assignment(at) == queue_ids(engine, demo.annotator)[1]
    assert messages(at.success) == ["Pair 1 skipped."]
    assert progress(at) == "**Pair 2 of 27** · 0 rated"


def test_skip_without_a_reason_is_refused(open_app, demo, engine):
    at = open_app(demo.token)
    first = current_assignment(at)
    at.text_input(key=field(at, "skip_reason")).set_value("   ")
    click(at, "skip")

    assert messages(at.error) == ["Please say why you skip this pair."]
    assignment = assignment_row(engine, first)
    assert (assignment.status, assignment.skip_reason) == ("pending", None)
    assert current_assignment(at) == first


def test_a_skipped_pair_can_still_be_rated(open_app, demo, engine):
    at = open_app(demo.token)
    first = current_assignment(at)
    at.text_input(key=field(at, "skip_reason")).set_value("later")
    click(at, "skip")
    click(at, "nav_previous")

    assert any("You skipped this pair (later)" in w for w in messages(at.warning))
    rate_current(at)
    assignment = assignment_row(engine, first)
    assert (assignment.status, assignment.skip_reason) == ("done", None)
    assert len(stored_ratings(engine, first)) == 8


def test_a_new_session_resumes_at_the_first_unrated_pair(open_app, demo, engine):
    at = open_app(demo.token)
    rate_current(at)
    rate_current(at)
    order = queue_ids(engine, demo.annotator)

    again = open_app(demo.token)  # the browser was closed; a fresh session

    assert current_assignment(again) == order[2]
    assert progress(again) == "**Pair 3 of 27** · 2 rated"


def test_resume_passes_over_skipped_pairs_but_returns_to_earlier_gaps(open_app, demo, engine):
    order = queue_ids(engine, demo.annotator)
    at = open_app(demo.token)
    at.selectbox(key="nav_jump").set_value(order[1])
    at.run()
    rate_current(at)  # pair 2 rated, pair 1 still open
    at = open_app(demo.token)
    assert current_assignment(at) == order[0]
    assert progress(at) == "**Pair 1 of 27** · 1 rated"


def test_nobody_sees_anyone_elses_scores(open_app, demo, engine, second_annotator):
    name_b, token_b = second_annotator
    at_a = open_app(demo.token)
    rated_by_a = [rate_current(at_a) for _ in range(3)]
    pairs_rated_by_a = {pair_of(engine, a).id for a in rated_by_a}

    at_b = open_app(token_b)
    ids_b = queue_ids(engine, name_b)
    assert not set(ids_b) & set(rated_by_a)
    assert progress(at_b) == "**Pair 1 of 27** · 0 rated"
    # B opens each of their assignments for the pairs A rated: nothing of A's is shown.
    same_pairs = [a for a in ids_b if pair_of(engine, a).id in pairs_rated_by_a]
    assert len(same_pairs) == 3
    for assignment_id in same_pairs:
        at_b.selectbox(key="nav_jump").set_value(assignment_id)
        at_b.run()
        assert current_assignment(at_b) == assignment_id
        assert shown_scores(at_b, assignment_id) == {
            s: dict.fromkeys(DIMENSIONS) for s in ("A", "B")
        }
        assert not at_b.info
        assert not at_b.warning
        assert "0 rated" in progress(at_b)


def test_a_crafted_assignment_id_of_another_annotator_is_refused(
    open_app, demo, engine, second_annotator
):
    name_b, token_b = second_annotator
    at_a = open_app(demo.token)
    theirs = rate_current(at_a)
    id_b = annotator_id(engine, name_b)
    before = stored_scores(engine, theirs)

    with read_session(engine) as session, pytest.raises(PermissionError):
        pair_view(session, id_b, theirs)
    with pytest.raises(PermissionError):
        submit_rating(engine, annotator_id=id_b, assignment_id=theirs, scores=SCORES, seconds=1.0)
    with pytest.raises(PermissionError):
        skip_pair(engine, annotator_id=id_b, assignment_id=theirs, reason="mine now")
    assert stored_scores(engine, theirs) == before
    assert assignment_row(engine, theirs).status == "done"

    # The page ignores a session that points at someone else's assignment.
    at_b = open_app(token_b)
    at_b.session_state["current_assignment"] = theirs
    at_b.run()
    assert current_assignment(at_b) == queue_ids(engine, name_b)[0]
    assert progress(at_b) == "**Pair 1 of 27** · 0 rated"


def test_a_session_cannot_keep_an_old_account_after_the_token_changes(
    open_app, demo, engine, second_annotator
):
    name_b, token_b = second_annotator
    at = open_app(demo.token)
    first_a = current_assignment(at)
    at.query_params["token"] = token_b
    at.run()

    assert at.session_state["account_id"] == annotator_id(engine, name_b)
    assert current_assignment(at) == queue_ids(engine, name_b)[0]
    assert current_assignment(at) != first_a


CODE = "PRB-DEMO-2026"
PLATFORM = "https://app.prolific.com/submissions/complete?cc={code}"


def test_done_screen_after_the_last_pair(open_app, demo, engine):
    """The done screen of the study's own annotator: what they did, and no crowd code (issue
    34.5: the completion code and the way back to the platform are a crowd participant's
    stored outcome, `tests/annotate/domain/crowd/test_crowd_outcomes.py` and the crowd acceptance
    test)."""
    order = queue_ids(engine, demo.annotator)
    me = annotator_id(engine, demo.annotator)
    for assignment_id in order[:-2]:
        submit_rating(
            engine, annotator_id=me, assignment_id=assignment_id, scores=SCORES, seconds=5.0
        )
    skip_pair(engine, annotator_id=me, assignment_id=order[-2], reason="unclear question")
    with write_session(engine) as session:
        update_study(session, "demo", completion_url=PLATFORM)

    at = open_app(demo.token)
    assert current_assignment(at) == order[-1]
    assert progress(at) == "**Pair 27 of 27** · 25 rated"
    rate_current(at)

    assert [t.value for t in at.title] == ["All done, thank you!"]
    assert len(at.radio) == 0
    assert "You rated **26** pairs and skipped 1." in messages(at.markdown)
    assert messages(at.success) == ["Pair 27 saved."]  # confirmed on the done screen too
    assert [c.value for c in at.code] == []  # no crowd code for a study's own annotator
    assert "PRB-DEMO-2026" not in " ".join(messages(at.markdown))
    with read_session(engine) as session:
        statuses = session.exec(
            select(Assignment.status).where(Assignment.annotator_id == me)
        ).all()
    assert sorted(statuses) == ["done"] * 26 + ["skipped"]
    assert count_ratings(engine) == 26 * 8

    # A fresh session goes straight to the done screen; "Review" opens pair 1 again.
    again = open_app(demo.token)
    assert [t.value for t in again.title] == ["All done, thank you!"]
    again.button(key="review").click().run()
    assert current_assignment(again) == order[0]
    assert shown_scores(again, order[0]) == SCORES
    # Reviewing, then back to the end, and nothing sends them away on its own (no redirect
    # script; issue 22.7).
    again.button(key="nav_end").click().run()
    assert [t.value for t in again.title] == ["All done, thank you!"]
    assert [b.proto.url for b in again.get("link_button")] == []
    assert not any("location" in h.proto.body for h in again.get("html"))


def test_a_flag_needs_only_its_reason(open_app, demo, engine):
    """Issue 22.7: a flag with no scores sets the pair aside as a skip does (no rating row) and
    enters the Flags queue as a flag; with neither scores nor a reason, the error asks for both."""
    at = open_app(demo.token)
    first = current_assignment(at)
    at.radio(key=score_key("factuality", "A", first)).set_value(2)  # one score of eight
    submit(at, first)
    (error,) = messages(at.error)
    assert "Flag this pair" in error
    assert assignment_row(engine, first).status == "pending"

    at.text_input(key=field(at, "flag")).set_value("  Response B is cut off mid-sentence ")
    submit(at, first)
    row = assignment_row(engine, first)
    assert (row.status, row.flagged, row.flag_reason, row.skip_reason) == (
        "skipped",
        True,
        "Response B is cut off mid-sentence",
        None,
    )
    assert stored_ratings(engine, first) == []
    assert messages(at.success) == ["Pair 1 flagged without scores; thank you for reporting it."]
    assert current_assignment(at) == queue_ids(engine, demo.annotator)[1]
    assert [(i.assignment_id, i.kind, i.reason) for i in flag_queue(engine, SYSTEM, "demo")] == [
        (first, "flag", "Response B is cut off mid-sentence")
    ]
    click(at, "nav_previous")  # told what happened; still open to rating
    assert any("You flagged this pair without scores" in w for w in messages(at.warning))


def test_done_screen_without_a_completion_code_shows_none(open_app, demo, engine):
    with write_session(engine) as session:
        study = session.exec(select(Study).where(Study.name == "demo")).one()
        study.completion_code = None
        session.add(study)
    me = annotator_id(engine, demo.annotator)
    for assignment_id in queue_ids(engine, demo.annotator):
        submit_rating(
            engine, annotator_id=me, assignment_id=assignment_id, scores=SCORES, seconds=5.0
        )

    at = open_app(demo.token)
    assert [t.value for t in at.title] == ["All done, thank you!"]
    assert not at.success
    assert not at.code


def test_an_annotator_without_pairs_is_told_so(open_app, demo, engine):
    from annotate.domain.study import accounts

    with write_session(engine) as session:
        _, token = accounts.create_account(session, "new-annotator")

    at = open_app(token)
    assert messages(at.info) == ["No pairs have been assigned to you yet. Please come back later."]
    assert len(at.radio) == 0


def test_pair_view_place_and_progress_agree_with_the_queue(demo, engine):
    from annotate.domain.rating.queue import queue

    me = annotator_id(engine, demo.annotator)
    order = queue_ids(engine, demo.annotator)
    for assignment_id in order[3:9]:
        submit_rating(
            engine, annotator_id=me, assignment_id=assignment_id, scores=SCORES, seconds=2.0
        )
    skip_pair(engine, annotator_id=me, assignment_id=order[10], reason="later")
    with read_session(engine) as session:
        entries = queue(session, me)
        assert [e.assignment_id for e in entries] == order
        for entry in entries:
            view = pair_view(session, me, entry.assignment_id)
            assert (view.number, view.total, view.done, view.status) == (
                entry.number,
                27,
                6,
                entry.status,
            )


def test_a_released_assignment_is_out_of_the_queue_and_refused(demo, engine, open_app):
    order = queue_ids(engine, demo.annotator)
    with write_session(engine) as session:
        released = session.get(Assignment, order[0])
        released.status = "released"
        session.add(released)
    me = annotator_id(engine, demo.annotator)

    with read_session(engine) as session, pytest.raises(PermissionError):
        pair_view(session, me, order[0])
    at = open_app(demo.token)
    assert current_assignment(at) == order[1]
    assert progress(at) == "**Pair 1 of 26** · 0 rated"


def test_simultaneous_submits_of_one_pair_never_duplicate(demo, engine):
    """A double click, or two tabs: many submits of the same pair at the same moment."""
    import threading

    me = annotator_id(engine, demo.annotator)
    first = queue_ids(engine, demo.annotator)[0]
    barrier = threading.Barrier(8)
    errors = []

    def submit_once():
        barrier.wait()
        try:
            submit_rating(engine, annotator_id=me, assignment_id=first, scores=SCORES, seconds=1.0)
        except Exception as error:  # collected and asserted below
            errors.append(error)

    threads = [threading.Thread(target=submit_once) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert len(stored_ratings(engine, first)) == 8
    assert revisions(engine, first) == []
    chosen_side = assignment_row(engine, first).chosen_side
    assert stored_scores(engine, first) == expected_scores(chosen_side)


def test_a_skip_reason_is_shown_back_as_text(open_app, demo, engine):
    at = open_app(demo.token)
    first = current_assignment(at)
    reason = "see ![pic](http://127.0.0.1:9/x.png) <b>bold</b>"
    at.text_input(key=field(at, "skip_reason")).set_value(reason)
    click(at, "skip")
    assert assignment_row(engine, first).skip_reason == reason  # stored as typed
    click(at, "nav_previous")

    (warning,) = messages(at.warning)
    assert "![" not in warning
    assert "<b>" not in warning
    assert "[image: pic]" in warning
    assert "&lt;b&gt;" in warning


def test_admin_typed_scale_text_is_inert_on_the_rating_page(open_app, demo, engine):
    """Dimension labels, definitions and anchors are typed by admins: shown, never loaded."""
    image = "![logo](https://tracker.example/pixel.png)"
    html = "<img src=x onerror=alert(1)>"
    with write_session(engine) as session:
        study = session.exec(select(Study).where(Study.name == "demo")).one()
        study.questionnaire = prb_with(
            {"factuality": f"Facts {image}"},
            {"factuality": html},
            (1, 2, 3, 4, 5),
            {**DEFAULT_ANCHORS, 1: f"Bad {image}"},
        ).stored()
        session.add(study)

    at = open_app(demo.token)
    radio = next(r for r in at.radio if r.label.startswith("Response A: Facts"))
    assert radio.label == "Response A: Facts [image: logo]"
    assert radio.help == "&lt;img src=x onerror=alert(1)&gt;"
    assert radio.options[0].replace("\u00a0", " ") == "1 · Bad [image: logo]"
    guidelines = " ".join(m.value for m in at.markdown)
    assert "pixel.png" not in guidelines
    assert "<img" not in guidelines
    assert "**Facts [image: logo]**: &lt;img src=x onerror=alert(1)&gt;" in guidelines
