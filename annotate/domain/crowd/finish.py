"""A crowd participant's way to finish (issue 22.4) and the study's finish rule (issue 34.1):
only the work earns the code.

A study open to crowd enrolment always has a per-person quota (`studies.DEFAULT_CROWD_QUOTA`
when none is set). The **finish rule** asks for `assignment.quota.required(study)` counted
pairs (`study.finish_minimum`, default: the quota; rated pairs, plus scoreless flags and skips
only when the study counts them). Once a participant meets it the rating page offers
**Finish**. A pair set aside (skipped, or flagged without scores) is replaced by another, up to
the study's skip-and-flag limit (`study.skip_limit`, default: the quota).

When the pool gives a participant nothing more, `conclude` settles their outcome
(`annotate.domain.crowd.outcomes`), once:

- the rule met (Finish, the quota reached, or the pool empty after it): **completed**, with the
  completion code;
- the skip-and-flag limit reached short of the rule: **screened out**, with the reason and the
  screen-out code;
- the pool empty after some rated work, short of the rule: **completed, pool empty**, the
  completion code and a pro-rata line in the payments export;
- nothing rated and the limit not reached: not settled (the pool may have a pair later).

`ending_notes` is what the done page shows, read from the stored outcomes only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from annotate.db.tables import Annotator, Assignment, Participation, Study, stored_id, utcnow
from annotate.domain.assignment import quota
from annotate.domain.assignment.crowd import has_finished
from annotate.domain.crowd import outcomes
from annotate.domain.crowd.consent import completion_link, gets_platform_exit, participation
from annotate.errors import Conflict


class FinishRefused(Conflict):
    """Finish asked for before the study's minimum, or by someone who is not a participant."""


@dataclass(frozen=True)
class FinishOffer:
    """A study the participant may finish now."""

    study: str
    rated: int  # pairs the finish rule counts so far
    minimum: int  # pairs asked before Finish is offered
    quota: int | None  # most pairs the pool gives one person


def minimum(study: Study) -> int | None:
    """Pairs a participant rates before Finish is offered (None: no finish step)."""
    return quota.required(study)


def offers(session: Session, annotator: Annotator) -> list[FinishOffer]:
    """The studies the participant may finish now: a crowd participant with pairs in an open
    pool, who meets the finish rule and has not ended yet."""
    if annotator.external_id is None:
        return []
    mine = select(Assignment.study_id).where(Assignment.annotator_id == stored_id(annotator))
    found = []
    for study in session.exec(select(Study).where(col(Study.id).in_(mine))).all():
        least = minimum(study)
        if least is None or not study.pool_open:
            continue
        if has_finished(session, stored_id(annotator), stored_id(study)):
            continue
        done = quota.tally(session, study, stored_id(annotator)).counted
        if done >= least:
            found.append(FinishOffer(study.name, done, least, study.pool_quota))
    return found


def finish(session: Session, annotator: Annotator, study: Study) -> int:
    """The participant's Finish: their pending pairs of the study go back to the pool (skipped
    ones stay on record as skipped), the outcome is settled as completed and the pool gives
    them nothing more. Returns how many pairs were released."""
    offer = next((o for o in offers(session, annotator) if o.study == study.name), None)
    if offer is None:
        raise FinishRefused(
            f"Finish is not open to you in this study yet: please rate at least "
            f"{minimum(study) or 'the asked number of'} pairs first."
        )
    held = quota.tally(session, study, stored_id(annotator)).held
    outcomes.settle(session, study, annotator, outcomes.COMPLETED, _rated_words(offer.rated))
    found = participation(session, stored_id(annotator), stored_id(study))
    assert found is not None  # settle made it
    found.finished_at = utcnow()
    session.add(found)
    session.flush()
    return held


def _rated_words(rated: int) -> str:
    return f"You rated {rated} pair{'' if rated == 1 else 's'}."


def conclude(
    session: Session, study: Study, annotator: Annotator, now: datetime | None = None
) -> outcomes.Outcome | None:
    """After the pool gave a crowd participant nothing: settle their outcome by the finish rule
    (see the module); the stored one if they have one already; None while it is open (not a
    crowd participant, a pair still pending, the pool closed, nothing rated yet)."""
    annotator_id = stored_id(annotator)
    stored = outcomes.outcome_of(session, stored_id(study), annotator_id)
    if stored is not None or annotator.external_id is None or not study.pool_open:
        return stored
    standing = quota.tally(session, study, annotator_id)
    if standing.held:
        return None
    need = quota.required(study) or 1
    if standing.counted >= need:
        status, reason = outcomes.COMPLETED, _rated_words(standing.rated)
    elif quota.limit_reached(study, standing):
        status, reason = outcomes.SCREENED_OUT, _limit_words(standing, need)
    elif standing.rated:
        status = outcomes.PARTIAL
        reason = (
            f"The study had no more pairs for you after you rated {standing.rated} of the "
            f"{need} asked; you are paid for the pairs you rated."
        )
    else:
        return None
    return outcomes.settle(session, study, annotator, status, reason, now)


def _limit_words(standing: quota.Tally, need: int) -> str:
    aside = standing.set_aside
    return (
        f"You set aside {aside} pair{'' if aside == 1 else 's'} (skipped, or flagged without "
        f"scores), the most this study allows, and rated {standing.counted} of the {need} "
        "it asks for."
    )


@dataclass(frozen=True)
class EndingNote:
    """What the done page says about one study: the stored outcome, its code and link."""

    study: str
    status: str
    code: str
    reason: str
    link: str | None  # the platform's completion URL with the code (None: none)

    @property
    def paid(self) -> bool:
        return self.status in outcomes.PAID


def ending_notes(session: Session, annotator_id: int) -> list[EndingNote]:
    """What the done page says, by study: a crowd participant's stored outcomes (nothing for a
    study not settled yet); nothing for anyone else (a study's own annotators, adjudicators and
    researchers get no crowd code and no way back to a platform: `consent.gets_platform_exit`)."""
    person = session.get(Annotator, annotator_id)
    rows = session.exec(
        select(Participation, Study)
        .join(Study, col(Study.id) == col(Participation.study_id))
        .where(Participation.annotator_id == annotator_id, col(Participation.outcome).is_not(None))
        .order_by(col(Study.id))
    ).all()
    notes = []
    for row, study in rows:
        if not gets_platform_exit(person, study):
            continue
        code = row.outcome_code
        link = completion_link(study, code) if code else None
        notes.append(EndingNote(study.name, row.outcome or "", code, row.outcome_reason, link))
    return notes
