"""One-command demo: the bundled dataset, a demo study, and a demo annotator with a link."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine

from annotate import accounts
from annotate.assignment import assign_pairs, study_pairs
from annotate.db import write_session
from annotate.importer import ImportSummary, import_files
from annotate.studies import get_or_create_study, get_study

DEMO_STUDY = "demo"
DEMO_SEED = 20260407
DEMO_ANNOTATOR = "demo-annotator"
DEMO_COMPLETION_CODE = "PRB-DEMO-2026"


def demo_data_folder() -> Path:
    """`data/demo` of a source checkout, else of the working directory (the Docker image)."""
    beside_package = Path(__file__).resolve().parent.parent / "data" / "demo"
    return beside_package if beside_package.is_dir() else Path.cwd() / "data" / "demo"


@dataclass(frozen=True)
class DemoSetup:
    imported: ImportSummary
    annotator: str
    token: str
    assigned: int


def set_up_demo(engine: Engine, data_folder: Path | None = None) -> DemoSetup:
    """Import the demo pairs, give them all to the demo annotator, and return a fresh token.

    Safe to run again: nothing is imported twice, and the annotator keeps their ratings (only
    their token is renewed, because a token is stored as a hash and cannot be shown again).
    """
    folder = data_folder or demo_data_folder()
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise FileNotFoundError(f"no demo data (*.jsonl) in {folder}")
    with write_session(engine) as session:
        study = get_or_create_study(session, DEMO_STUDY, seed=DEMO_SEED)
        study.completion_code = study.completion_code or DEMO_COMPLETION_CODE
        session.add(study)
    summary = import_files(engine, files, study=DEMO_STUDY)
    with write_session(engine) as session:
        study = get_study(session, DEMO_STUDY)
        existing = accounts.account_named(session, DEMO_ANNOTATOR)
        if existing is None:
            annotator, token = accounts.create_account(session, DEMO_ANNOTATOR)
        else:
            annotator, token = existing, accounts.rotate_token(session, DEMO_ANNOTATOR)
        created = assign_pairs(session, study, annotator, study_pairs(session, study))
    return DemoSetup(summary, DEMO_ANNOTATOR, token, len(created))
