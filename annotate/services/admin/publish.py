"""`prb-annotate publish` and the Publish page: a study's ratings, validation report and dataset
card, as files in a folder ready to upload to a dataset hub, or as one zip made in memory
(admin).

Everything in them passes `annotate.domain.exports.published`: annotators by pseudonym, free
text only for the fields the admin discloses, times to the minute.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
from sqlalchemy.engine import Engine

from analysis.core.ratings import ordinary_rows
from analysis.renderers.html_report import render_html
from analysis.renderers.render import render_json, render_markdown
from analysis.schema.report_types import Report
from analysis.study_report import StudyData
from annotate.db import read_session
from annotate.domain.crowd.payment_rules import pay_words, payment_rules
from annotate.domain.exports import card_reproduce, card_results, publish
from annotate.domain.exports.croissant import croissant_document, croissant_json
from annotate.domain.exports.preference import PREFERENCE_NOTES
from annotate.domain.exports.published import (
    HISTORY_COLUMNS,
    Disclosure,
    emails_in,
    free_text_fields,
    masked_frame,
    published_frame,
    published_times,
)
from annotate.domain.exports.spreadsheet import spreadsheet_csv
from annotate.domain.study import studies
from annotate.domain.study.permissions import Actor, require_admin
from annotate.domain.study.plan import plan_json
from annotate.domain.study.questionnaire import questionnaire_of
from annotate.errors import Invalid, Unavailable
from annotate.services.admin.preference import preference_pairs, preference_table
from annotate.services.results.downstream import with_downstream
from annotate.services.results.reporting import study_ratings, study_report
from annotate.services.results.reward_models import model_inputs, with_reward_models


def free_text_choices(engine: Engine, actor: Actor, study: str) -> dict[str, str]:
    """The study's free-text fields an admin may disclose in the card: field -> what it holds."""
    with read_session(engine) as session:
        require_admin(session, actor)
        return free_text_fields(studies.get_study(session, study).survey_questions)


def emails_disclosed(
    engine: Engine, actor: Actor, study: str, disclose: Iterable[str]
) -> dict[str, int]:
    """The warning before disclosing free text (issue 32): field -> how many of its entries
    hold an e-mail-like string, for the fields of `disclose` (fields holding none left out)."""
    with read_session(engine) as session:
        require_admin(session, actor)
        studies.get_study(session, study)
    data = study_ratings(engine, study)
    fields = Disclosure.of(disclose, data.snapshot.free_text).free_text
    found = emails_in(data.snapshot.ratings, sorted(fields))
    if data.snapshot.aspects is not None:
        for name, count in emails_in(data.snapshot.aspects, sorted(fields)).items():
            found[name] = found.get(name, 0) + count
    return found


def card_files(
    engine: Engine,
    actor: Actor,
    study: str,
    *,
    disclose: Iterable[str] = (),
    mask_emails: bool = False,
    n_boot: int = 0,
    seed: int = 0,
    license: str = publish.DEFAULT_LICENSE,
) -> dict[str, bytes]:
    """The validation card's files of `study`, name -> bytes, with the free-text fields of
    `disclose` (none by default), their e-mail-like strings masked when `mask_emails`."""
    with read_session(engine) as session:
        require_admin(session, actor)
        target = studies.get_study(session, study)
        scale = questionnaire_of(target).scale_question
        question = questionnaire_of(target).target
        pairs = preference_pairs(session, target)
    data = study_ratings(engine, study)
    snapshot, ratings = data.snapshot, data.snapshot.ratings
    if ratings.empty:
        raise Invalid(f"study {study!r} has no ratings yet: nothing to publish")
    disclosure = Disclosure.of(disclose, snapshot.free_text)
    report = with_reward_models(
        study_report(data, n_boot=n_boot, seed=seed), model_inputs(engine, actor, study, ratings)
    )
    report = with_downstream(engine, actor, study, report, n_boot=n_boot or 200, seed=seed)
    protocol = publish.Protocol(
        study=study,
        scale_min=scale.points[0] if scale else 1,
        scale_max=scale.points[-1] if scale else 2,
        anchors={str(k): v for k, v in (scale.anchors if scale else {}).items()},
        margin=target.equivalence_margin,
        overlap=target.overlap,
        n_annotators=int(ordinary_rows(ratings)["annotator"].nunique()),  # no adjudicator
        n_simulated=simulated_annotators(data),
        n_rows=len(ratings),
        exclusions=published_times(list(snapshot.excluded)),
        license=license,
        free_text=snapshot.free_text,
        disclosed=sorted(disclosure.free_text),
        erasures=snapshot.erasures,
        pay=pay_words(payment_rules(target), target.platform),
        instructed_checks=len(target.instructed_checks),
        questionnaire=data.settings.questionnaire,
    )
    pairs_out = preference_table(data, pairs) if question is not None else None
    files = _files(data, disclosure, published_times(report), protocol, mask_emails, pairs_out)
    return files


def publish_study(
    engine: Engine,
    actor: Actor,
    study: str,
    folder: Path,
    *,
    disclose: Iterable[str] = (),
    mask_emails: bool = False,
    n_boot: int = 0,
    seed: int = 0,
    license: str = publish.DEFAULT_LICENSE,
) -> list[Path]:
    """Write the validation card of `study` into `folder` (new or empty); return the files."""
    files = card_files(
        engine,
        actor,
        study,
        disclose=disclose,
        mask_emails=mask_emails,
        n_boot=n_boot,
        seed=seed,
        license=license,
    )
    return publish.write_folder(folder, files)


@dataclass(frozen=True)
class HubUpload:
    """What `--push` sends: the written folder, whole, to a dataset repository on the hub."""

    repo_id: str
    folder_path: Path
    repo_type: str = "dataset"


def hub_upload(folder: Path, repo: str) -> HubUpload:
    """The upload of the card `folder` to the hub's dataset repository `repo` ("owner/name")."""
    owner, _, name = repo.partition("/")
    if not owner or not name or "/" in name:
        raise Invalid(f"--push {repo!r}: expected a dataset repository as owner/name")
    return HubUpload(repo_id=repo, folder_path=folder.resolve())


def push_folder(upload: HubUpload) -> str:
    """Send the folder to the hub (the token: huggingface_hub's own login or HF_TOKEN); returns
    the commit's address. The folder stays as written whatever happens."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    api = HfApi()
    try:
        api.create_repo(upload.repo_id, repo_type=upload.repo_type, exist_ok=True)
        done = api.upload_folder(
            repo_id=upload.repo_id,
            folder_path=upload.folder_path,
            repo_type=upload.repo_type,
            commit_message="Validation card (prb-annotate publish)",
        )
    except (HfHubHTTPError, OSError, ValueError) as error:
        raise Unavailable(
            f"could not push {upload.folder_path} to {upload.repo_id}: {error} (the folder is "
            "written; push it again later)"
        ) from None
    return str(getattr(done, "commit_url", upload.repo_id))


def card_zip(files: dict[str, bytes], study: str) -> bytes:
    """The card's files as one zip, made in memory (a page's download: with several servers,
    no server's disk is the admin's), in a folder named after the study."""
    buffer = io.BytesIO()
    folder = publish.folder_name(study)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(files.items()):
            archive.writestr(f"{folder}/{name}", data)
    return buffer.getvalue()


def simulated_annotators(data: StudyData) -> int:
    """The simulated annotators in the card's figures (0 unless the study counts them)."""
    if data.snapshot.simulated is None or not data.snapshot.simulated["counted"]:
        return 0
    return data.snapshot.simulated["n_annotators"]


def _published(
    data: StudyData, frame: pd.DataFrame, disclosure: Disclosure, mask: bool
) -> pd.DataFrame:
    """A table as published, its disclosed free text (and the histories that carry a rationale)
    with e-mail-like strings masked when `mask`."""
    out = published_frame(frame, data.snapshot.free_text, disclosure)
    return masked_frame(out, [*disclosure.free_text, *HISTORY_COLUMNS]) if mask else out


def _files(
    data: StudyData,
    disclosure: Disclosure,
    report: Report,
    protocol: publish.Protocol,
    mask: bool = False,
    pairs: pd.DataFrame | None = None,
) -> dict[str, bytes]:
    """The folder's files: the tables (ratings; the aspect marks for a study with the
    checklist; the spans for a study with span labels; the pairs in TRL's preference format
    with their verdicts when the study has a target question), the report, the plan, the
    scripts, the card and its Croissant metadata."""
    left_out = {e["pair_id"] for e in data.snapshot.excluded}
    ratings = _published(data, data.snapshot.ratings, disclosure, mask)
    ratings["excluded"] = ratings["pair_id"].isin(left_out)
    tables = {"ratings": (publish.RATINGS_FILE, ratings)}
    marks = data.snapshot.aspects
    if marks is not None and not marks.empty:  # a study with the aspect checklist
        aspects = _published(data, marks, disclosure, mask)
        aspects["excluded"] = aspects["pair_id"].isin(left_out)
        tables["aspects"] = (publish.ASPECTS_FILE, aspects)
    spans = data.snapshot.spans
    if spans is not None and not spans.empty:  # a study with span labels
        published = _published(data, spans, disclosure, mask)
        published["excluded"] = published["pair_id"].isin(left_out)
        tables["spans"] = (publish.SPANS_FILE, published)
    if pairs is not None:
        tables["preference"] = (publish.PREFERENCE_FILE, pairs)
    parquet = {name: _parquet(frame) for name, frame in tables.values()}
    protocol = replace(protocol, files=tuple(parquet))
    json_name, md_name, html_name = publish.REPORT_FILES
    extra = {}
    plan = data.settings.plan
    if plan is not None:
        extra[card_results.PLAN_FILE] = plan_json(published_times(plan)).encode("utf-8")
    notes = {"ratings": publish.RATINGS_COLUMNS, "preference": PREFERENCE_NOTES}
    today = datetime.now(UTC).date().isoformat()
    document = croissant_document(protocol, tables, parquet, notes, today)
    return (
        extra
        | card_reproduce.reproduce_scripts()
        | parquet
        | {
            publish.RATINGS_CSV: spreadsheet_csv(ratings).encode("utf-8"),  # R's copy
            json_name: render_json(report).encode("utf-8"),
            md_name: render_markdown(report).encode("utf-8"),
            html_name: render_html(report).encode("utf-8"),
            publish.CARD_FILE: publish.dataset_card(protocol, report).encode("utf-8"),
            publish.CROISSANT_FILE: croissant_json(document).encode("utf-8"),
        }
    )


def _parquet(frame: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()
