"""Pre-registered exclusion rules on a real database (SQLite, or PostgreSQL with
PRB_TEST_DATABASE_URL): set before the data, refused after it without force (and recorded when
forced), the per-annotator facts from gold pairs, and the report that applies the rules."""

from __future__ import annotations

import pandas as pd
import pytest
from sqlmodel import select

from annotate.db import read_session, write_session
from annotate.db.tables import AuditEntry, Pair, Study
from annotate.domain.assignment import PairSelection
from annotate.domain.operations.exclusion_rules import RulesAfterData, RulesError
from annotate.domain.rating.quality import mark_gold
from annotate.domain.study.permissions import SYSTEM, PermissionDenied
from annotate.services.admin import data as data_services
from annotate.services.admin import plans
from annotate.services.admin.exclusion_rules import set_study_rules, study_rules
from annotate.services.admin.publish import publish_study
from annotate.services.results.reporting import study_ratings, study_report
from annotate.services.results.study_annotators import study_pseudonyms
from annotate.vocabulary import DIMENSIONS
from tests.helpers.admin_helpers import assignments, make_people, make_study, rate

GOLD = ("p000", "p001", "p002")


def audit(engine, action: str = "study.rules") -> list[AuditEntry]:
    with read_session(engine) as session:
        rows = session.exec(select(AuditEntry).where(AuditEntry.action == action))
        return list(rows.all())


@pytest.fixture
def planned(engine):
    """Study `s`: 12 pairs, p000-p002 gold (expected: chosen), 9 ordinary pairs given to all of
    a0, a1, a2 (k=3) with the 3 gold pairs mixed into each queue (gold rate 0.25: 9 * 0.25 /
    0.75 = 3). Nothing rated yet."""
    study_id = make_study(engine, "s", pairs=12, overlap=3, gold_rate=0.25)
    ids = make_people(engine, 3)
    with write_session(engine) as session:
        mark_gold(session, session.get(Study, study_id), list(GOLD), "chosen")
    plans.make_plan(
        engine, SYSTEM, study="s", annotators=["a0", "a1", "a2"], selection=PairSelection()
    )
    return engine, study_id, ids


def by_side(chosen_side: str, chosen: int, rejected: int) -> dict[str, dict[str, int]]:
    other = "B" if chosen_side == "A" else "A"
    return {
        chosen_side: dict.fromkeys(DIMENSIONS, chosen),
        other: dict.fromkeys(DIMENSIONS, rejected),
    }


def rate_all(engine, study_id: int, ids: list[int]) -> None:
    """a0: chosen 4, rejected 2 everywhere, 10 s. a1: the same, but fails every gold pair
    (chosen 2, rejected 4). a2: straight-lines the 9 ordinary pairs (all 3) and answers gold
    right, in 1 s per pair."""
    with read_session(engine) as session:
        gold = {p.id for p in session.exec(select(Pair).where(Pair.gold_preference == "chosen"))}
    for item in assignments(engine, study_id):
        is_gold = item.pair_id in gold
        who = ids.index(item.annotator_id)
        chosen, rejected, seconds = 4, 2, 10.0
        if who == 1 and is_gold:
            chosen, rejected = 2, 4
        if who == 2:
            chosen, rejected, seconds = (4, 2, 1.0) if is_gold else (3, 3, 1.0)
        given = by_side(item.chosen_side, chosen, rejected)
        rate(engine, item.annotator_id, item.id, given=given, seconds=seconds)


def test_rules_set_before_the_data_are_recorded_and_audited(planned):
    engine, _, _ = planned
    record = set_study_rules(engine, SYSTEM, "s", {"max_gold_failures": 1})
    assert record["rules"] == {"max_gold_failures": 1}
    assert record["set_at"] is not None
    assert record["first_rating_at"] is None
    (entry,) = audit(engine)
    assert entry.before == {"exclusion_rules": {}}
    assert entry.after == {"exclusion_rules": {"max_gold_failures": 1}}
    # the same rules again change nothing and log nothing
    set_study_rules(engine, SYSTEM, "s", {"max_gold_failures": 1})
    assert len(audit(engine)) == 1
    changed = set_study_rules(engine, SYSTEM, "s", {"min_gold_accuracy": 0.5})
    (earlier,) = changed["history"]
    assert earlier["rules"] == {"max_gold_failures": 1}
    assert earlier["set_at"] == record["set_at"]
    assert earlier["forced"] is False  # replaced before any rating
    assert earlier["changed_at"] == changed["set_at"]
    cleared = set_study_rules(engine, SYSTEM, "s", {})
    assert cleared["rules"] == {}
    assert len(cleared["history"]) == 2


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"min_gold_accuracy": 1.5}, "min_gold_accuracy: input should be less than or equal to 1"),
        ({"max_gold_failures": -1}, "max_gold_failures: input should be greater than or equal"),
        ({"max_gold_failures": 1.5}, "max_gold_failures: input should be a valid integer"),
        ({"max_straightlining_share": "x"}, "max_straightlining_share: input should be a valid"),
        ({"min_speed": 3}, "min_speed: not a rule (the rules are min_gold_accuracy, "),
    ],
)
def test_impossible_rules_are_refused_with_the_field_and_what_it_expects(planned, rules, message):
    engine, _, _ = planned
    with pytest.raises(RulesError, match=message.replace("(", r"\(").replace(")", r"\)")):
        set_study_rules(engine, SYSTEM, "s", rules)
    assert study_rules(engine, SYSTEM, "s")["rules"] == {}
    assert audit(engine) == []


def test_an_annotator_cannot_set_rules(planned):
    engine, _, ids = planned
    with pytest.raises(PermissionDenied):
        set_study_rules(engine, ids[0], "s", {"max_gold_failures": 1})


def test_rules_changed_after_data_need_force_and_the_report_says_so(planned):
    engine, study_id, ids = planned
    set_study_rules(engine, SYSTEM, "s", {"max_gold_failures": 1})
    rate_all(engine, study_id, ids)
    with pytest.raises(RulesAfterData, match="pass the force flag"):
        set_study_rules(engine, SYSTEM, "s", {"max_gold_failures": 2})
    with pytest.raises(RulesAfterData):
        set_study_rules(engine, SYSTEM, "s", {})  # clearing them is a change too
    assert study_rules(engine, SYSTEM, "s")["rules"] == {"max_gold_failures": 1}
    assert len(audit(engine)) == 1
    before = study_report(study_ratings(engine, "s"))["exclusion_rules"]["record"]
    assert before["changed_after_data"] is False
    forced = set_study_rules(engine, SYSTEM, "s", {"max_gold_failures": 2}, force=True)
    assert forced["history"][0]["rules"] == {"max_gold_failures": 1}
    entry = audit(engine)[-1]
    assert entry.after["exclusion_rules"] == {"max_gold_failures": 2}
    assert entry.after["after_data"].startswith("ratings since ")
    record = study_report(study_ratings(engine, "s"))["exclusion_rules"]["record"]
    assert record["changed_after_data"] is True
    assert record["note"] == "rules set or changed after data arrived"


def test_the_facts_come_from_gold_pairs_and_the_report_applies_the_rules(planned, tmp_path):
    engine, study_id, ids = planned
    set_study_rules(engine, SYSTEM, "s", {"max_gold_failures": 1, "min_median_seconds": 3})
    rate_all(engine, study_id, ids)
    data = study_ratings(engine, "s")
    with read_session(engine) as session:
        alias = study_pseudonyms(session, study_id)  # reports name annotators by pseudonym
    named = {v: k for k, v in alias.items()}
    facts = {named[f["annotator"]]: f for f in data.snapshot.annotator_facts}
    # 12 pairs each (9 ordinary + 3 gold); a1 fails all 3 gold; a2 straight-lines 9 of 12
    assert facts["a0"] == {
        "annotator": alias["a0"],
        "pairs_rated": 12,
        "gold_answered": 3,
        "gold_failed": 0,
        "gold_accuracy": 1.0,
        "straightlining_share": 0.0,
        "median_seconds": 10.0,
    }
    assert (facts["a1"]["gold_failed"], facts["a1"]["gold_accuracy"]) == (3, 0.0)
    assert (facts["a2"]["straightlining_share"], facts["a2"]["median_seconds"]) == (0.75, 1.0)
    report = study_report(data)
    assert report["n_annotators"] == 1  # a1 (gold) and a2 (time) left out
    assert report["n_pair_ratings"] == 9  # gold pairs are not in the ratings
    found = report["exclusion_rules"]
    assert sorted(found["excluded"]) == sorted([alias["a1"], alias["a2"]])
    assert found["record"]["note"] == "rules set before data"
    rows = {r["variant"]: r for r in found["sensitivity"]}
    assert {v: (r["n_annotators"], r["n_pair_ratings"]) for v, r in rows.items()} == {
        "no rule": (3, 27),
        "max_gold_failures only": (2, 18),
        "min_median_seconds only": (2, 18),
        "all rules": (1, 9),
    }
    # mean rubric difference: a0 and a1 +2 on every ordinary pair, a2 0 -> (2 + 2 + 0) / 3
    assert rows["no rule"]["dimensions"]["rubric_alignment"]["mean_diff"] == pytest.approx(4 / 3)
    assert rows["all rules"]["dimensions"]["rubric_alignment"]["mean_diff"] == pytest.approx(2)
    # The export marks each row with why its annotator is excluded (from the same rules).
    exported = data_services.export_ratings(engine, SYSTEM, "s")
    marked = exported.groupby("annotator")["annotator_excluded"].unique()
    assert {named[a]: list(v) for a, v in marked.items()} == {
        "a0": [""],
        "a1": ["max_gold_failures: 3 failed > 1 failed"],
        "a2": ["min_median_seconds: 1 s < 3 s"],
    }
    assert list(exported.columns[-2:]) == ["exclusion_reason", "annotator_excluded"]
    card = tmp_path / "card"
    publish_study(engine, SYSTEM, "s", card)
    published = pd.read_parquet(card / "ratings.parquet")
    assert set(published.loc[published["annotator"] == alias["a2"], "annotator_excluded"]) == {
        "min_median_seconds: 1 s < 3 s"
    }
    text = (card / "README.md").read_text(encoding="utf-8")
    assert "Pre-registered exclusion rules (rules set before data): more gold pairs failed" in text
    assert f"| {alias['a1']} | max_gold_failures: 3 failed > 1 failed |" in text
    assert f"| {alias['a2']} | min_median_seconds: 1 s < 3 s |" in text
    # rules excluding everyone: the report is refused with a clear error
    set_study_rules(engine, SYSTEM, "s", {"min_median_seconds": 100}, force=True)
    with pytest.raises(ValueError, match="exclude every annotator"):
        study_report(study_ratings(engine, "s"))
