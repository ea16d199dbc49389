"""Synthetic datasets: the benchmark's shape and size, valid records, reproducible."""

from __future__ import annotations

import json
import random

import pytest
from sqlalchemy import func
from sqlmodel import select

from annotate.db import read_session
from annotate.db.tables import Pair
from annotate.domain.dataset.records import BenchmarkRecord
from annotate.domain.dataset.synthetic import (
    BENCHMARK_DOMAINS,
    synthetic_record,
    synthetic_records,
    write_synthetic_benchmark,
)
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.data import import_files


def test_benchmark_domains_and_sizes_are_the_papers():
    assert BENCHMARK_DOMAINS == {
        "Art_and_Entertainment": 767,
        "Lifestyle_and_Personal_Development": 989,
        "Society_and_Culture": 1074,
    }
    assert sum(BENCHMARK_DOMAINS.values()) == 2830


def test_full_size_dataset_imports_cleanly_with_the_right_count_per_domain(engine, tmp_path):
    paths = write_synthetic_benchmark(tmp_path, profile_size=2)
    assert [p.name for p in paths] == [f"{d}_test.jsonl" for d in BENCHMARK_DOMAINS]
    assert [sum(1 for _ in p.open()) for p in paths] == list(BENCHMARK_DOMAINS.values())
    summary = import_files(engine, SYSTEM, paths, study="synth")
    assert summary.added == 2830
    assert {f.domain: f.added for f in summary.files} == BENCHMARK_DOMAINS
    with read_session(engine) as session:
        rows = session.exec(select(Pair.domain, func.count()).group_by(Pair.domain)).all()
    assert dict(rows) == BENCHMARK_DOMAINS


@pytest.mark.parametrize(("scale", "sizes"), [(0.01, [8, 10, 11]), (0.0001, [1, 1, 1])])
def test_scaled_sizes(tmp_path, scale, sizes):
    paths = write_synthetic_benchmark(tmp_path, scale=scale, profile_size=1)
    assert [sum(1 for _ in p.open()) for p in paths] == sizes


def test_records_have_the_benchmarks_shape():
    records = list(synthetic_records(40, seed=5, profile_size=120))
    assert len({r["id"] for r in records}) == 40
    for raw in records:
        record = BenchmarkRecord.model_validate(raw)
        assert record.extra_fields == {}
        assert len(record.profile) == 120
        assert 3 <= len(record.rubric_aspects) <= 6
        assert len(record.chosen.split()) == len(record.rejected.split()) == 100
        assert record.question.endswith("?")
        assert {p.category for p in record.profile} == {record.category}


def test_generation_is_reproducible_from_the_seed(tmp_path):
    one = write_synthetic_benchmark(tmp_path / "one", seed=3, scale=0.005, profile_size=4)
    two = write_synthetic_benchmark(tmp_path / "two", seed=3, scale=0.005, profile_size=4)
    other = write_synthetic_benchmark(tmp_path / "three", seed=4, scale=0.005, profile_size=4)
    assert [p.read_bytes() for p in one] == [p.read_bytes() for p in two]
    assert [p.read_bytes() for p in one] != [p.read_bytes() for p in other]
    assert synthetic_record(random.Random(1), "x", profile_size=2) == synthetic_record(
        random.Random(1), "x", profile_size=2
    )


def test_ids_are_unique_across_domains(tmp_path):
    paths = write_synthetic_benchmark(tmp_path, scale=0.02, profile_size=1)
    ids = [json.loads(line)["id"] for p in paths for line in p.open()]
    assert len(ids) == len(set(ids)) == 15 + 20 + 21
