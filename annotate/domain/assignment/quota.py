"""A person's pairs in an open-pool study, counted against its per-person quota, its finish
rule and its skip-and-flag limit (issue 34.1).

- **rated**: pairs done (a flag sent with every answer given is a rated pair);
- **flagged**: pairs flagged without scores; **skipped**: pairs skipped;
- **counted**: what the finish rule counts: rated, plus flagged and skipped ones when the study
  says so (`finish_counts_flags`, `finish_counts_skips`; default: they do not);
- **set aside**: flagged and skipped pairs the rule does not count.

The pool gives a person pairs while counted plus held pairs are below the quota
(`study.pool_quota`) and set-aside ones below the limit (`study.skip_limit`, default: the
quota): a pair set aside is replaced, up to the limit. The finish rule asks for
`required(study)` counted pairs (`study.finish_minimum`, default: the quota).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, col, select

from annotate.db.tables import Assignment, Study
from annotate.vocabulary import AssignmentStatus, Purpose


@dataclass(frozen=True)
class Tally:
    """One person's ordinary pairs of one study, by what became of them."""

    rated: int
    flagged: int  # flagged without scores
    skipped: int
    held: int  # pending (reserved or planned)
    counts_flags: bool = False
    counts_skips: bool = False

    @property
    def counted(self) -> int:
        """Pairs the finish rule counts."""
        return (
            self.rated
            + (self.flagged if self.counts_flags else 0)
            + (self.skipped if self.counts_skips else 0)
        )

    @property
    def set_aside(self) -> int:
        """Pairs skipped or flagged without scores that the finish rule does not count."""
        flagged = 0 if self.counts_flags else self.flagged
        return flagged + (0 if self.counts_skips else self.skipped)


def required(study: Study) -> int | None:
    """Counted pairs the finish rule asks for (None: no rule, the study has no quota)."""
    return study.finish_minimum or study.pool_quota


def skip_limit(study: Study) -> int | None:
    """Pairs a person may set aside before the pool stops (None: no limit)."""
    return study.skip_limit if study.skip_limit is not None else study.pool_quota


def tally(session: Session, study: Study, annotator_id: int) -> Tally:
    """The person's ordinary (rating) pairs of the study, released pending ones left out."""
    rows = session.exec(
        select(Assignment.status, Assignment.flagged, func.count())
        .where(
            Assignment.study_id == study.id,
            Assignment.annotator_id == annotator_id,
            Assignment.purpose == Purpose.RATING,
            col(Assignment.status) != AssignmentStatus.RELEASED,
        )
        .group_by(col(Assignment.status), col(Assignment.flagged))
    ).all()
    count = {(status, bool(flag)): int(n) for status, flag, n in rows}
    done = AssignmentStatus.DONE
    skipped = AssignmentStatus.SKIPPED
    return Tally(
        rated=count.get((done, False), 0) + count.get((done, True), 0),
        flagged=count.get((skipped, True), 0),
        skipped=count.get((skipped, False), 0),
        held=count.get((AssignmentStatus.PENDING, False), 0)
        + count.get((AssignmentStatus.PENDING, True), 0),
        counts_flags=study.finish_counts_flags,
        counts_skips=study.finish_counts_skips,
    )


def quota_reached(study: Study, found: Tally) -> bool:
    """The person holds or has done as many counted pairs as the quota allows."""
    return study.pool_quota is not None and found.counted + found.held >= study.pool_quota


def limit_reached(study: Study, found: Tally) -> bool:
    """The person has set aside as many pairs as the study allows."""
    limit = skip_limit(study)
    return limit is not None and found.set_aside >= limit


def counts_words(study: Study) -> str:
    """What the finish rule counts, in words: 'rated pairs', '... and skips'."""
    counted = ["rated pairs"]
    counted += ["flags without scores"] if study.finish_counts_flags else []
    counted += ["skips"] if study.finish_counts_skips else []
    return ", ".join(counted[:-1]) + " and " + counted[-1] if len(counted) > 1 else counted[0]
