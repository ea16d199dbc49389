"""The aspect checklist's data (admin): the aspect table export, and an LLM judge's aspect
scores imported all or nothing (read and checked before the write transaction, so a long read
never holds the write lock; the write is audited). Judge scores are never sent to annotators.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from sqlalchemy.engine import Engine

from annotate.db import read_session
from annotate.domain.exports.aspect_export import aspects_dataframe
from annotate.domain.models import judge_aspects
from annotate.domain.models.judge_aspects import JudgeImportSummary
from annotate.domain.models.model_files import check_model_name
from annotate.domain.study import studies
from annotate.domain.study.permissions import Actor, require_admin
from annotate.services.audited import admin_change
from annotate.services.results.reporting import pseudonymous


def export_aspects(engine: Engine, actor: Actor, study: str | None = None) -> pd.DataFrame:
    """The aspect table (one row per assignment, response and aspect) of one study or all,
    annotators by pseudonym."""
    with read_session(engine) as session:
        require_admin(session, actor)
        if study is not None:
            studies.get_study(session, study)  # StudyNotFound before an empty table
    return pseudonymous(engine, aspects_dataframe(engine, study))


def import_judge(
    engine: Engine,
    actor: Actor,
    path: Path | list[Path],
    *,
    study: str,
    judge: str,
    replace: bool = False,
    response: str | None = None,
) -> JudgeImportSummary:
    """Import one judge's aspect scores into `study`: every record, or nothing.

    Raises DatasetError listing every problem (file, line, field), Conflict when the judge
    already has other scores and `replace` is not set, PermissionDenied unless admin.
    """
    with read_session(engine) as session:
        require_admin(session, actor)
    check_model_name(judge)
    paths = path if isinstance(path, list) else [path]
    staged = judge_aspects.stage_judge_files(paths, response)
    with admin_change(engine, actor, "judge.import", study) as change:
        summary = judge_aspects.store_judge(
            change.session, staged, study=study, name=judge, replace=replace
        )
        change.after = {
            "judge": judge,
            "outcome": summary.outcome,
            "pairs": summary.n_pairs,
            "unparsed": summary.n_unparsed,
        }
        change.changed = summary.outcome != "unchanged"
        return summary
