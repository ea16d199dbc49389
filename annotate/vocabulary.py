"""The shared vocabulary: dimensions, responses, sides, roles, assignment statuses, the default
scale and margin, the export columns.

Everything that names a dimension, a response or a side imports it from here.
"""

from __future__ import annotations

import enum
import itertools
from enum import StrEnum
from typing import Any, Literal


class Dimension(StrEnum):
    """What each response is scored on: three of general quality, one of personalization."""

    FACTUALITY = "factuality"
    RELEVANCE = "relevance"
    HELPFULNESS = "helpfulness"
    RUBRIC_ALIGNMENT = "rubric_alignment"


class Response(StrEnum):
    """The two responses of a pair, as the benchmark labels them (never shown to annotators)."""

    CHOSEN = "chosen"
    REJECTED = "rejected"


class Side(StrEnum):
    """Where a response is shown on the rating page."""

    A = "A"
    B = "B"


class Role(StrEnum):
    """What an account may do: rate, administer, read the results, or adjudicate disputed
    pairs (an adjudicator gets only adjudication work: no training, no ordinary slot)."""

    ANNOTATOR = "annotator"
    ADMIN = "admin"
    RESEARCHER = "researcher"
    ADJUDICATOR = "adjudicator"


class SystemActor(enum.Enum):
    """The operator at the command line (the one value is `SYSTEM`; the rules that apply to it
    are in `annotate.domain.study.permissions`, defined here so that the command line names it
    without importing the database)."""

    SYSTEM = "system"


SYSTEM: Literal[SystemActor.SYSTEM] = SystemActor.SYSTEM
Actor = int | SystemActor | None
"""Who asks: a logged-in account's id, `SYSTEM` (the command line) or None (nobody)."""


class AssignmentStatus(StrEnum):
    """Where one (annotator, pair) assignment stands. `released`: given back (reassigned, or a
    lapsed pool reservation); it no longer counts anywhere."""

    PENDING = "pending"
    DONE = "done"
    SKIPPED = "skipped"
    RELEASED = "released"


# Plain-string tuples of the same values, for tables, data frames and option lists.
DIMENSIONS: tuple[str, ...] = tuple(d.value for d in Dimension)
GENERAL_DIMENSIONS: tuple[str, ...] = DIMENSIONS[:3]
PERSONAL_DIMENSION: str = Dimension.RUBRIC_ALIGNMENT.value
RESPONSES: tuple[str, ...] = tuple(r.value for r in Response)
SIDES: tuple[str, ...] = tuple(s.value for s in Side)
ROLES: tuple[str, ...] = tuple(r.value for r in Role)
ASSIGNMENT_STATUSES: tuple[str, ...] = tuple(s.value for s in AssignmentStatus)

DIMENSION_LABELS: dict[str, str] = {
    "factuality": "Factuality and correctness",
    "relevance": "Relevance and instruction following",
    "helpfulness": "Helpfulness and harmlessness",
    "rubric_alignment": "Alignment with this user's personal rubric",
}

DIMENSION_DEFINITIONS: dict[str, str] = {
    "factuality": "Are the statements in the response true and the reasoning sound? "
    "Penalise errors, invented facts and misleading claims.",
    "relevance": "Does the response answer the question that was asked and follow its "
    "instructions, without drifting off topic?",
    "helpfulness": "Would the response actually help someone with this question, "
    "and is it free of harmful or unsafe advice?",
    "rubric_alignment": "How well does the response meet what THIS user expects, as listed "
    "in the rubric aspects and shown by the profile and narrative?",
}

SCALE_MIN = 1
SCALE_MAX = 5
DEFAULT_ANCHORS: dict[int, str] = {
    1: "Very poor",
    2: "Poor",
    3: "Acceptable",
    4: "Good",
    5: "Excellent",
}

EXPORT_COLUMNS: tuple[str, ...] = (
    "study",
    "pair_id",
    "domain",
    "annotator",
    "response",
    "side",
    "dimension",
    "score",
    "seconds",
    "created_at",
)
"""Columns of the ratings export: one row per score. Researchers rely on this order."""

DEFAULT_EQUIVALENCE_MARGIN = 0.5
MARGIN_UNITS = ("points", "sd")
"""The margin's unit: scale points, or standard deviations of the paired differences."""
DEFAULT_N_BOOT = 1000  # bootstrap resamples for agreement intervals
DEFAULT_HOLM = True
"""Holm-adjust the exploratory by-domain family by default: the report, the command lines, the
results page and the published card all start from this one value."""


class ModelKind(StrEnum):
    """How a reward model's results were produced (the benchmark's two evaluation scripts)."""

    POINTWISE = "pointwise"  # a scalar score per response (evaluation/pointwise.py)
    PAIRWISE = "pairwise"  # a judge's choice of A or B (evaluation/pairwise.py)


class PredictionStatus(StrEnum):
    """Whether one imported model prediction can be used, and if not, why (counted, never
    dropped silently)."""

    OK = "ok"
    MISSING_SCORE = "missing_score"  # pointwise: only one of the two responses was scored
    NON_FINITE = "non_finite"  # pointwise: a score is NaN, infinite or null
    PARSE_FAILED = "parse_failed"  # pairwise: the judge's output could not be parsed


class FlagAction(StrEnum):
    """What an admin did with a flagged or skipped pair."""

    RESOLVED = "resolved"  # looked at, a note written, the ratings kept
    ADJUDICATION = "adjudication"  # marked for adjudication (issue 15.3)


class Purpose(StrEnum):
    """Why an assignment exists: an ordinary rating (one of the pair's k), or an adjudication
    of a disputed pair (outside the k; it decides the pair's verdict "after adjudication")."""

    RATING = "rating"
    ADJUDICATION = "adjudication"


class Verdict(StrEnum):
    """Which response a pair's human majority (or a model) prefers on the rubric."""

    CHOSEN = "chosen"
    REJECTED = "rejected"
    TIE = "tie"


MODEL_KINDS: tuple[str, ...] = tuple(k.value for k in ModelKind)
PREDICTION_STATUSES: tuple[str, ...] = tuple(s.value for s in PredictionStatus)
VERDICTS: tuple[str, ...] = tuple(v.value for v in Verdict)


# ---------------------------------------------------------------- study designs (issue 14)

PREFERENCE_POINTS: tuple[int, ...] = (-2, -1, 0, 1, 2)
"""The direct preference by side, as stored: -2 A much better .. 0 tie .. +2 B much better."""
PREFERENCE_WORDS: dict[int, str] = {
    -2: "A much better",
    -1: "A better",
    0: "Tie",
    1: "B better",
    2: "B much better",
}


class PoolOrder(StrEnum):
    """How the open pool picks among the pairs an annotator may still get."""

    DEPTH = "depth"  # partly rated pairs first, so pairs reach k before new ones open
    BREADTH = "breadth"  # the pairs with the fewest slots first (every pair once, then twice)


POOL_ORDERS: tuple[str, ...] = tuple(o.value for o in PoolOrder)
RATIONALE_MODES: tuple[str, ...] = ("off", "optional", "required")
PLATFORM_NAMES: tuple[str, ...] = ("prolific", "completion_url")
"""The crowd platforms a study may name (`annotate.domain.platforms` keeps one module each)."""
BONUS_PER_EXTRA_PAIR = "per_extra_pair"


def parse_bonus_rule(rule: str) -> int:
    """A study's bonus rule, in minor units per rated pair beyond the finish minimum: '' (no
    bonus: 0) or 'per_extra_pair:N' with N a whole number of minor units from 1 to 100,000.
    Raises ValueError saying what is expected."""
    text = rule.strip()
    if not text:
        return 0
    name, _, amount = text.partition(":")
    if name.strip() != BONUS_PER_EXTRA_PAIR or not amount.strip().isdigit():
        raise ValueError(
            f"bonus rule {rule!r}: expected '' (none) or '{BONUS_PER_EXTRA_PAIR}:N', N minor "
            "units (pence, cents) per rated pair beyond the minimum before Finish"
        )
    value = int(amount.strip())
    if not 1 <= value <= 100_000:
        raise ValueError(f"bonus rule {rule!r}: N must be 1 to 100,000 minor units")
    return value


"""Whether a rationale goes with the direct preference."""
SURVEY_KINDS: tuple[str, ...] = ("choice", "text")
"""A survey question is answered by picking one of its options, or in free text."""
PREFERENCE_EXPORT_COLUMNS: tuple[str, ...] = (
    "preference",
    "preference_side",
    "rationale",
    "preference_history",
)
"""Added to the ratings export when a study asks for the direct preference: `preference` in
terms of the responses (+2 chosen much better .. -2 rejected much better), `preference_side`
as the annotator answered it (-2 A much better .. +2 B much better), and the earlier answers of
a revised preference as JSON text (`[]` when never revised)."""
SURVEY_COLUMN_PREFIX = "survey_"
"""Survey answers join the export as annotator attributes, one column per question id."""


# ---------------------------------------------------------------- aspect checklist (issue 14)

COVERAGE_POINTS: tuple[int, ...] = (0, 1, 2)
"""How well a response covers one rubric aspect: the benchmark judge's match_score scale
(Personalized-RewardBench `prompts/evaluation.txt`)."""
COVERAGE_WORDS: dict[int, str] = {0: "Not covered", 1: "Partly", 2: "Well"}
ASPECT_EXPORT_COLUMNS: tuple[str, ...] = (
    *EXPORT_COLUMNS[: EXPORT_COLUMNS.index("side") + 1],
    "aspect_index",
    "aspect",
    "coverage",
    "purpose",
)
"""The aspect table (`prb-annotate export --table aspects`): one row per assignment, response
and rubric aspect; `purpose` says whether the marks are a rating's or an adjudication's."""
SPAN_EXPORT_COLUMNS: tuple[str, ...] = (
    *EXPORT_COLUMNS[: EXPORT_COLUMNS.index("side") + 1],
    "label",
    "start",
    "end",
    "text",
    "purpose",
)
"""The spans table (`prb-annotate export --kind spans`, issue 36.3): one row per span marked
and not removed; `label` is the span label's key, `start` and `end` code points of the stored
response (`text` is that slice of it, markup between included)."""
# ---------------------------------------------------------------- provenance (issue 15.6)

PROVENANCE_EXPORT_COLUMNS: tuple[str, ...] = (
    "purpose",
    "status",
    "revision",
    "revision_history",
    "comment",
    "flagged",
    "flag_reason",
    "flag_resolution",
    "flag_note",
    "skip_reason",
    "queue_position",
    "shown_at",
    "focus_losses",
    "pastes",
    "pair_excluded",
    "exclusion_reason",
)
"""Added to every ratings export after the fixed columns (and the design options' columns):
where each score comes from. A skipped assignment is one row with `status` 'skipped' and
empty response, side, dimension and score; the analysis leaves those rows, and the rows of
adjudications (`purpose` 'adjudication'), out of its ordinary figures (docs/reference/export.md)."""

# ---------------------------------------------------------------- group-sequential plan (issue 33)

OBRIEN_FLEMING = "obrien-fleming"
POCOCK = "pocock"
SPENDING_FAMILIES = (OBRIEN_FLEMING, POCOCK)
"""Lan-DeMets spending families of a group-sequential plan (alpha, and beta for futility)."""
LOOK_UNITS = ("pairs", "ratings")
MAX_LOOKS = 10


def check_sequential_plan(value: object) -> dict[str, Any]:
    """A group-sequential plan checked and filled with its defaults: ``looks`` (2 to 10
    increasing cumulative counts, the last the planned size), ``unit`` (pairs or ratings),
    ``alpha_spending`` and optional ``futility`` (a spending family), ``beta`` (futility's
    type-II error, default 0.2) and ``binding`` (default false). ValueError naming the field."""
    if not isinstance(value, dict):
        raise ValueError("sequential: expected a mapping of looks, unit, alpha_spending, ...")
    unknown = sorted(
        set(value) - {"looks", "unit", "alpha_spending", "futility", "beta", "binding"}
    )
    if unknown:
        raise ValueError(f"sequential: unknown field(s) {', '.join(map(str, unknown))}")
    looks = value.get("looks")
    if (
        not isinstance(looks, list)
        or not 2 <= len(looks) <= MAX_LOOKS
        or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in looks)
        or any(b <= a for a, b in itertools.pairwise(looks))
    ):
        raise ValueError(
            f"sequential.looks: expected 2 to {MAX_LOOKS} increasing positive whole numbers "
            f"(cumulative pairs or ratings at each look), got {looks!r}"
        )
    plan = {
        "looks": list(looks),
        "unit": value.get("unit", "pairs"),
        "alpha_spending": value.get("alpha_spending", OBRIEN_FLEMING),
        "futility": value.get("futility"),
        "beta": value.get("beta", 0.2),
        "binding": value.get("binding", False),
    }
    _expect(plan["unit"] in LOOK_UNITS, "unit", f"one of {', '.join(LOOK_UNITS)}", plan)
    _expect(plan["alpha_spending"] in SPENDING_FAMILIES, "alpha_spending", _FAMILIES, plan)
    _expect(
        plan["futility"] in (None, *SPENDING_FAMILIES), "futility", "none or " + _FAMILIES, plan
    )
    beta = plan["beta"]
    ok = isinstance(beta, int | float) and not isinstance(beta, bool) and 0 < beta < 0.5
    _expect(ok, "beta", "a number between 0 and 0.5", plan)
    _expect(isinstance(plan["binding"], bool), "binding", "true or false", plan)
    plan["beta"] = float(beta)
    return plan


_FAMILIES = " or ".join(SPENDING_FAMILIES)


def _expect(
    ok: bool, field: str, expected: str, plan: dict[str, Any], name: str = "sequential"
) -> None:
    if not ok:
        raise ValueError(f"{name}.{field}: expected {expected}, got {plan[field]!r}")


DEFAULT_TIE_ALPHA = 0.04
"""An internal pilot's default level of each tie question's TOST after the sample-size look
(analysis.inference.reestimate: at 0.05 the look raised the TOSTs' type-I error to 6.1%)."""


def check_internal_pilot(value: object) -> dict[str, Any]:
    """An internal pilot's pre-registration checked: ``first_stage_pairs`` (a positive whole
    number) and ``tie_alpha`` (default DEFAULT_TIE_ALPHA, between 0 and 0.5: the TOSTs' level
    after the look). ValueError naming the field."""
    if not isinstance(value, dict):
        raise ValueError("internal_pilot: expected a mapping of first_stage_pairs, tie_alpha")
    unknown = sorted(set(value) - {"first_stage_pairs", "tie_alpha"})
    if unknown:
        raise ValueError(f"internal_pilot: unknown field(s) {', '.join(map(str, unknown))}")
    plan = {
        "first_stage_pairs": value.get("first_stage_pairs"),
        "tie_alpha": value.get("tie_alpha", DEFAULT_TIE_ALPHA),
    }
    first = plan["first_stage_pairs"]
    ok = isinstance(first, int) and not isinstance(first, bool) and first > 0
    _expect(ok, "first_stage_pairs", "a positive whole number of pairs", plan, "internal_pilot")
    tie = plan["tie_alpha"]
    ok = isinstance(tie, int | float) and not isinstance(tie, bool) and 0 < tie < 0.5
    _expect(ok, "tie_alpha", "a number between 0 and 0.5", plan, "internal_pilot")
    plan["tie_alpha"] = float(tie)
    return plan
