"""A study's report reads one snapshot of the database (issue 35, item 4): `study_ratings` opens
one transaction for the ratings, the aspects, the exclusions and the settings, so a change
saved while it reads is in all of them or in none. Real database (SQLite, or PostgreSQL with
PRB_TEST_DATABASE_URL), the simulated demo."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from analysis.study_report import Margin
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin import flags
from annotate.services.admin.demo import DEMO_STUDY, set_up_demo
from annotate.services.results import reporting
from annotate.services.results.reporting import study_ratings, study_report


@pytest.fixture
def rated(engine: Engine) -> Engine:
    set_up_demo(engine, simulated_annotators=3)
    return engine


def test_the_study_is_read_in_one_transaction(rated: Engine) -> None:
    began: list[object] = []

    def count(connection: object) -> None:
        began.append(connection)

    event.listen(rated, "begin", count)
    try:
        data = study_ratings(rated, DEMO_STUDY)
    finally:
        event.remove(rated, "begin", count)
    assert len(began) == 1  # ratings, provenance, exclusions, plan, settings: one snapshot
    assert not data.snapshot.ratings.empty


def test_a_pair_excluded_while_the_study_is_read_is_in_none_of_its_tables(
    rated: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    exported = reporting.ratings_dataframe
    record_id = str(study_ratings(rated, DEMO_STUDY).snapshot.ratings["pair_id"].iloc[0])

    def then_exclude(*args: Any, **kwargs: Any) -> pd.DataFrame:
        """The ratings as read, then an admin excluding a pair (its own transaction)."""
        frame = exported(*args, **kwargs)
        flags.exclude_pair(rated, SYSTEM, study=DEMO_STUDY, record_id=record_id, reason="late")
        return frame

    monkeypatch.setattr(reporting, "ratings_dataframe", then_exclude)
    during = study_ratings(rated, DEMO_STUDY).snapshot
    assert during.excluded == []  # read after the exclusion was saved, from the older snapshot
    assert not during.ratings["pair_excluded"].any()  # as the ratings, read before it
    monkeypatch.setattr(reporting, "ratings_dataframe", exported)
    after = study_ratings(rated, DEMO_STUDY).snapshot
    assert [e["pair_id"] for e in after.excluded] == [record_id]
    marked = after.ratings.loc[after.ratings["pair_excluded"], "pair_id"]
    assert set(marked) == {record_id}


def test_the_margin_carries_its_unit_into_the_report(rated: Engine) -> None:
    data = study_ratings(rated, DEMO_STUDY)
    own = data.settings.margin
    assert own.record is not None  # the study's margin comes with its record
    report = study_report(data, mixed=False, domains=False, options=False)
    assert (report["settings"]["margin"], report["settings"]["margin_unit"]) == (
        own.value,
        own.unit,
    )
    other = study_report(data, margin=Margin(0.3, "sd"), mixed=False, domains=False)
    assert (other["settings"]["margin"], other["settings"]["margin_unit"]) == (0.3, "sd")
    assert data.settings.margin_for(Margin(own.value, own.unit)) is own  # the same: its record
    assert data.settings.margin_for(Margin(0.3, "sd", {"set_at": None})).record is None
