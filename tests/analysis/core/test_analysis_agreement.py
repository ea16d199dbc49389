"""Krippendorff's alpha against Krippendorff's own worked example, and annotator agreement."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest

from analysis.core import agreement
from analysis.core import alpha as alpha_core
from analysis.core.alpha import (
    alpha_from_long,
    bootstrap_alpha,
    codings,
    coincidence_alpha,
    reliability_matrix,
    unit_coincidences,
    value_counts,
)
from analysis.core.coded import encode_ratings
from analysis.core.ratings import validate_ratings
from analysis.report import build_report

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", reliability data with
# missing values: 4 observers (A-D) x 12 units, values 1-5. Published: nominal 0.743,
# ordinal 0.815, interval 0.849, ratio 0.797.
NAN = np.nan
K2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)
K2011_PUBLISHED = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}
OBSERVERS = ["A", "B", "C", "D"]


def k2011_long() -> pd.DataFrame:
    """The example as long data: one row per (observer, unit) value, missing cells absent."""
    coder, unit = np.nonzero(~np.isnan(K2011))
    return pd.DataFrame(
        {
            "coder": [OBSERVERS[c] for c in coder],
            "unit": unit + 1,
            "value": K2011[coder, unit].astype(int),
        }
    )


@pytest.mark.parametrize("level", list(K2011_PUBLISHED))
def test_krippendorff_2011_example_from_long_data(level):
    value = alpha_from_long(k2011_long(), ["unit"], "value", level, value_domain=[1, 2, 3, 4, 5])
    assert round(value, 3) == K2011_PUBLISHED[level]


def test_reliability_matrix_rebuilds_the_published_table():
    matrix, coders, units = reliability_matrix(
        k2011_long().sample(frac=1, random_state=1), ["unit"], "coder", "value"
    )
    assert coders == OBSERVERS
    assert [u[0] for u in units] == list(range(1, 13))
    np.testing.assert_array_equal(matrix, K2011)
    assert round(krippendorff.alpha(matrix, level_of_measurement="ordinal"), 3) == 0.815


def k2011_as_ratings() -> pd.DataFrame:
    """The example as a ratings export: observers are annotators, unit j is (pair j // 2,
    response chosen/rejected by j % 2), all on the factuality dimension."""
    long = k2011_long()
    unit = long["unit"].to_numpy() - 1
    response = np.where(unit % 2 == 0, "chosen", "rejected")
    return pd.DataFrame(
        {
            "study": "k2011",
            "pair_id": [f"pair{u // 2}" for u in unit],
            "domain": "d",
            "annotator": long["coder"],
            "response": response,
            "side": np.where(response == "chosen", "A", "B"),
            "dimension": "factuality",
            "score": long["value"],
            "seconds": 10.0,
            "created_at": "2026-01-01T00:00:00+00:00",
        }
    )


def test_krippendorff_2011_example_through_the_report():
    report = build_report(k2011_as_ratings(), n_boot=20)
    factuality = report["dimensions"]["factuality"]
    assert round(factuality["alpha_ordinal"], 3) == 0.815
    assert round(factuality["alpha_interval"], 3) == 0.849
    assert factuality["alpha_units"] == 11  # unit 12 has a single value
    assert report["dimensions"]["relevance"]["alpha_interval"] is None  # no scores at all


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_vectorised_bootstrap_alpha_matches_the_package(level):
    rng = np.random.default_rng(5)
    counts = value_counts(
        rng.integers(0, 40, 300), rng.integers(1, 6, 300), value_domain=[1, 2, 3, 4, 5]
    )
    per_unit = unit_coincidences(counts)
    kept = alpha_core.pairable(counts)
    for _ in range(5):
        pick = rng.integers(0, len(kept), len(kept))
        weights = np.bincount(pick, minlength=len(kept))
        o = (weights @ per_unit).reshape(1, 5, 5)
        ours = coincidence_alpha(o, [1, 2, 3, 4, 5], level)[0]
        reference = krippendorff.alpha(
            value_counts=kept[pick], value_domain=[1, 2, 3, 4, 5], level_of_measurement=level
        )
        assert ours == pytest.approx(reference, rel=1e-10, abs=1e-12)


def k2011_codings() -> alpha_core.Codings:
    long = k2011_long()
    units = long["unit"].to_numpy()
    return codings(units, long["coder"].to_numpy(), long["value"].to_numpy(), DOMAIN, units)


DOMAIN = [1, 2, 3, 4, 5]


@pytest.mark.parametrize("design", alpha_core.BOOT_DESIGNS)
def test_bootstrap_is_seeded_and_brackets_the_estimate(design):
    data = k2011_codings()
    first = bootstrap_alpha(data, DOMAIN, ["interval"], 300, np.random.default_rng(1), design)
    again = bootstrap_alpha(data, DOMAIN, ["interval"], 300, np.random.default_rng(1), design)
    assert first == again
    low, high = first["interval"]
    assert low < 0.849 < high
    assert bootstrap_alpha(data, DOMAIN, ["interval"], 0, np.random.default_rng(1)) == {
        "interval": None
    }


def test_weighted_coincidences_with_unit_weights_match_the_package():
    """Resampling whole units (weights = multiplicities, coders fixed) gives the package's
    alpha on the resampled reliability data."""
    data = k2011_codings()
    rng = np.random.default_rng(3)
    weights = alpha_core._multiplicities(rng, 4, data.n_units)
    o = alpha_core._weighted_coincidences(data, np.ones((4, len(data.unit))), weights, 5)
    for b in range(4):
        picks = np.repeat(np.arange(data.n_units), weights[b].astype(int))
        reference = krippendorff.alpha(
            reliability_data=K2011[:, picks], level_of_measurement="interval"
        )
        ours = coincidence_alpha(o[b : b + 1], DOMAIN, "interval")[0]
        assert ours == pytest.approx(reference, rel=1e-10)


def test_coder_copies_do_not_agree_with_themselves():
    """A coder drawn twice counts twice against the others, never against their own copy:
    doubling every coder leaves alpha unchanged up to the (n - 1) normalisation."""
    data = k2011_codings()
    twice = alpha_core._weighted_coincidences(
        data, np.full((1, len(data.unit)), 2.0), np.ones((1, data.n_units)), 5
    )
    once = alpha_core._weighted_coincidences(
        data, np.ones((1, len(data.unit))), np.ones((1, data.n_units)), 5
    )
    # o(2m) = (4 N N' - 4 diag N) / (2n - 1) = 4 (n - 1) / (2n - 1) o(m) per unit: no
    # self-agreement is added, so alpha stays below the perfect 1 and near the original
    a_twice = coincidence_alpha(twice, DOMAIN, "interval")[0]
    a_once = coincidence_alpha(once, DOMAIN, "interval")[0]
    assert a_once == pytest.approx(0.849, abs=5e-4)
    assert abs(a_twice - a_once) < 0.02


def test_alpha_interval_covers_in_a_small_seeded_simulation():
    """30 simulated studies (fresh pairs and annotator biases each): the report's 95% interval
    (combined design) covers the population alpha of rubric alignment in at least 26. The
    benchmark benchmarks/bench_alpha_coverage.py runs 200 replicates."""
    from analysis.simulate import simulate_ratings

    big = [
        encode_ratings(
            simulate_ratings(4000, 3, {"rubric_alignment": 1.0}, seed=900 + s, n_annotators=400)
        )
        for s in range(2)
    ]
    truth = np.mean([_rubric_alpha(c) for c in big])
    covered = 0
    widths: list[float] = []
    pigeonhole: list[float] = []
    for r in range(30):
        coded = encode_ratings(
            simulate_ratings(80, 3, {"rubric_alignment": 1.0}, seed=r, n_annotators=8)
        )
        rows = coded.dimension == 3
        data = codings(
            coded.pair[rows] * 2 + coded.response[rows],
            coded.annotator[rows],
            coded.score[rows],
            DOMAIN,
            coded.pair[rows],
        )
        low, high = bootstrap_alpha(data, DOMAIN, ["interval"], 200, np.random.default_rng(r))[
            "interval"
        ]
        covered += low <= truth <= high
        widths.append(high - low)
        wide = bootstrap_alpha(
            data, DOMAIN, ["interval"], 200, np.random.default_rng(r), "pairs+coders"
        )["interval"]
        pigeonhole.append(wide[1] - wide[0])
    assert covered >= 26
    # and not by being needlessly wide: the pigeonhole design covers everything (1.00 in the
    # benchmark) at about 1.7 times the width
    assert np.mean(widths) < 0.75 * np.mean(pigeonhole)


def _rubric_alpha(coded) -> float:
    rows = coded.dimension == 3
    counts = value_counts(coded.pair[rows] * 2 + coded.response[rows], coded.score[rows], DOMAIN)
    return alpha_core.alpha(counts, DOMAIN, "interval")


def test_report_bootstrap_ci_none_without_bootstrap(validating_study):
    report = build_report(validating_study, n_boot=0)
    dim = report["dimensions"]["rubric_alignment"]
    assert dim["alpha_ordinal_ci95"] is None
    assert dim["alpha_interval_ci95"] is None
    assert report["agreement"]["preference"]["ci95"] is None
    with_boot = build_report(validating_study, n_boot=40, seed=2)
    low, high = with_boot["dimensions"]["rubric_alignment"]["alpha_interval_ci95"]
    assert low <= dim["alpha_interval"] <= high


def _ratings(rows: list[tuple[str, str, str, str, int]]) -> pd.DataFrame:
    """rows: (annotator, pair, response, dimension, score); chosen on side A."""
    return pd.DataFrame(
        [
            {
                "study": "s",
                "pair_id": p,
                "domain": "d",
                "annotator": a,
                "response": r,
                "side": "A" if r == "chosen" else "B",
                "dimension": dim,
                "score": s,
                "seconds": 1.0,
                "created_at": "",
            }
            for a, p, r, dim, s in rows
        ]
    )


def test_rubric_preference_alpha_matches_package_on_hand_built_matrix():
    # preferences (chosen=0, equal=1, rejected=2) by annotator x pair
    prefs = {"x": [0, 0, 1, 0], "y": [0, 2, 1, 0], "z": [0, 0, NAN, 2]}
    rows = []
    for annotator, values in prefs.items():
        for pair, pref in enumerate(values):
            if np.isnan(pref):
                continue
            chosen, rejected = {0: (4, 2), 1: (3, 3), 2: (2, 5)}[int(pref)]
            rows += [
                (annotator, f"p{pair}", "chosen", "rubric_alignment", chosen),
                (annotator, f"p{pair}", "rejected", "rubric_alignment", rejected),
            ]
    coded = encode_ratings(validate_ratings(_ratings(rows)))
    result = agreement.preference_agreement(coded, n_boot=0, seed=0)
    matrix = np.array([prefs[a] for a in ["x", "y", "z"]], dtype=float)
    expected = krippendorff.alpha(matrix, level_of_measurement="nominal", value_domain=[0, 1, 2])
    assert result["alpha_nominal"] == pytest.approx(expected)
    assert result["n_judgements"] == 11
    assert result["shares"]["chosen"] == pytest.approx(7 / 11)


def test_pairwise_agreement_hand_example():
    # unit u1: a=3, b=3, c=5; unit u2: a=2, b=3; unit u3: a=1, c=1
    rows = [
        ("a", "p1", "chosen", "factuality", 3),
        ("b", "p1", "chosen", "factuality", 3),
        ("c", "p1", "chosen", "factuality", 5),
        ("a", "p1", "rejected", "factuality", 2),
        ("b", "p1", "rejected", "factuality", 3),
        ("a", "p2", "chosen", "relevance", 1),
        ("c", "p2", "chosen", "relevance", 1),
    ]
    coded = encode_ratings(validate_ratings(_ratings(rows)))
    pairwise, per_annotator = agreement.annotator_agreement(coded, 1, 5)
    table = {
        (coded.annotators[r.annotator_a], coded.annotators[r.annotator_b]): r
        for r in pairwise.itertuples()
    }
    ab, ac, bc = table[("a", "b")], table[("a", "c")], table[("b", "c")]
    assert (ab.n_shared, ab.exact, ab.within_one) == (2, 0.5, 1.0)
    assert (ac.n_shared, ac.exact, ac.within_one) == (2, 0.5, 0.5)
    assert (bc.n_shared, bc.exact, bc.within_one) == (1, 0.0, 0.0)
    a = per_annotator.loc[0]  # annotator "a" (codes sorted by name)
    assert a["n_comparisons"] == 4
    assert a["exact"] == 0.5
    assert a["within_one"] == 0.75
    # a's deviations: |3 - 4| (u1, others 3 and 5), |2 - 3| (u2), |1 - 1| (u3) -> mean 2/3
    assert a["mean_abs_diff_from_others"] == pytest.approx(2 / 3)


def test_sparse_and_dense_pairwise_paths_agree(validating_study, monkeypatch):
    coded = encode_ratings(validate_ratings(validating_study))
    dense = agreement.annotator_agreement(coded, 1, 5)
    monkeypatch.setattr(agreement, "DENSE_CELLS", 0)
    sparse_ = agreement.annotator_agreement(coded, 1, 5)
    pd.testing.assert_frame_equal(dense[0], sparse_[0])
    pd.testing.assert_frame_equal(dense[1], sparse_[1])
