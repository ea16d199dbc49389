"""What the platform sync plans for each submission (issue 34.3), and what a participant
costs (issue 34.4): plain data, no database."""

from __future__ import annotations

import pytest

from annotate.db.tables import Study
from annotate.domain.crowd.payment_rules import (
    COMPLETED,
    PARTIAL,
    PaymentRules,
    major_units,
    minor_units,
    participant_cost,
    pay_words,
    payment_rules,
    rule_bonus,
)
from annotate.domain.platforms import Submission
from annotate.domain.platforms.plan import (
    APPROVE,
    NONE,
    REJECT,
    REJECTION_MESSAGE,
    Standing,
    bonus_action,
    read_bonus_csv,
    rule_bonus_action,
    rule_bonused,
    submission_actions,
    with_ledger,
)

STATUSES = (
    COMPLETED,
    PARTIAL,
    "screened out",
    "failed checks",
    "withdrawn",
    "returned",
    "timed out",
    "in progress",
    "not started",
)
RULES = PaymentRules(
    reward=150, currency="GBP", fee_percent=33.33, bonus_per_extra_pair=20, required_pairs=3
)


def _world(statuses=STATUSES):
    subs = [Submission(f"s{i}", f"p{i}", "AWAITING REVIEW") for i in range(len(statuses))]
    people = {f"p{i}": Standing(i, f"p{i}", status, 5) for i, status in enumerate(statuses)}
    return subs, people


def test_only_a_participant_who_failed_the_checks_is_rejected():
    subs, people = _world()
    kinds = {a.participant_id: a.kind for a in submission_actions(subs, people, "SCRN")}
    rejected = [people[p].status for p, kind in kinds.items() if kind == REJECT]
    assert rejected == ["failed checks"]
    approved = sorted(people[p].status for p, kind in kinds.items() if kind == APPROVE)
    assert approved == sorted([COMPLETED, PARTIAL])
    left = sorted(people[p].status for p, kind in kinds.items() if kind == NONE)
    assert left == ["in progress", "not started", "returned", "timed out"]
    assert len(REJECTION_MESSAGE) >= 100


def test_returned_and_timed_out_submissions_release_and_nothing_else():
    subs = [Submission("s1", "p1", "RETURNED"), Submission("s2", "p2", "TIMED-OUT"),
            Submission("s3", "p3", "RETURNED"), Submission("s4", "p4", "ACTIVE")]  # fmt: skip
    people = {p: Standing(i, p, "in progress", 1) for i, p in enumerate(("p1", "p2", "p4"))}
    actions = submission_actions(subs, people, None)
    assert [(a.kind, a.participant_id, a.why) for a in actions] == [
        ("release", "p1", "returned on the platform"),
        ("release", "p2", "timed out on the platform"),
    ]  # p3 has no account here, p4 is still working


def test_the_rule_bonus_pays_pairs_beyond_the_minimum_once():
    subs, people = _world((COMPLETED, "failed checks", PARTIAL))
    action = rule_bonus_action(subs, people, RULES, already=set())
    assert action is not None
    assert action.amount == 2 * (5 - 3) * 20
    action.state = "sent"
    assert rule_bonused([action]) == {"p0", "p2"}
    assert rule_bonus_action(subs, people, RULES, already={"p0", "p2"}) is None


def test_a_recorded_decision_stands_and_a_sent_one_is_left_out():
    subs, people = _world((COMPLETED, COMPLETED))
    planned = submission_actions(subs, people, None)
    recorded = submission_actions(
        subs, {**people, "p0": Standing(0, "p0", "failed checks", 1)}, None
    )
    recorded[0].state = "failed"
    kept = with_ledger(planned, {recorded[0].key: recorded[0]}, sent={planned[1].key})
    assert [(a.kind, a.state) for a in kept] == [(REJECT, "failed")]


def test_a_bonus_file_is_read_all_or_nothing():
    entries = read_bonus_csv("participant_id,amount\np1,1.50\np2, 0.05\n", ["p1", "p2"])
    assert [(e.participant_id, e.amount) for e in entries] == [("p1", 150), ("p2", 5)]
    for text, problem in (
        ("p1,1.505\n", "two decimals"),
        ("p1,-1\n", "above 0"),
        ("p9,1\n", "not a participant"),
        ("p1,1\np1,2\n", "has a line already"),
        ("p1\n", "participant_id,amount"),
    ):
        with pytest.raises(ValueError, match=problem):
            read_bonus_csv(text, ["p1"])
    one = bonus_action("csv", entries, "file")
    assert one is not None
    assert one.key == bonus_action("csv", entries[::-1], "file").key


def test_what_a_participant_costs_with_the_fee():
    assert participant_cost(RULES, COMPLETED, 1.0, 0) == 200  # 150 + 49.995 -> 50
    assert participant_cost(RULES, COMPLETED, 1.0, 40) == 253  # 190 + 63.327 -> 63
    assert participant_cost(RULES, PARTIAL, 0.5, 0) == 100  # 75 + 24.9975 -> 25
    assert participant_cost(RULES, "failed checks", 1.0, 0) == 0
    assert rule_bonus(RULES, COMPLETED, 5) == 40
    assert rule_bonus(RULES, "withdrawn", 9) == 0
    assert major_units(5) == "0.05"
    assert minor_units("12") == 1200


def test_a_study_s_rules_come_from_its_settings():
    study = Study(name="s", seed=1, reward=120, currency="USD", platform_fee_percent=42.8,
                  bonus_rule="per_extra_pair:15", pool_quota=10, finish_minimum=None)  # fmt: skip
    assert payment_rules(study) == PaymentRules(120, "USD", 42.8, 15, 10)
    assert payment_rules(Study(name="t", seed=1)).bonus_per_extra_pair == 0


def test_the_card_says_the_pay_in_words():
    study = Study(name="s", seed=1, reward=150, bonus_rule="per_extra_pair:20", finish_minimum=3)
    assert pay_words(payment_rules(study), "prolific") == (
        "1.50 GBP per completed participant (recruited on prolific), and a bonus of 0.20 GBP "
        "per pair rated beyond the 3 asked"
    )
    assert pay_words(payment_rules(Study(name="t", seed=1)), None) == ""
