"""The spans marked in responses (admin): the spans table export, annotators by pseudonym."""

from __future__ import annotations

import pandas as pd
from sqlalchemy.engine import Engine

from annotate.db import read_session
from annotate.domain.exports.span_export import spans_dataframe
from annotate.domain.study import studies
from annotate.domain.study.permissions import Actor, require_admin
from annotate.services.results.reporting import pseudonymous


def export_spans(engine: Engine, actor: Actor, study: str | None = None) -> pd.DataFrame:
    """The spans table (one row per span kept) of one study or all, annotators by pseudonym."""
    with read_session(engine) as session:
        require_admin(session, actor)
        if study is not None:
            studies.get_study(session, study)  # StudyNotFound before an empty table
    return pseudonymous(engine, spans_dataframe(engine, study))
