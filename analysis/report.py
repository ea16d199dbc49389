"""The validation report: every figure of the study in one JSON-serialisable typed dict, assembled
from its sections (:mod:`analysis.report_sections`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import pandas as pd

from analysis.core.choices import choice_counts
from analysis.core.coded import (
    encode_ratings,
    pair_means,
)
from analysis.core.human_verdicts import annotator_votes, human_verdicts, label_audit
from analysis.core.position import position_bias
from analysis.core.ratings import assignment_slots, load_ratings, read_raw, validate_ratings
from analysis.inference.accuracy import human_accuracy
from analysis.inference.crossed import (
    DF_METHOD,
)
from analysis.inference.margins import (
    MarginUnit,
    check_unit,
    margin_points,
    margin_record,
    margin_sensitivity,
    unit_sd,
)
from analysis.inference.missing import missing_data
from analysis.inference.mixed import mixed_model
from analysis.inference.paired import MIN_PAIRS
from analysis.inference.plan import analysis_plan, internal_pilot_of
from analysis.inference.power import make_plan, plan_power
from analysis.inference.primary import RatingDiffs, compare_dimensions
from analysis.methods import methods
from analysis.report_sections import (
    agreement_section,
    by_domain,
    checks_section,
    dimension_results,
    exclusions,
)
from analysis.schema.jsonable import to_jsonable
from analysis.schema.model_types import AuditRow
from analysis.schema.questions import as_reported
from analysis.schema.report_types import (
    ExcludedPair,
    PairedTest,
    PowerResult,
    Report,
)
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire
from annotate.vocabulary import (
    DEFAULT_EQUIVALENCE_MARGIN,
    DEFAULT_HOLM,
    DEFAULT_N_BOOT,
    SCALE_MAX,
    SCALE_MIN,
)

SCHEMA_VERSION = 3


def build_report(
    data: pd.DataFrame | str | Path,
    margin: float = DEFAULT_EQUIVALENCE_MARGIN,
    alpha: float = 0.05,
    n_boot: int = DEFAULT_N_BOOT,
    holm: bool = DEFAULT_HOLM,
    seed: int = 0,
    scale_min: int = SCALE_MIN,
    scale_max: int = SCALE_MAX,
    *,
    margin_unit: str = "points",
    margin_history: Mapping[str, object] | None = None,
    planned: Mapping[str, float] | None = None,
    excluded_pairs: Sequence[ExcludedPair] = (),
    mixed: bool = True,
    domains: bool = True,
    smallest_effect: float | None = None,
    plan: Mapping[str, Any] | None = None,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> Report:
    """Validate ratings (a DataFrame in the export format, or a file path) and compute every
    figure of the validation report. The result is JSON-serialisable with no NaN (None).

    ``margin`` is in ``margin_unit`` ("points" or "sd"); ``holm`` Holm-adjusts the exploratory
    by-domain family (the study verdict needs no correction); ``margin_history`` is the study's
    margin record (see :func:`analysis.inference.margins.margin_record`); ``planned`` the planned
    values of a power analysis (``n_pairs``, ``annotators_per_pair``, optional ``general_diff``,
    ``rubric_diff``, ``target``), whose SDs are estimated from these ratings as a pilot;
    ``excluded_pairs`` (by pair id) are left out of every figure and listed under exclusions;
    ``mixed`` False skips fitting the mixed model (a variant built for its headline figures);
    ``domains`` False leaves ``by_domain`` empty (three quarters of a small study's time: a
    crossed model per domain, dimension and accuracy; the results page builds it when a
    by-domain chart is opened);
    ``smallest_effect`` is the smallest effect of interest (SESOI, in ``margin_unit``; None:
    the margin): chosen "diverges" only when it exceeds rejected by more than it; ``plan`` the
    study's pre-registered analysis plan (a ``plan.json`` document, :mod:`analysis.inference.plan`):
    the report then says what changed in it, where its own options differ from it, and whether
    the verdict is interim; ``questionnaire`` the study's questions (each rating's ``dimension``
    is a question's key): the verdict is the intersection of their roles, human accuracy and
    the reliability caveat read its target (the first ``diverge`` question), and a choice
    question is counted by response (``choices``) instead of averaged; one asking the
    benchmark's questions is reported as the default is (:func:`as_reported`).

    The primary figures of each dimension (``ci95``, TOST, superiority, verdict) treat pairs
    and annotators as random (:mod:`analysis.inference.primary`); the per-pair-mean t-test is
    under ``sensitivity``. The report's keys are documented in
    :mod:`analysis.schema.report_types` (schema version 3)."""
    unit = check_unit(margin_unit)
    questionnaire = as_reported(questionnaire)
    _check_settings(margin, alpha, n_boot)
    if smallest_effect is not None and not smallest_effect >= 0:
        raise ValueError(f"smallest_effect must be 0 or more, got {smallest_effect}")
    scale = (scale_min, scale_max)
    if isinstance(data, pd.DataFrame):
        df, raw = validate_ratings(data, *scale, questionnaire=questionnaire), data
    else:
        df = load_ratings(data, *scale, questionnaire=questionnaire)
        raw = read_raw(Path(data))[0]
    collected = collected_counts(df)
    slots = assignment_slots(raw)
    if excluded_pairs:
        left_out = {e["pair_id"] for e in excluded_pairs}
        df = df[~df["pair_id"].astype(str).isin(left_out)].reset_index(drop=True)
        slots = slots[~slots["pair_id"].isin(left_out)].reset_index(drop=True)
    coded = encode_ratings(df, questionnaire)
    target = coded.target_index()
    means = pair_means(coded)
    diffs = RatingDiffs(coded)
    unit_sds = dimension_unit_sds(diffs) if unit == "sd" else None
    margins = dimension_margins(unit_sds, margin, unit, coded.keys)
    sesoi = (
        margins
        if smallest_effect is None
        else dimension_margins(unit_sds, smallest_effect, unit, coded.keys)
    )
    tie_alpha = _tie_alpha(plan, alpha)
    paired = compare_dimensions(diffs, means, margins, alpha, sesoi, tie_alpha=tie_alpha)
    dimensions = dimension_results(paired, coded, means, n_boot, seed, scale_min, scale_max)
    agreement, annotators = agreement_section(coded, n_boot, seed, scale_min, scale_max)
    report: Report = {
        "schema_version": SCHEMA_VERSION,
        "n_pairs": coded.n_pairs,
        "n_annotators": coded.n_annotators,
        "n_scores": coded.n_scores,
        "n_pair_ratings": coded.n_ratings,
        "studies": sorted(coded.pairs["study"].unique().tolist()),
        "domains": sorted(coded.pairs["domain"].unique().tolist()),
        "dimensions": dimensions,
        "checks": checks_section(paired, dimensions, diffs, agreement),
        "human_accuracy": human_accuracy(*diffs.of(target, None)),
        "agreement": agreement,
        "by_domain": (
            by_domain(coded, diffs, means, margins, sesoi, alpha, holm, tie_alpha)
            if domains
            else {}
        ),
        "margin_sensitivity": margin_sensitivity(
            paired, unit, unit_sds=unit_sds, questionnaire=questionnaire
        ),
        "margin_record": margin_record(margin_history, df["created_at"]),
        "power": None
        if planned is None
        else _planned_power(planned, df, margins, alpha, seed, questionnaire),
        "mixed_model": mixed_model(coded, paired, alpha, fit=mixed, tie_alpha=tie_alpha),
        "position_bias": position_bias(coded, alpha),
        "exclusions": exclusions(coded, means, excluded_pairs),
        "settings": {
            "margin": margin,
            "margin_unit": unit,
            "margins_points": margins,
            "unit_sds": unit_sds,
            "min_pairs": MIN_PAIRS,
            "alpha": alpha,
            "holm": holm,
            "n_boot": n_boot,
            "seed": seed,
            "scale_min": scale_min,
            "scale_max": scale_max,
            "ci_level": 0.95,
            "smallest_effect": margin if smallest_effect is None else smallest_effect,
            "df_method": DF_METHOD,
        },
        "methods": {},
        "annotators": annotators,
    }
    if tie_alpha is not None:  # only with an internal pilot: a study without one reads as before
        report["settings"]["tie_alpha"] = tie_alpha
    report["label_audit"] = export_label_audit(df, questionnaire)
    if questionnaire != DEFAULT_QUESTIONNAIRE:  # the default's report reads as it always did
        report["questionnaire"] = questionnaire.stored()
    counted = choice_counts(df, questionnaire)
    if counted:
        report["choices"] = counted
    report["missing_data"] = missing_data(slots, coded, diffs, paired, alpha, seed)
    if plan is not None:
        used = {
            "margin": margin,
            "margin_unit": unit,
            "alpha": alpha,
            "smallest_effect": smallest_effect,
        }
        n_analysed = paired[coded.keys[target]]["n_pairs"]
        looked = sequential_p_values(paired, questionnaire)
        report["plan"] = analysis_plan(plan, df["created_at"], n_analysed, used, collected, looked)
        look = report["plan"].get("sequential")
        if look is not None:  # an interim verdict is validated only where its boundary is crossed
            report["checks"]["validated"] = report["checks"]["validated"] and look["crossed"]
    report["methods"] = methods(report)
    return cast(Report, to_jsonable(report))


def _tie_alpha(plan: Mapping[str, Any] | None, alpha: float) -> float | None:
    """The level of each tie question's TOST when the plan has an internal pilot (None:
    alpha); a tie alpha above the report's alpha is refused."""
    internal = internal_pilot_of(plan)
    if internal is None:
        return None
    tie_alpha = float(internal["tie_alpha"])
    if tie_alpha > alpha:
        raise ValueError(f"plan.internal_pilot: tie alpha {tie_alpha:g} above alpha {alpha:g}")
    return tie_alpha


def collected_counts(ratings: pd.DataFrame) -> dict[str, int]:
    """Pairs and pair-ratings collected (excluded pairs included): where a plan's looks stand."""
    rated = ratings.dropna(subset=["score"]) if "score" in ratings else ratings
    keys = [c for c in ("pair_id", "annotator") if c in rated]
    return {
        "pairs": int(rated["pair_id"].nunique()),
        "ratings": len(rated.drop_duplicates(keys)) if keys else 0,
    }


def sequential_p_values(
    paired: Mapping[str, PairedTest], questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE
) -> dict[str, float | None]:
    """The tests a group-sequential look reads: each ``tie`` question's TOST and each
    ``diverge`` question's superiority test (one-sided p-values; the verdict needs all of
    them), in the questionnaire's order."""
    diverge = set(questionnaire.diverge_keys)
    return {
        f"{dim} {'superiority' if dim in diverge else 'TOST'}": (
            paired[dim]["superiority_p"] if dim in diverge else paired[dim]["tost_p"]
        )
        for dim in questionnaire.keys
        if dim in paired and (dim in diverge or dim in questionnaire.tie_keys)
    }


def export_label_audit(
    ratings: pd.DataFrame, questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE
) -> list[AuditRow]:
    """The label audit computed from the ratings themselves (issue 23.6: a report built from an
    export no longer says "0 pairs" for an audit it never ran)."""
    votes = annotator_votes(ratings, questionnaire)
    return [] if votes.empty else label_audit(human_verdicts(votes, questionnaire))


def _check_settings(margin: float, alpha: float, n_boot: int) -> None:
    if not margin > 0:
        raise ValueError(f"margin must be positive, got {margin}")
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must be between 0 and 0.5, got {alpha}")
    if n_boot < 0:
        raise ValueError(f"n_boot must be 0 (no bootstrap) or more, got {n_boot}")


def dimension_unit_sds(diffs: RatingDiffs) -> dict[str, float | None]:
    """Each dimension's SD unit: the SD of one annotator's chosen - rejected difference
    (:func:`analysis.inference.margins.unit_sd`), the same whatever the annotators per pair."""
    return {dim: unit_sd(*diffs.of(i, None)) for i, dim in enumerate(diffs.coded.keys)}


def dimension_margins(
    unit_sds: Mapping[str, float | None] | None,
    margin: float,
    unit: MarginUnit,
    keys: Sequence[str],
) -> dict[str, float | None]:
    """Each question's margin in scale points (SD units: times that question's unit SD;
    None when it is undefined), for the questions of ``keys``."""
    return {
        dim: margin_points(margin, unit, None if unit_sds is None else unit_sds[dim])
        for dim in keys
    }


def _planned_power(
    planned: Mapping[str, float],
    ratings: pd.DataFrame,
    margins: Mapping[str, float | None],
    alpha: float,
    seed: int,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> PowerResult:
    """The power planner with this study as the pilot, at the study's margin (points; the
    smallest over the ``tie`` questions when the margin is in SD units)."""
    ties = set(questionnaire.tie_keys)
    general = [m for d, m in margins.items() if d in ties and m is not None]
    if not general:
        raise ValueError("power: the margin is undefined on every general dimension")
    plan = make_plan(
        int(planned["n_pairs"]),
        int(planned.get("annotators_per_pair", 3)),
        min(general),
        pilot=ratings,
        general_diff=float(planned.get("general_diff", 0.0)),
        rubric_diff=float(planned.get("rubric_diff", 0.5)),
        alpha=alpha,
        target=float(planned.get("target", 0.8)),
        simulations=int(planned.get("simulations", 1000)),
        seed=seed,
        questionnaire=questionnaire,
    )
    return plan_power(plan)
