"""`prb-annotate studies rules`: pre-registered exclusion rules shown, set before the data,
refused after it without --force, and applied by `prb-annotate report`."""

from __future__ import annotations

import json
from pathlib import Path


def _ok(result) -> str:
    assert result.exit_code == 0, result.stdout + result.stderr
    return " ".join(result.stdout.split())


def _rated_study(cli, tmp_path: Path) -> None:
    _ok(cli("synth", "dataset", str(tmp_path / "d"), "--scale", "0.005", "--profile-size", "2"))
    _ok(cli("import", *map(str, sorted((tmp_path / "d").glob("*.jsonl"))), "--study", "s"))
    _ok(cli("synth", "ratings", "--study", "s", "--annotators", "3", "--count"))


def test_rules_are_shown_set_merged_and_cleared(cli) -> None:
    _ok(cli("studies", "create", "s"))
    shown = _ok(cli("studies", "rules", "--study", "s"))
    assert "exclusion rules none" in shown
    assert "rules set at never" in shown
    shown = _ok(cli("studies", "rules", "--study", "s", "--max-gold-failures", "1", "--yes"))
    assert "exclusion rules max_gold_failures=1" in shown
    assert "first rating at none yet" in shown
    shown = _ok(cli("studies", "rules", "--study", "s", "--min-median-seconds", "4.5", "--yes"))
    assert "max_gold_failures=1, min_median_seconds=4.5" in shown
    assert "earlier rules max_gold_failures=1 (set " in shown
    shown = _ok(cli("studies", "rules", "--study", "s", "--clear", "--yes"))
    assert "exclusion rules none" in shown
    audit = _ok(cli("audit", "--study", "s"))
    assert audit.count("study.rules") == 3


def test_a_bad_rule_is_refused_with_the_field(cli) -> None:
    _ok(cli("studies", "create", "s"))
    result = cli("studies", "rules", "--study", "s", "--min-gold-accuracy", "2")
    assert result.exit_code == 1
    assert "min_gold_accuracy: input should be less than or equal to 1" in " ".join(
        result.stderr.split()
    )
    result = cli("studies", "rules", "--study", "nope", "--max-gold-failures", "1")
    assert result.exit_code == 1
    assert "no study named 'nope'" in result.stderr


def test_after_the_data_rules_need_force_and_the_report_says_so(cli, tmp_path: Path) -> None:
    _ok(cli("studies", "create", "s"))
    _ok(cli("studies", "rules", "--study", "s", "--max-straightlining-share", "0.9", "--yes"))
    _rated_study(cli, tmp_path)
    report = json.loads(_ok(cli("report", "--study", "s", "--bootstrap", "0")))
    found = report["exclusion_rules"]
    assert found["record"]["changed_after_data"] is False
    assert [r["variant"] for r in found["sensitivity"]] == ["no rule", "all rules"]
    refused = cli("studies", "rules", "--study", "s", "--min-median-seconds", "1", "--yes")
    assert refused.exit_code == 1
    assert "pass the force flag" in " ".join(refused.stderr.split())
    shown = _ok(
        cli("studies", "rules", "--study", "s", "--min-median-seconds", "1", "--force", "--yes")
    )
    assert "set after the first rating: not pre-registered" in shown
    text = cli("report", "--study", "s", "--bootstrap", "0", "--format", "md").stdout
    assert "## Pre-registered exclusion rules" in text
    assert "Changed after data arrived" in text
