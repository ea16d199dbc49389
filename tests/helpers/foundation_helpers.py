"""Helpers shared by the foundation tests (conftest.py exposes them as fixtures too).

Test modules import them as `from foundation_helpers import ...`: pytest puts `tests/` on
`sys.path`, and unlike `conftest` this name is unique in the test tree.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel

Snapshot = dict[str, list[tuple[Any, ...]]]


def snapshot(engine: Engine) -> Snapshot:
    """Every row of every table, sorted: two snapshots are equal iff the data is."""
    tables: Snapshot = {}
    with engine.connect() as connection:
        for table in SQLModel.metadata.sorted_tables:
            rows = connection.execute(select(table)).all()
            tables[table.name] = sorted((tuple(row) for row in rows), key=repr)
    return tables


def make_record(record_id: str = "r_0_0", **overrides: Any) -> dict[str, Any]:
    """A small, valid benchmark record as a plain dict; keyword arguments replace fields."""
    record: dict[str, Any] = {
        "id": record_id,
        "question": f"What should I read next? ({record_id})",
        "profile": [
            {"id": f"{record_id}_p0", "category": "books", "text": "Loved Dune — all of it."},
            {"id": f"{record_id}_p1", "category": "hiking", "text": "Short trails <5 km only."},
        ],
        "rubric_aspects": [
            {
                "aspect": "Recommends finished series",
                "evidence": "Abandoned three trilogies",
                "reason": "Dislikes waiting for sequels",
            },
            {"aspect": "Mentions audio", "evidence": "Listens on commutes", "reason": "Time"},
        ],
        "narrative": "I read on the train, mostly science fiction, and hate cliffhangers.",
        "category": "books",
        "chosen": "Try *Project Hail Mary*: standalone, great on audio.",
        "rejected": "Start *The Expanse*, a nine-book series with a TV adaptation.",
    }
    record.update(copy.deepcopy(overrides))
    return record


def write_records(path: Path, records: list[dict[str, Any]]) -> Path:
    """Write records as JSONL, a JSON array (one record per line) or Parquet, by suffix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".jsonl":
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
        )
    elif path.suffix == ".json":
        body = ",\n".join(json.dumps(r, ensure_ascii=False) for r in records)
        path.write_text(f"[\n{body}\n]\n", encoding="utf-8")
    elif path.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(records), path)
    else:
        raise ValueError(path)
    return path
