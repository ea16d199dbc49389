"""The full report on simulated studies, exclusions, breakdowns and JSON safety."""

from __future__ import annotations

import copy
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.inference.crossed import (
    crossed_mean,
)
from analysis.inference.paired import compare_dimension
from analysis.report import build_report
from analysis.simulate import simulate_ratings
from annotate.vocabulary import DIMENSIONS, GENERAL_DIMENSIONS


@pytest.fixture(scope="module")
def _validating_report(validating_study: pd.DataFrame) -> dict:
    """The default report of the validating study, built once for the module (~2 CPU s)."""
    return build_report(validating_study, n_boot=0)


@pytest.fixture
def validating_report(_validating_report: dict) -> dict:
    """`build_report(validating_study, n_boot=0)`: a copy per test, safe to change."""
    return copy.deepcopy(_validating_report)


def _verdicts(report: dict) -> dict[str, str]:
    return {d: report["dimensions"][d]["verdict"] for d in DIMENSIONS}


def _checks(report: dict) -> dict[str, bool]:
    keys = ("general_quality_tie", "rubric_alignment_diverges", "validated")
    return {k: report["checks"][k] for k in keys}


def test_study_built_to_validate_is_validated(validating_report):
    report = validating_report
    assert _verdicts(report) == {
        "factuality": "tie",
        "relevance": "tie",
        "helpfulness": "tie",
        "rubric_alignment": "diverges",
    }
    assert _checks(report) == {
        "general_quality_tie": True,
        "rubric_alignment_diverges": True,
        "validated": True,
    }
    assert report["checks"]["insufficient_data"] == []
    assert (report["n_pairs"], report["n_scores"]) == (150, 150 * 3 * 8)
    assert report["n_annotators"] == 8


@pytest.mark.parametrize("general", GENERAL_DIMENSIONS)
def test_general_dimension_with_effect_breaks_validation(general):
    df = simulate_ratings(150, 3, {"rubric_alignment": 1.5, general: 1.0}, seed=21, n_annotators=8)
    report = build_report(df, n_boot=0)
    verdicts = _verdicts(report)
    assert verdicts[general] == "diverges"
    assert all(verdicts[d] == "tie" for d in GENERAL_DIMENSIONS if d != general)
    assert verdicts["rubric_alignment"] == "diverges"
    assert _checks(report) == {
        "general_quality_tie": False,
        "rubric_alignment_diverges": True,
        "validated": False,
    }


def test_no_rubric_effect_breaks_validation():
    df = simulate_ratings(150, 3, {}, seed=22, n_annotators=8)
    report = build_report(df, n_boot=0)
    assert _verdicts(report) == dict.fromkeys(DIMENSIONS, "tie")
    assert _checks(report) == {
        "general_quality_tie": True,
        "rubric_alignment_diverges": False,
        "validated": False,
    }


def test_small_rubric_effect_with_few_pairs_is_inconclusive():
    df = simulate_ratings(20, 2, {"rubric_alignment": 0.3}, seed=2)
    assert build_report(df, n_boot=0)["dimensions"]["rubric_alignment"]["verdict"] == "inconclusive"


def test_five_pairs_read_insufficient_data():
    """Done when: a study of 5 pairs reads "insufficient data", never "tie"."""
    df = simulate_ratings(5, 3, {}, seed=5)
    report = build_report(df, n_boot=0)
    assert _verdicts(report) == dict.fromkeys(DIMENSIONS, "insufficient_data")
    assert report["checks"]["insufficient_data"] == list(DIMENSIONS)
    assert report["checks"]["validated"] is False


def test_a_rubric_effect_below_the_smallest_effect_of_interest_does_not_diverge():
    """Issue 23.2: a real rubric effect of 0.3 on 2,830 pairs diverges only when the smallest
    effect of interest (SESOI) is below it. At the default SESOI (= the margin, 0.5) it reads
    "tie" (its TOST at 0.5 holds) and the study is not validated; at a SESOI of 0.1 it diverges.
    The per-pair-mean t-test (sensitivity; superiority against 0 as in schema version 2) still
    finds the effect."""
    df = simulate_ratings(2830, 3, {"rubric_alignment": 0.3}, seed=12, n_annotators=40)
    report = build_report(df, n_boot=0, holm=False)
    rubric = report["dimensions"]["rubric_alignment"]
    assert rubric["sesoi"] == 0.5
    assert rubric["tost_p"] < 0.05
    assert rubric["superiority_p"] > 0.5
    assert rubric["verdict"] == "tie"
    assert rubric["differs"] == "higher"
    assert any("significantly higher" in note for note in rubric["notes"])
    assert report["checks"]["validated"] is False
    assert rubric["sensitivity"]["superiority_p"] < 1e-6
    assert rubric["sensitivity"]["verdict"] == "diverges"
    lower = build_report(df, n_boot=0, holm=False, mixed=False, smallest_effect=0.1)
    assert lower["dimensions"]["rubric_alignment"]["superiority_p"] < 1e-6
    assert lower["dimensions"]["rubric_alignment"]["verdict"] == "diverges"
    assert lower["checks"]["validated"] is True


def test_per_dimension_figures_match_an_independent_pandas_computation(
    validating_study, validating_report
):
    report = validating_report
    means = validating_study.groupby(["dimension", "pair_id", "response"])["score"].mean().unstack()
    for dim in DIMENSIONS:
        wide = means.loc[dim]
        expected = compare_dimension(wide["chosen"].to_numpy(), wide["rejected"].to_numpy())
        got = report["dimensions"][dim]
        for key in ("mean_chosen", "mean_rejected", "wilcoxon_p", "d_z"):
            assert got[key] == pytest.approx(expected[key], rel=1e-9), (dim, key)
        # the per-pair-mean t-test (schema version 2's primary) is now the sensitivity analysis
        for key in ("mean_diff", "tost_p", "superiority_p"):
            assert got["sensitivity"][key] == pytest.approx(expected[key], rel=1e-9), (dim, key)
        assert got["sensitivity"]["ci95"] == pytest.approx(expected["ci95"])
        # the primary: each annotator's own difference, pairs and annotators random
        rows = validating_study[validating_study["dimension"] == dim]
        own = rows.pivot_table(
            index=["pair_id", "annotator"], columns="response", values="score"
        ).reset_index()
        fit = crossed_mean(
            (own["chosen"] - own["rejected"]).to_numpy(), own["pair_id"], own["annotator"]
        )
        assert got["mean_diff"] == pytest.approx(fit.estimate, rel=1e-9)
        assert got["ci95"] == pytest.approx(fit.ci, abs=1e-5)  # optimizer tolerance
        assert got["primary"]["method"] == "crossed"
        assert sum(got["diff_histogram"]["counts"]) == got["n_pairs"] == 150


def test_exclusions_are_counted_and_listed(small_study):
    df = small_study
    only_chosen = df["pair_id"].iloc[0]
    no_rejected_rubric = df["pair_id"].unique()[1]
    drop = (df["pair_id"] == only_chosen) & (df["response"] == "rejected")
    drop |= (
        (df["pair_id"] == no_rejected_rubric)
        & (df["response"] == "rejected")
        & (df["dimension"] == "rubric_alignment")
    )
    report = build_report(df[~drop], n_boot=0)
    ex = report["exclusions"]
    assert ex["dimensions"]["factuality"]["n_excluded"] == 1
    assert ex["dimensions"]["factuality"]["pairs"] == [only_chosen]
    rubric = ex["dimensions"]["rubric_alignment"]
    assert rubric["n_excluded"] == 2
    assert rubric["no_rejected_scores"] == 2
    assert sorted(rubric["pairs"]) == sorted([only_chosen, no_rejected_rubric])
    assert ex["n_excluded_total"] == 5
    assert ex["incomplete_pair_ratings"] > 0
    assert report["dimensions"]["factuality"]["n_pairs"] == 11
    assert report["dimensions"]["rubric_alignment"]["n_pairs"] == 10
    assert report["human_accuracy"]["n_pairs"] == 10


def test_by_domain(validating_study, validating_report):
    report = validating_report
    domains = report["by_domain"]
    assert sorted(domains) == sorted(validating_study["domain"].unique())
    assert sum(d["n_pairs"] for d in domains.values()) == report["n_pairs"]
    for name, d in domains.items():
        sub = validating_study[validating_study["domain"] == name]
        own = sub[sub["dimension"] == "rubric_alignment"].pivot_table(
            index=["pair_id", "annotator"], columns="response", values="score"
        )
        wins = (own["chosen"] > own["rejected"]).sum()  # single annotators' judgements
        assert d["human_accuracy"]["n_chosen_higher"] == wins
        assert d["human_accuracy"]["n_ratings"] == len(own)
        assert set(d["dimensions"]) == set(DIMENSIONS)
        assert "checks" in d


def test_position_bias_detected_when_side_a_is_favoured(validating_study, validating_report):
    df = validating_study.copy()
    on_a = df["side"] == "A"
    df.loc[on_a, "score"] = (df.loc[on_a, "score"] + 1).clip(upper=5)
    report = build_report(df, n_boot=0)
    for dim in DIMENSIONS:
        bias = report["position_bias"][dim]
        assert bias["biased"]
        assert bias["mean_diff"] > 0.3
        assert bias["n_ratings"] == 150 * 3
    unbiased = validating_report["position_bias"]
    assert sum(unbiased[d]["biased"] for d in DIMENSIONS) <= 1


def test_annotator_figures(validating_study):
    df = validating_study.copy()
    lazy = df["annotator"] == "annotator_0002"
    df.loc[lazy, "score"] = 3
    report = build_report(df, n_boot=0)
    rows = {a["annotator"]: a for a in report["annotators"]}
    assert rows["annotator_0002"]["straight_lining"] == 1.0
    assert rows["annotator_0002"]["modal_share"] == 1.0
    assert rows["annotator_0002"]["modal_value"] == 3
    assert rows["annotator_0001"]["straight_lining"] < 0.2
    first = df.drop_duplicates(["annotator", "pair_id"])
    assert rows["annotator_0001"]["n_pairs"] == (first["annotator"] == "annotator_0001").sum()
    expected = first[first["annotator"] == "annotator_0001"]["seconds"].median()
    assert rows["annotator_0001"]["median_seconds"] == pytest.approx(expected)
    pairwise = report["agreement"]["pairwise"]
    assert all(0 <= p["exact"] <= p["within_one"] <= 1 for p in pairwise)


def test_holm_adjusts_only_the_by_domain_family(validating_study, validating_report):
    report = validating_report  # Holm's adjustment is the default
    assert report["settings"]["holm"] is True
    for dim in DIMENSIONS:  # the study verdict is an intersection-union test: no correction
        assert report["dimensions"][dim]["tost_p_adjusted"] is None
    raw, adjusted = [], []
    for domain in report["by_domain"].values():
        for dim in DIMENSIONS:
            r = domain["dimensions"][dim]
            raw += [r["tost_p"], r["superiority_p"]]
            adjusted += [r["tost_p_adjusted"], r["superiority_p_adjusted"]]
            assert r["wilcoxon_p_adjusted"] >= r["wilcoxon_p"]
    assert all(a >= p for a, p in zip(adjusted, raw, strict=True))
    assert min(a / p for a, p in zip(adjusted, raw, strict=True) if p > 0) <= len(raw)
    plain = build_report(validating_study, n_boot=0, holm=False)
    domain = next(iter(plain["by_domain"].values()))
    assert domain["dimensions"]["factuality"]["tost_p_adjusted"] is None


def test_settings_recorded_and_checked(validating_study):
    report = build_report(validating_study, margin=0.3, alpha=0.01, n_boot=10, seed=4)
    assert report["settings"] | {} == report["settings"]
    assert {k: report["settings"][k] for k in ("margin", "alpha", "holm", "n_boot", "seed")} == {
        "margin": 0.3,
        "alpha": 0.01,
        "holm": True,
        "n_boot": 10,
        "seed": 4,
    }
    with pytest.raises(ValueError, match="margin"):
        build_report(validating_study, margin=0)
    with pytest.raises(ValueError, match="alpha"):
        build_report(validating_study, alpha=1.5)


def test_json_has_no_nan_on_degenerate_data():
    df = simulate_ratings(3, 1, seed=0)  # one annotator: no agreement possible
    df = df[~((df["pair_id"] == "p000000") & (df["response"] == "rejected"))]
    report = build_report(df, n_boot=5)
    text = json.dumps(report, allow_nan=False)
    assert report["dimensions"]["factuality"]["alpha_interval"] is None
    assert json.loads(text) == report


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n_pairs=st.integers(1, 12),
    per_pair=st.integers(1, 3),
    effect=st.floats(-2, 2),
    seed=st.integers(0, 10_000),
    drop=st.floats(0, 0.5),
)
def test_any_study_gives_strict_json(n_pairs, per_pair, effect, seed, drop):
    df = simulate_ratings(
        n_pairs, per_pair, {"rubric_alignment": effect}, seed=seed, n_annotators=4
    )
    keep = np.random.default_rng(seed).random(len(df)) >= drop
    if not keep.any():
        keep[0] = True
    report = build_report(df[keep], n_boot=3, seed=seed)
    json.dumps(report, allow_nan=False)
    for dim in DIMENSIONS:
        assert report["dimensions"][dim]["verdict"] in {
            "tie",
            "diverges",
            "inconclusive",
            "insufficient_data",
        }


def test_accepts_a_file_path(validating_study, validating_report, tmp_path):
    path = tmp_path / "r.parquet"
    validating_study.to_parquet(path)
    from_file = build_report(path, n_boot=0)
    assert from_file == validating_report


def test_multiple_studies_keep_pairs_apart(small_study):
    other = small_study.copy()
    other["study"] = "second"
    report = build_report(pd.concat([small_study, other], ignore_index=True), n_boot=0)
    assert report["n_pairs"] == 2 * small_study["pair_id"].nunique()
    assert report["studies"] == sorted(["second", "simulated"])


def test_pairwise_table_is_capped_by_shared_units(validating_study, validating_report, monkeypatch):
    from analysis import report_sections as report_module

    full = validating_report["agreement"]
    monkeypatch.setattr(report_module, "MAX_PAIRWISE_ROWS", 3)
    capped = build_report(validating_study, n_boot=0)["agreement"]
    assert capped["pairwise_truncated"]
    assert not full["pairwise_truncated"]
    assert capped["pairwise_total"] == full["pairwise_total"] == len(full["pairwise"])
    top = sorted((p["n_shared"] for p in full["pairwise"]), reverse=True)[:3]
    assert [p["n_shared"] for p in capped["pairwise"]] == top
