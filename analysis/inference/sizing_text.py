"""The sizing planner's answer in words: the Markdown table of designs and the internal
pilot's recommendation (:mod:`analysis.inference.sizing`)."""

from __future__ import annotations

from analysis.schema.questions import target_key
from analysis.schema.sizing_types import (
    DesignPower,
    InternalPilotPlan,
    SizingResult,
)
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE

SHORT = {"factuality": "Fact.", "relevance": "Rel.", "helpfulness": "Help."}
"""Column heads of the designs table: the default questionnaire's abbreviated, the target
"Rubric", any other question by its key."""


def sizing_text(result: SizingResult) -> str:
    """The planner's answer as Markdown: what it assumed, then the designs."""
    pilot = result["pilot"]
    conf = result["confidence"]
    tested = list(result["true_diff"])
    lines = [
        f"Sizing from a pilot of {pilot['n_pairs']} pairs, {pilot['n_annotators']} annotators, "
        f"{pilot['n_ratings']} ratings: margin ±{result['margin']:g}, smallest effect "
        f"{result['smallest_effect']:g}, alpha {result['alpha']:g}, target power "
        f"{result['target']:g}.",
        "",
        f"Variance components of one annotator's chosen - rejected (points²): REML estimate "
        f"and {conf:.0%} upper confidence limit (profile likelihood, for reading: the plan "
        f"takes each design's variance of the mean at its own {conf:.0%} upper limit).",
        "",
        "| Dimension | Pair | Annotator | Residual | Pilot mean | Planned true diff |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for dim, c in result["components"].items():
        low, high = c["estimate"], c["upper"]
        cells = [
            f"{low['pair']:.3f} ({high['pair']:.3f})",
            f"{low['annotator']:.3f} ({high['annotator']:.3f})",
            f"{low['residual']:.3f} ({high['residual']:.3f})",
        ]
        lines.append(
            f"| {dim} | {' | '.join(cells)} | {c['pilot_mean']:+.3f} | "
            f"{result['true_diff'][dim]:+.2f} |"
        )
    lines += [
        "",
        "Smallest design per k and pool (power of each test at the upper limits; the study's "
        "is at least the last column):",
        "",
        "| k | Pool | Pairs | Per annotator | Ratings | Model | "
        + " | ".join(_short(d, result) for d in tested)
        + " | Study ≥ |",
        "|---:|---:|---:|---:|---:|---|" + "---:|" * (len(tested) + 1),
    ]
    for d in result["designs"]:
        powers = " | ".join(f"{d['tests'][dim]['power']:.3f}" for dim in tested)
        lines.append(
            f"| {d['per_pair']} | {d['pool']} | {d['n_pairs']} | {_per_annotator(d)} | "
            f"{d['ratings']} | {d['model']} | {powers} | {d['joint_power_bound']:.3f} |"
        )
    best = result["recommended"]
    lines.append("")
    if best is None:
        lines.append("No design on this grid reaches the target power.")
    else:
        rubric = best["tests"][_target_of(result)]
        lines.append(
            f"Recommended: {best['n_pairs']} pairs x {best['per_pair']} annotators per pair "
            f"from a pool of {best['pool']} ({best['ratings']} ratings, "
            f"{_per_annotator(best)} pairs per annotator): the fewest ratings on this grid; "
            f"rubric SE {rubric['se']:.3f}, df {rubric['df']:.1f}."
        )
    internal = result.get("internal_pilot")
    if internal is not None:
        lines += ["", internal_pilot_text(internal)]
    lines += [
        "",
        *result["notes"],
        "",
        "Limits: " + result["limits_method"] + ".",
        result["method"],
    ]
    return "\n".join(lines) + "\n"


def _target_of(result: SizingResult) -> str:
    return result.get("target_question", target_key(DEFAULT_QUESTIONNAIRE))


def _short(key: str, result: SizingResult) -> str:
    """A question's column head in the designs table (see SHORT)."""
    return "Rubric" if key == _target_of(result) else SHORT.get(key, key)


def internal_pilot_text(plan: InternalPilotPlan) -> str:
    """The internal pilot's recommendation in words (:mod:`analysis.inference.reestimate`)."""
    k, pool = plan["per_pair"], plan["pool"]
    return (
        f"**Recommended for this small pilot: an internal pilot.** Rate a first stage of "
        f"{plan['first_stage']} pairs x {k} annotators per pair from a pool of {pool} "
        f"({plan['fraction']:g} of the size the pilot's point estimates give). Once it is "
        f"rated, re-estimate the variance "
        f"components from the pilot and the first stage together (`python -m analysis size "
        f"PILOT --first-stage FIRST_STAGE --per-pair {k} --pools {pool}`, with the same "
        f"difference, margin and alpha) and rate up to the final size it gives: never below "
        f"{plan['first_stage']}, at most {plan['cap']} pairs; expect about "
        f"{plan['expected_final']} (in simulation the final size was a median "
        f"{plan['growth']:.2f} times the first stage). The test at the end is run on all the "
        f"main study's pairs (the pilot's not included): the superiority test at alpha "
        f"{plan['alpha']:g}, each tie question's TOST at **{plan['tie_alpha']:g}** (the first "
        f"stage and the look size the tie questions at that level): "
        f"{plan['tie_alpha_why']}. Pre-register both with the first stage (`prb-annotate "
        f"studies ... --internal-pilot 'first={plan['first_stage']} "
        f"tie_alpha={plan['tie_alpha']:g}'`); the report then reads the TOSTs at "
        f"{plan['tie_alpha']:g}. The fixed design above, from the pilot alone, asks for "
        f"{plan['fixed']} pairs. Rule: {plan['rule']}."
    )


def _per_annotator(design: DesignPower) -> str:
    """r, or "r-r+1" when the pool does not divide the ratings."""
    low, high = design["per_annotator"], design.get("per_annotator_max", design["per_annotator"])
    return str(low) if high == low else f"{low}-{high}"
