"""Admin actions, as the admin pages call them: each one checks the actor's role first.

Each function takes the engine and the acting account's id, re-reads that account from the
database and raises `PermissionDenied` unless it is an active admin, then calls the library
(studies, importer, accounts, assignment, quality, progress). The CLI calls the library directly:
whoever runs it already holds the database.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from annotate.config import MAX_UPLOAD_MB
from annotate.db import read_session, write_session
from annotate.db.tables import Annotator, Pair, Study
from annotate.domain import accounts, assignment, quality, studies
from annotate.domain.enrolment import enrolment_link
from annotate.domain.importer import DatasetError, ImportSummary, Problem, import_files
from annotate.domain.permissions import require_admin
from annotate.domain.progress import (
    DomainProgress,
    FlaggedPair,
    ProgressRow,
    annotator_progress,
    domain_progress,
    flagged_pairs,
)

UPLOAD_SUFFIXES = (".jsonl", ".ndjson", ".json", ".parquet")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAME_CHARS = 100
MAX_SUFFIX_CHARS = 10


# ---------------------------------------------------------------- studies


def list_studies(engine: Engine, actor_id: int) -> list[Study]:
    with read_session(engine) as session:
        require_admin(session, actor_id)
        return studies.list_studies(session)


def create_study(engine: Engine, actor_id: int, name: str, **settings: Any) -> Study:
    with write_session(engine) as session:
        require_admin(session, actor_id)
        return studies.create_study(session, name, **settings)


def update_study(engine: Engine, actor_id: int, name: str, **changes: Any) -> Study:
    with write_session(engine) as session:
        require_admin(session, actor_id)
        return studies.update_study(session, name, **changes)


def study_enrolment_link(
    engine: Engine, actor_id: int, name: str, base_url: str | None = None
) -> str:
    with read_session(engine) as session:
        require_admin(session, actor_id)
        study = studies.get_study(session, name)
        return enrolment_link(study.name, study.enrolment_key or "", base_url)


# ---------------------------------------------------------------- data


def safe_upload_name(filename: str) -> str:
    """The upload's own base name with unsafe characters replaced (the domain comes from it),
    shortened to MAX_NAME_CHARS with its suffix kept (file systems refuse long names)."""
    base = Path(filename.replace("\\", "/")).name
    cleaned = _UNSAFE.sub("_", base).lstrip(".")
    if len(cleaned) > MAX_NAME_CHARS:
        suffix = Path(cleaned).suffix[:MAX_SUFFIX_CHARS]
        cleaned = cleaned[: MAX_NAME_CHARS - len(suffix)] + suffix
    return cleaned or "upload.jsonl"


def _megabytes(size: int) -> str:
    return f"{size / 2**20:.3g} MB ({size:,} bytes)"


def upload_dataset(
    engine: Engine,
    actor_id: int,
    *,
    study: str,
    filename: str,
    data: bytes,
    domain: str | None = None,
    max_bytes: int = MAX_UPLOAD_MB * 1024 * 1024,
) -> ImportSummary:
    """Import an uploaded file: saved under its own name in a temporary folder, then imported.

    Raises DatasetError with the importer's problems, reported under the uploaded file name.
    """
    with read_session(engine) as session:
        require_admin(session, actor_id)
    name = safe_upload_name(filename)
    if len(data) > max_bytes:
        raise DatasetError(
            [
                Problem(
                    name,
                    "file",
                    f"too large ({_megabytes(len(data))}); the limit is "
                    f"{_megabytes(max_bytes)}, use `prb-annotate import` for bigger files",
                )
            ]
        )
    if not name.lower().endswith(UPLOAD_SUFFIXES):
        raise DatasetError(
            [Problem(name, "file", "expected a .jsonl, .json (an array) or .parquet file")]
        )
    with tempfile.TemporaryDirectory(prefix="prb-upload-") as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        try:
            summary = import_files(engine, [path], study=study, domain=domain or None)
        except DatasetError as error:
            raise DatasetError([_renamed(p, str(path), name) for p in error.problems]) from None
    for item in summary.files:
        item.file = name
    return summary


def _renamed(problem: Problem, temp_path: str, name: str) -> Problem:
    file = name if problem.file == temp_path else problem.file
    return Problem(file, problem.location, problem.message, problem.field)


# ---------------------------------------------------------------- accounts


@dataclass(frozen=True)
class AccountRow:
    name: str
    role: str
    active: bool
    external_id: str | None


def list_accounts(engine: Engine, actor_id: int) -> list[AccountRow]:
    with read_session(engine) as session:
        require_admin(session, actor_id)
        return [
            AccountRow(a.name, a.role, a.active, a.external_id)
            for a in accounts.list_accounts(session)
        ]


def create_accounts(
    engine: Engine,
    actor_id: int,
    names: Sequence[str],
    role: str = "annotator",
    base_url: str | None = None,
) -> list[tuple[str, str]]:
    """Create accounts; return (name, login link) for each: the only time the link is seen."""
    with write_session(engine) as session:
        require_admin(session, actor_id)
        created = [accounts.create_account(session, n, role=role) for n in names if n.strip()]
    return [(account.name, accounts.login_link(token, base_url)) for account, token in created]


def rotate_account(engine: Engine, actor_id: int, name: str, base_url: str | None = None) -> str:
    """A new login link for the account; the old one stops working."""
    with write_session(engine) as session:
        require_admin(session, actor_id)
        return accounts.login_link(accounts.rotate_token(session, name), base_url)


def set_account_active(engine: Engine, actor_id: int, name: str, active: bool) -> None:
    with write_session(engine) as session:
        actor = require_admin(session, actor_id)
        if actor.name == name and not active:
            raise accounts.AccountError("you cannot deactivate your own account")
        accounts.set_active(session, name, active)


def set_account_role(engine: Engine, actor_id: int, name: str, role: str) -> None:
    with write_session(engine) as session:
        actor = require_admin(session, actor_id)
        if actor.name == name and role != "admin":
            raise accounts.AccountError("you cannot take the admin role from your own account")
        accounts.set_role(session, name, role)


# ---------------------------------------------------------------- assignment


def _annotators(session: Session, names: Sequence[str]) -> list[Annotator]:
    return [accounts.get_account(session, n) for n in names]


def make_plan(
    engine: Engine,
    actor_id: int,
    *,
    study: str,
    annotators: Sequence[str],
    selection: assignment.PairSelection,
    per_pair: int | None = None,
    rebalance: bool = False,
) -> assignment.PlanResult:
    with write_session(engine) as session:
        require_admin(session, actor_id)
        target = studies.get_study(session, study)
        pairs = assignment.select_pairs(session, target, selection)
        people = _annotators(session, annotators)
        return assignment.plan_fixed(
            session, target, people, pairs, per_pair=per_pair, rebalance=rebalance
        )


def reassign_work(
    engine: Engine,
    actor_id: int,
    *,
    study: str,
    giver: str,
    receivers: Sequence[str] | None = None,
) -> assignment.ReassignResult:
    with write_session(engine) as session:
        require_admin(session, actor_id)
        target = studies.get_study(session, study)
        people = _annotators(session, receivers) if receivers else None
        return assignment.reassign(session, target, accounts.get_account(session, giver), people)


def assignment_rows(engine: Engine, actor_id: int, study: str) -> list[assignment.AssignmentRow]:
    with read_session(engine) as session:
        require_admin(session, actor_id)
        return assignment.assignment_rows(session, studies.get_study(session, study).id)  # type: ignore[arg-type]


def study_domains(engine: Engine, actor_id: int, study: str) -> list[str]:
    with read_session(engine) as session:
        require_admin(session, actor_id)
        target = studies.get_study(session, study)
        rows = session.exec(
            select(Pair.domain).where(Pair.study_id == target.id).distinct().order_by(Pair.domain)
        ).all()
        return list(rows)


# ---------------------------------------------------------------- quality and progress


def set_gold(
    engine: Engine, actor_id: int, *, study: str, record_ids: Sequence[str], expect: str | None
) -> int:
    """Mark pairs gold with `expect`, or make them ordinary again with expect=None."""
    with write_session(engine) as session:
        require_admin(session, actor_id)
        target = studies.get_study(session, study)
        if expect is None:
            return quality.unmark_gold(session, target, record_ids)
        return quality.mark_gold(session, target, record_ids, expect)


@dataclass(frozen=True)
class Dashboard:
    study: str
    overlap: int
    annotators: list[ProgressRow]
    domains: list[DomainProgress]
    quality: list[quality.AnnotatorQuality]
    flagged: list[FlaggedPair]
    gold: list[quality.GoldPair]
    coverage: dict[str, int]  # record id -> slots taken


def dashboard(engine: Engine, actor_id: int, study: str) -> Dashboard:
    with read_session(engine) as session:
        require_admin(session, actor_id)
        target = studies.get_study(session, study)
        study_id: int = target.id  # type: ignore[assignment]
        return Dashboard(
            study=target.name,
            overlap=target.overlap,
            annotators=annotator_progress(session, study_id),
            domains=domain_progress(session, study_id),
            quality=quality.annotator_quality(session, study_id),
            flagged=flagged_pairs(session, study_id),
            gold=quality.list_gold(session, study_id),
            coverage=assignment.pair_coverage(session, study_id),
        )
