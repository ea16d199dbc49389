"""Annotators' pseudonyms (issue 24.1): how a person is named in everything that leaves the
database (exports, reports, the results page's downloads, the published card).

A pseudonym is `a-` and 12 hex digits of HMAC-SHA256 over the study's and the account's ids,
keyed with a secret of this database (`SiteSecret` 'pseudonym', made with the schema): stable
within a study, different between studies (the same person cannot be followed from one
published study to another), and not derivable from a platform id or an account name without
the secret. Who is who stays in the database and in the admin's participants export
(`annotate.domain.crowd.participants`).

Simulated accounts keep their names (`keep`): they are not people, and the card labels them.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from typing import TYPE_CHECKING

from sqlmodel import Session, col, select

from annotate.db.tables import Annotator, Assignment, Participation, SiteSecret, Training
from annotate.errors import Broken

if TYPE_CHECKING:  # the annotator's pages use the ids only: no pandas for them
    import pandas as pd

SECRET_NAME = "pseudonym"
PREFIX = "a-"
ANNOTATOR_COLUMN = "annotator"


def secret_key(session: Session) -> bytes:
    """The database's pseudonym key (Broken when the schema is older than migration 0016)."""
    row = session.exec(select(SiteSecret).where(col(SiteSecret.name) == SECRET_NAME)).first()
    if row is None:
        raise Broken("the database has no pseudonym secret: run `prb-annotate db upgrade`")
    return row.value.encode("ascii")


def pseudonym(key: bytes, study_id: int, annotator_id: int) -> str:
    """The annotator's pseudonym in the study."""
    digest = hmac.new(key, f"{study_id}:{annotator_id}".encode(), hashlib.sha256).hexdigest()
    return PREFIX + digest[:12]


def study_members(session: Session, study_id: int) -> list[tuple[int, str]]:
    """(account id, name) of everyone with an assignment, a participation or a training row in
    the study."""
    ids: set[int] = set()
    for table in (Assignment, Participation, Training):
        found = session.exec(select(table.annotator_id).where(table.study_id == study_id))
        ids.update(int(i) for i in found)
    if not ids:
        return []
    rows = session.exec(select(Annotator.id, Annotator.name).where(col(Annotator.id).in_(ids)))
    return [(int(i), str(n)) for i, n in rows if i is not None]


def pseudonyms(
    session: Session, study_id: int, keep: Callable[[str], bool] = lambda _: False
) -> dict[str, str]:
    """Account name -> pseudonym for the study's members (`keep`: names left as they are)."""
    key = secret_key(session)
    return {
        name: name if keep(name) else pseudonym(key, study_id, account)
        for account, name in study_members(session, study_id)
    }


def pseudonymised(frame: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    """`frame` with its annotator column named by `names` (a name missing from it, which would
    leak, is an error rather than passed through)."""
    if ANNOTATOR_COLUMN not in frame or frame.empty:
        return frame
    mapped = frame[ANNOTATOR_COLUMN].map(names)
    unknown = frame.loc[mapped.isna(), ANNOTATOR_COLUMN].dropna().unique()
    if len(unknown):
        raise Broken(f"{len(unknown)} annotator(s) of the export have no pseudonym")
    return frame.assign(**{ANNOTATOR_COLUMN: mapped.where(frame[ANNOTATOR_COLUMN].notna())})
