"""Which pair the component holds behind the one it shows (issue 36.2, `pair_view.held_id`):
where a confirmed submit or skip of it leads, else one more from the open pool (the browser
tests of the swap: `test_app_held_pair_browser.py`)."""

from __future__ import annotations

from annotate.app.participant.pair_view import held_id
from annotate.domain.rating.queue import PairView, QueueEntry


def _view(assignment_id: int, status: str) -> PairView:
    return PairView(assignment_id, 1, 4, 0, status, "q", "", "", [], [], {"A": "a", "B": "b"})


def _queue(*statuses: str) -> list[QueueEntry]:
    return [QueueEntry(10 + n, n + 1, status) for n, status in enumerate(statuses)]


class Pool:
    """`work.hold_next` as the page passes it: counts its calls, gives `gives`."""

    def __init__(self, gives: int | None) -> None:
        self.gives, self.calls = gives, 0

    def __call__(self) -> int | None:
        self.calls += 1
        return self.gives


def test_the_next_open_pair_of_the_queue_is_held_without_asking_the_pool():
    pool = Pool(99)
    entries = _queue("done", "pending", "pending", "skipped")
    assert held_id(entries, _view(11, "pending"), pool) == 12
    assert pool.calls == 0


def test_behind_the_last_open_pair_the_pool_is_asked():
    pool = Pool(99)
    assert held_id(_queue("done", "pending"), _view(11, "pending"), pool) == 99
    assert held_id(_queue("done", "pending"), _view(11, "pending"), Pool(None)) is None
    assert pool.calls == 1


def test_a_pair_revisited_holds_where_its_submit_leads():
    """A rated pair looked at again: its submit goes to the first open pair (`_save`)."""
    pool = Pool(99)
    entries = _queue("done", "done", "pending")
    assert held_id(entries, _view(11, "done"), pool) == 12
    assert held_id(entries, _view(12, "pending"), pool) == 99  # the pending one: the pool's
    assert held_id(_queue("done", "done"), _view(11, "done"), pool) is None  # all rated
    assert pool.calls == 1
