"""Write every study's exports of a database into a folder, byte for byte reproducible.

Usage: python scripts/freeze_outputs.py DB OUTDIR

For each study of the SQLite file DB (upgraded to this code's schema when opened): the ratings
table and the aspect table (what `prb-annotate export --table ratings|aspects` offers) as CSV,
JSONL and Parquet, and the analysis plan written beside an export (`plan.json`), with the clock
fixed so that its `exported_at` is the same on every run. Run at two commits on copies of the
same database, the folders show what a change of code did to the exports
(tests/annotate/domain/exports/test_frozen_exports.py compares them). It uses only functions that
existed before the questionnaire (issue 35.1), so the same script runs on the code of either side.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

from annotate.db import make_engine
from annotate.domain.exports.export import EXPORT_FORMATS, write_ratings
from annotate.domain.study import plan
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin import aspects, data, studies

FIXED_CLOCK = datetime(2026, 1, 1, tzinfo=UTC)
TABLES = {"ratings": data.export_ratings, "aspects": aspects.export_aspects}


def freeze(db: Path, outdir: Path) -> list[Path]:
    """Write the exports of every study of `db` into `outdir`; the files written."""
    clock = plan.utcnow
    plan.utcnow = lambda: FIXED_CLOCK  # plan.json's `exported_at`: the one clock it reads
    engine = make_engine(f"sqlite:///{db}")
    written = []
    try:
        for study in studies.list_studies(engine, SYSTEM):
            folder = outdir / study.name
            folder.mkdir(parents=True, exist_ok=True)
            for table, export in TABLES.items():
                frame = export(engine, SYSTEM, study.name)
                for fmt in EXPORT_FORMATS:
                    path = folder / f"{table}.{fmt}"
                    write_ratings(frame, path, fmt)
                    written.append(path)
            document = studies.study_plan(engine, SYSTEM, study.name)
            path = folder / "plan.json"
            path.write_text(plan.plan_json(document), encoding="utf-8")
            written.append(path)
    finally:
        engine.dispose()
        plan.utcnow = clock
    return written


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    for path in freeze(Path(argv[0]), Path(argv[1])):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
