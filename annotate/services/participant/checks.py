"""A participant's answer to an instructed-response check, one transaction
(`annotate.domain.crowd.checks` has the rules): the answer is stored and acted on together, so
the second failure ends the participant's work in the same transaction that records it. The
caller answers for themselves only: with the page's login `token`, the answer is refused unless
it is still that active account's. `check_failures` is the admin's count per participant."""

from __future__ import annotations

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from annotate.db import read_session, write_session
from annotate.db.tables import stored_id
from annotate.domain.crowd import checks
from annotate.domain.crowd.checks import CheckResult
from annotate.domain.study import accounts
from annotate.domain.study.permissions import Actor, require_admin
from annotate.domain.study.studies import get_study


def answer_check(
    engine: Engine, actor_id: int, *, study: str, index: int, answer: str, token: str | None
) -> CheckResult:
    """Store and act on the participant's answer to check `index` of `study`."""
    try:
        return _answer(engine, actor_id, study, index, answer, token)
    except IntegrityError:  # the same answer sent twice at once: the other one was stored
        return _answer(engine, actor_id, study, index, answer, token)


def _answer(
    engine: Engine, actor_id: int, study: str, index: int, answer: str, token: str | None
) -> CheckResult:
    with write_session(engine) as session:
        if token is not None:
            accounts.require_current_login(session, token, actor_id)
        return checks.answer_check(session, actor_id, get_study(session, study), index, answer)


def check_failures(engine: Engine, actor: Actor, study: str) -> dict[int, int]:
    """Annotator id -> failed instructed-response checks in the study (admin)."""
    with read_session(engine) as session:
        require_admin(session, actor)
        return checks.check_failures(session, stored_id(get_study(session, study)))
