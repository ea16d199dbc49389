"""Assignment: who rates which pair, in which order, with which response on which side.

Every assignment is one (annotator, pair) with a place in the annotator's shuffled queue and the
side the chosen response is shown on (both drawn in `annotate.domain.assignment.blinding`). An
annotator never gets the same pair twice (a unique constraint), not even after it was taken away
from them.

The package, one concern per module:

- `slots`: which assignments hold one of a pair's k slots, loads, the study lock, appending
  pairs to a queue, and the checks of a late submit or skip (`admit_submit`, `admit_skip`).
- `planner`: the fixed-plan rules on plain data (record ids, names), with no database.
- `fixed`: the fixed plan (`plan_fixed`) read from and written to the database via the planner.
- `pool`: the open pool (`pull_next`) and its reservations.
- `quota`: a person's pairs counted against the quota, the finish rule and the skip limit.
- `release`: the one way a slot goes back to the pool (`release_unfinished`, skips, lapses).
- `reassign`: an annotator's unfinished work handed to others.
- `listings`: a study's pairs, members, assignment rows and coverage.

The names callers use are re-exported here.
"""

from __future__ import annotations

from annotate.domain.assignment.fixed import PairSelection, PlanResult, plan_fixed, select_pairs
from annotate.domain.assignment.listings import (
    ASSIGNMENT_COLUMNS,
    AssignmentRow,
    assignment_rows,
    gold_pairs,
    pair_coverage,
    study_members,
    study_pairs,
)
from annotate.domain.assignment.planner import gold_count
from annotate.domain.assignment.pool import pool_studies_of, pull_next
from annotate.domain.assignment.reassign import ReassignResult, reassign
from annotate.domain.assignment.release import release_lapsed, release_unfinished
from annotate.domain.assignment.slots import (
    OPEN_STATUSES,
    AssignmentError,
    SlotTaken,
    admit_skip,
    admit_submit,
    annotator_loads,
    as_utc,
    assign_pairs,
    holds_slot,
    lock_study,
    slot_clause,
    slots_taken,
)

__all__ = [
    "ASSIGNMENT_COLUMNS",
    "OPEN_STATUSES",
    "AssignmentError",
    "AssignmentRow",
    "PairSelection",
    "PlanResult",
    "ReassignResult",
    "SlotTaken",
    "admit_skip",
    "admit_submit",
    "annotator_loads",
    "as_utc",
    "assign_pairs",
    "assignment_rows",
    "gold_count",
    "gold_pairs",
    "holds_slot",
    "lock_study",
    "pair_coverage",
    "plan_fixed",
    "pool_studies_of",
    "pull_next",
    "reassign",
    "release_lapsed",
    "release_unfinished",
    "select_pairs",
    "slot_clause",
    "slots_taken",
    "study_members",
    "study_pairs",
]
