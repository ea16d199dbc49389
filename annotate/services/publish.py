"""`prb-annotate publish`: a study's ratings, validation report and dataset card written to a
folder ready to upload to a dataset hub (admin)."""

from __future__ import annotations

import io
from pathlib import Path

from sqlalchemy.engine import Engine

from analysis.core.ratings import ordinary_rows
from analysis.renderers.html_report import render_html
from analysis.renderers.render import render_json, render_markdown
from analysis.schema.report_types import Report
from annotate.db import read_session
from annotate.domain.exports import publish
from annotate.domain.study import studies
from annotate.domain.study.permissions import Actor, require_admin
from annotate.errors import Invalid
from annotate.services.reporting import StudyRatings, study_ratings, study_report
from annotate.services.reward_models import model_inputs, with_reward_models
from annotate.services.simulated import is_simulated


def publish_study(
    engine: Engine,
    actor: Actor,
    study: str,
    folder: Path,
    *,
    n_boot: int = 0,
    seed: int = 0,
    license: str = publish.DEFAULT_LICENSE,
) -> list[Path]:
    """Write the validation card of `study` into `folder` (new or empty); return the files."""
    with read_session(engine) as session:
        require_admin(session, actor)
        target = studies.get_study(session, study)
    data = study_ratings(engine, study)
    if data.ratings.empty:
        raise Invalid(f"study {study!r} has no ratings yet: nothing to publish")
    report = with_reward_models(
        study_report(data, n_boot=n_boot, seed=seed),
        model_inputs(engine, actor, study, data.ratings),
    )
    protocol = publish.Protocol(
        study=study,
        scale_min=target.scale_min,
        scale_max=target.scale_max,
        anchors=dict(target.anchors),
        margin=target.equivalence_margin,
        overlap=target.overlap,
        n_annotators=int(ordinary_rows(data.ratings)["annotator"].nunique()),  # no adjudicator
        n_simulated=_simulated(data),
        n_rows=len(data.ratings),
        exclusions=list(data.excluded),
        license=license,
    )
    return publish.write_folder(folder, _files(data, report, protocol))


def _simulated(data: StudyRatings) -> int:
    return sum(1 for name in data.ratings["annotator"].unique() if is_simulated(str(name)))


def _files(data: StudyRatings, report: Report, protocol: publish.Protocol) -> dict[str, bytes]:
    ratings = data.ratings.copy()
    left_out = {e["pair_id"] for e in data.excluded}
    ratings["excluded"] = ratings["pair_id"].isin(left_out)
    buffer = io.BytesIO()
    ratings.to_parquet(buffer, index=False)
    json_name, md_name, html_name = publish.REPORT_FILES
    extra = {}
    if data.aspects is not None and not data.aspects.empty:  # a study with the aspect checklist
        aspects = data.aspects.copy()
        aspects["excluded"] = aspects["pair_id"].isin(left_out)
        table = io.BytesIO()
        aspects.to_parquet(table, index=False)
        extra[publish.ASPECTS_FILE] = table.getvalue()
    return (
        extra
        | publish.reproduce_scripts()
        | {
            publish.RATINGS_FILE: buffer.getvalue(),
            json_name: render_json(report).encode("utf-8"),
            md_name: render_markdown(report).encode("utf-8"),
            html_name: render_html(report).encode("utf-8"),
            publish.CARD_FILE: publish.dataset_card(protocol, report).encode("utf-8"),
        }
    )
