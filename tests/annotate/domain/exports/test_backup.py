"""`prb-annotate backup` and an export that round-trips into the analysis unchanged."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from analysis import build_report, load_ratings
from annotate.db import make_engine, read_session
from annotate.db.tables import Rating
from annotate.domain.exports.backup import BackupError, backup_database
from annotate.domain.exports.export import ratings_dataframe, write_ratings
from annotate.domain.rating.queue import queue
from annotate.domain.study.accounts import find_account
from annotate.services.admin.demo import set_up_demo
from annotate.services.admin.simulated import store_simulated_ratings
from annotate.services.participant.rating import submit_rating
from annotate.vocabulary import DIMENSIONS, SIDES


def _count_ratings(engine: Engine) -> int:
    with engine.connect() as connection:
        return connection.execute(select(func.count()).select_from(Rating)).scalar_one()


@pytest.mark.sqlite_only
def test_backup_while_annotators_submit_is_a_consistent_copy(engine, tmp_path: Path) -> None:
    setup = set_up_demo(engine, simulated_annotators=2)
    with read_session(engine) as session:
        annotator = find_account(session, setup.token)
        entries = queue(session, annotator.id)
    scores = {side: dict.fromkeys(DIMENSIONS, 3) for side in SIDES}
    before = _count_ratings(engine)  # the demo's made-up scores, of every demo study
    assert before >= setup.simulated_scores > 0

    def submit_all() -> None:
        for entry in entries:
            submit_rating(
                engine,
                annotator_id=annotator.id,
                assignment_id=entry.assignment_id,
                scores=scores,
                seconds=1.0,
            )

    writer = threading.Thread(target=submit_all)
    writer.start()
    copies = [backup_database(engine, tmp_path / f"copy{i}.db") for i in range(3)]
    writer.join()

    for path in copies:
        copy = make_engine(str(path), create=False)
        count = _count_ratings(copy)
        # Every pair-rating is all 8 scores or none: a snapshot never holds half a submit.
        assert count % 8 == 0
        assert before <= count <= before + 8 * len(entries)
        copy.dispose()
    final = backup_database(engine, tmp_path / "final.db")
    final_engine = make_engine(str(final), create=False)
    assert ratings_dataframe(final_engine).equals(ratings_dataframe(engine))
    final_engine.dispose()


def test_backup_refuses_to_overwrite_and_explains_postgres(engine, tmp_path: Path) -> None:
    target = tmp_path / "exists.db"
    target.write_bytes(b"keep me")
    if engine.dialect.name == "sqlite":
        with pytest.raises(BackupError, match="already exists"):
            backup_database(engine, target)
        assert target.read_bytes() == b"keep me"
    postgres = make_engine("postgresql+psycopg://nobody@127.0.0.1:1/none", create=False)
    with pytest.raises(BackupError, match="pg_dump"):
        backup_database(postgres, tmp_path / "pg.db")


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_export_round_trips_into_the_analysis_unchanged(engine, tmp_path: Path, fmt) -> None:
    set_up_demo(engine)
    store_simulated_ratings(engine, "demo", n_annotators=4, seed=3, count=True)
    direct = ratings_dataframe(engine, "demo")
    path = tmp_path / f"ratings.{fmt}"
    write_ratings(direct, path, fmt)

    from_file = load_ratings(path)
    assert len(from_file) == len(direct) == 27 * 4 * 8
    assert build_report(path, n_boot=50) == build_report(direct, n_boot=50)
    assert sorted(from_file["score"].tolist()) == sorted(direct["score"].tolist())
