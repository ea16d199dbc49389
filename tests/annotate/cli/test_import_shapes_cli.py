"""`prb-annotate import` with --shape, --rmbench-pairing, --rb2-pairs and --map (issue 35.2)."""

from __future__ import annotations

import json
from pathlib import Path

from sqlmodel import select

from annotate.db import read_session
from annotate.db.tables import Pair


def _jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _record_ids(engine) -> list[str]:
    with read_session(engine) as session:
        return sorted(session.exec(select(Pair.record_id)).all())


def test_rmbench_pairing_option(run, tmp_path, engine):
    record = {
        "id": 3,
        "prompt": "p",
        "chosen": ["c0", "c1", "c2"],
        "rejected": ["r0", "r1", "r2"],
        "domain": "code",
    }
    path = _jsonl(tmp_path / "rm.jsonl", [record])
    out = run("import", str(path), "--shape", "rmbench", "--rmbench-pairing", "2-0")
    assert "1 pairs, domain code: 1 added" in out
    assert _record_ids(engine) == ["3:2-0"]


def test_rb2_pairs_one(run, tmp_path, engine):
    records = [
        {
            "id": f"q{n}",
            "prompt": "p",
            "chosen": ["c"],
            "rejected": ["a", "b", "d"],
            "subset": "Math",
        }
        for n in range(4)
    ]
    path = _jsonl(tmp_path / "rb2.jsonl", records)
    out = run("import", str(path), "--rb2-pairs", "one")
    assert "4 pairs, domain Math: 4 added" in out
    assert [r.split(":")[0] for r in _record_ids(engine)] == ["q0", "q1", "q2", "q3"]


def test_field_map_option(run, tmp_path, engine):
    path = _jsonl(tmp_path / "mine.jsonl", [{"key": "k1", "q": "x", "good": "a", "bad": "b"}])
    run("import", str(path), "--map", "id=key,question=q,chosen=good,rejected=bad")
    assert _record_ids(engine) == ["k1"]


def test_bad_options_are_refused_with_what_is_expected(run, tmp_path, engine):
    path = _jsonl(tmp_path / "mine.jsonl", [{"q": "x"}])
    out = run("import", str(path), "--map", "chosen=good", code=2)
    assert "rejected must be mapped" in out
    out = run("import", str(path), "--rmbench-pairing", "4-4", code=2)
    assert "expected CHOSEN-REJECTED" in out
    out = run("import", str(path), "--shape", "csv", code=2)
    assert "csv" in out
    assert _record_ids(engine) == []
