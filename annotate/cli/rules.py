"""`prb-annotate studies rules`: a study's pre-registered exclusion rules, shown or set
(through `annotate.services.admin.exclusion_rules`, as the Studies page does)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from annotate.cli.common import ACTOR, State, StudyOption, YesOption, confirmed, out, refusals
from annotate.cli.studies import studies_app
from annotate.domain.operations.exclusion_rules import parse_rules
from annotate.services.admin import exclusion_rules

Opt = typer.Option
MinGoldAccuracy = Annotated[
    float | None,
    Opt("--min-gold-accuracy", help="Exclude an annotator whose gold accuracy is below (0-1)."),
]
MaxGoldFailures = Annotated[
    int | None,
    Opt(
        "--max-gold-failures",
        help="Exclude an annotator who failed more gold pairs ('fail 2 of 3 -> excluded': 1).",
    ),
]
MaxStraightlining = Annotated[
    float | None,
    Opt(
        "--max-straightlining-share",
        help="Exclude an annotator whose share of pairs with all 8 scores equal is above (0-1).",
    ),
]
MinMedianSeconds = Annotated[
    float | None,
    Opt(
        "--min-median-seconds", help="Exclude an annotator whose median seconds per pair is below."
    ),
]
Clear = Annotated[bool, Opt("--clear", help="Remove every rule first (then apply those given).")]
Force = Annotated[
    bool,
    Opt(
        "--force",
        help="Set the rules although the study has ratings (no longer pre-registered: audited, "
        "and the report says the rules changed after data arrived).",
    ),
]


@studies_app.command("rules")
def studies_rules(
    study: StudyOption,
    min_gold_accuracy: MinGoldAccuracy = None,
    max_gold_failures: MaxGoldFailures = None,
    max_straightlining_share: MaxStraightlining = None,
    min_median_seconds: MinMedianSeconds = None,
    clear: Clear = False,
    force: Force = False,
    yes: YesOption = False,
) -> None:
    """Show a study's pre-registered exclusion rules, or change them: the rules given replace
    those of the same name, the others stay (--clear removes them first). A change is part of
    the analysis plan: confirmed first (--yes), locked once ratings exist (--force)."""
    given = {
        "min_gold_accuracy": min_gold_accuracy,
        "max_gold_failures": max_gold_failures,
        "max_straightlining_share": max_straightlining_share,
        "min_median_seconds": min_median_seconds,
    }
    given = {k: v for k, v in given.items() if v is not None}
    with refusals():
        record = exclusion_rules.study_rules(State.engine(), ACTOR, study)
        if given or clear:
            rules = {} if clear else dict(record["rules"])
            parse_rules(rules | given)  # a wrong rule is refused before any question
            if rules | given != record["rules"]:
                shown = f"exclusion rules: {record['rules'] or 'none'} -> {rules | given or 'none'}"
                confirmed("studies rules", [shown], yes)
            record = exclusion_rules.set_study_rules(
                State.engine(), ACTOR, study, rules | given, force=force
            )
    _show(record)


def _show(record: dict[str, Any]) -> None:
    rules = ", ".join(f"{k}={v:g}" for k, v in record["rules"].items()) or "none"
    earlier = [
        f"{', '.join(f'{k}={v:g}' for k, v in h['rules'].items()) or 'none'} "
        f"(set {h['set_at'] or '?'})"
        for h in record["history"]
    ]
    rows = [
        ("exclusion rules", rules),
        ("rules set at", record["set_at"] or "never"),
        ("first rating at", record["first_rating_at"] or "none yet"),
        ("earlier rules", "; ".join(earlier) or "-"),
    ]
    for key, value in rows:
        out.print(f"{key}\t{value}", highlight=False, markup=False)
    first, set_at = record["first_rating_at"], record["set_at"]
    if first is not None and set_at is not None and set_at > first:
        out.print("note\tset after the first rating: not pre-registered", markup=False)
