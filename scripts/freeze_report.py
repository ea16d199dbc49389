"""Write each study's report JSON and card Markdown from a database, with a fixed seed.

    python scripts/freeze_report.py DB OUTDIR [STUDY ...]

The files (``<study>.report.json``, ``<study>.card.md``; every study with ratings, or the
studies named) are what a later commit must reproduce byte for byte on the same database
(tests/fixtures/before_questionnaire/reports/). The clock is fixed at ``CLOCK`` (the analysis
plan's export time reads it); every other time in them is the database's.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from unittest import mock

from analysis.renderers.render import render_json
from annotate.db import make_engine
from annotate.domain.exports import publish
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.publish import card_files
from annotate.services.results.reporting import study_names, study_ratings, study_report

SEED = 0
N_BOOT = 20
CLOCK = datetime(2026, 1, 1, tzinfo=UTC)


def frozen_files(db: str, studies: Sequence[str] = ()) -> dict[str, str]:
    """File name -> text: for each study with ratings (or each of `studies`), its report JSON
    and its card's Markdown, with the clock at `CLOCK`."""
    engine = make_engine(db)
    out: dict[str, str] = {}
    with mock.patch("annotate.domain.study.plan.utcnow", return_value=CLOCK):
        for study in studies or study_names(engine):
            data = study_ratings(engine, study)
            if data.snapshot.ratings.empty:
                continue
            report = study_report(data, n_boot=N_BOOT, seed=SEED)
            out[f"{study}.report.json"] = render_json(report)
            card = card_files(engine, SYSTEM, study, n_boot=N_BOOT, seed=SEED)
            out[f"{study}.card.md"] = card[publish.CARD_FILE].decode("utf-8")
    engine.dispose()
    return out


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        raise SystemExit("usage: freeze_report.py DB OUTDIR [STUDY ...]")
    folder = Path(argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in frozen_files(argv[0], argv[2:]).items():
        (folder / name).write_text(text, encoding="utf-8")
        print(f"{folder / name}: {len(text):,} characters")


if __name__ == "__main__":
    main(sys.argv[1:])
