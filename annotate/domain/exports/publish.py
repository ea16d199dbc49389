"""The validation card: a folder ready to upload to a dataset hub (issue 15.8).

`dataset_card` writes the folder's `README.md` from plain data (the study's protocol and the
report as a JSON-like dict, so this module needs neither the database nor the statistics):
YAML front matter (license, task, size, a config per table) and a body that states the
protocol, the findings (:mod:`annotate.domain.exports.card_results`: the verdict with its
figures, agreement, human accuracy, any reward models), exclusions, privacy and the files, with
the lines the reproduce scripts print (:mod:`annotate.domain.exports.card_reproduce`).
`write_folder` puts the files in place all at once (a temporary folder renamed), never half.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from huggingface_hub import DatasetCardData

from annotate.domain.exports.card_data import CONFIGS, card_data, card_text
from annotate.domain.exports.card_format import num, table
from annotate.domain.exports.card_reproduce import reproduced_output
from annotate.domain.exports.card_results import (
    PLAN_FILE,
    agreement_section,
    asked,
    downstream_section,
    missing_section,
    models_section,
    plan_section,
    spans_section,
    verdict_section,
)
from annotate.domain.exports.provenance import COLUMN_NOTES
from annotate.errors import Conflict
from annotate.markup import markdown_text
from annotate.questionnaire import (
    DEFAULT_QUESTIONNAIRE,
    Question,
    Questionnaire,
)

RATINGS_FILE = CONFIGS["ratings"]
RATINGS_CSV = "ratings.csv"
"""The same rows as CSV: Debian's R has no Parquet reader (arrow is not packaged), and
reproduce.R reads this file."""
ASPECTS_FILE = CONFIGS["aspects"]  # the aspect checklist's marks, for a study that uses it
SPANS_FILE = CONFIGS["spans"]  # the spans marked in responses, for a study with span labels
PREFERENCE_FILE = CONFIGS["preference"]  # the pairs in TRL's preference format, with verdicts
REPORT_FILES = ("report.json", "report.md", "report.html")
CARD_FILE = "README.md"
CROISSANT_FILE = "croissant.json"  # Croissant metadata with its RAI fields (exports.croissant)
DEFAULT_LICENSE = "cc-by-4.0"
RATINGS_COLUMNS = {
    "study": "the study's name",
    "pair_id": "the benchmark record's id",
    "domain": "the record's domain",
    "annotator": "the annotator's pseudonym in this study (a keyed hash of the study and "
    "account: not the platform id, not the same person's pseudonym in another study)",
    "response": "'chosen' or 'rejected' (the benchmark's label; never shown to annotators)",
    "side": "'A' or 'B': where the response was shown",
    "dimension": "factuality, relevance, helpfulness or rubric_alignment",
    "score": "the score given",
    "seconds": "time on the pair, display to submit",
    "created_at": "when the score was first given (UTC, to the minute)",
    **COLUMN_NOTES,
    "excluded": "true when an admin left the pair out of the analysis (see Exclusions)",
    "annotator_excluded": "why a pre-registered exclusion rule leaves the annotator out of the "
    "primary analysis (empty: kept)",
}


@dataclass(frozen=True)
class Protocol:
    """What the card states about how the ratings were collected."""

    study: str
    scale_min: int
    scale_max: int
    anchors: dict[str, str]
    margin: float
    overlap: int
    n_annotators: int
    n_simulated: int
    n_rows: int
    exclusions: Sequence[Mapping[str, object]] = field(default_factory=list)
    license: str = DEFAULT_LICENSE
    free_text: Mapping[str, str] = field(default_factory=dict)  # field -> what it holds
    disclosed: Sequence[str] = ()  # the free-text fields the admin chose to publish
    erasures: Sequence[Mapping[str, object]] = ()  # participants' data erased, oldest first
    pay: str = ""  # crowd studies: the pay in words (payment_rules.pay_words); '' not said
    instructed_checks: int = 0  # the study's instructed-response checks (crowd participants)
    files: Sequence[str] = (RATINGS_FILE,)  # the published tables' files (a config each)
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE  # the questions each response was asked


def front_matter_data(protocol: Protocol) -> DatasetCardData:
    """The card's front matter (huggingface_hub's dataset card data): a config per table."""
    return card_data(
        study=protocol.study, license=protocol.license, n_rows=protocol.n_rows, files=protocol.files
    )


def _margin_text(p: Protocol, report: Mapping[str, Any]) -> str:
    """The equivalence margin as the report tested it (its unit; per dimension in points)."""
    settings = report.get("settings", {})
    unit = settings.get("margin_unit", "points")
    margin = settings.get("margin", p.margin)
    if unit == "points":
        return f"{num(margin, 2)} scale points (TOST on general quality)"
    tested = settings.get("margins_points") or {}
    per_dim = ", ".join(f"{dim} {num(value, 2)}" for dim, value in tested.items())
    text = f"{num(margin, 2)} {unit} (TOST on general quality)"
    return text + (f"; in scale points: {per_dim}" if per_dim else "")


def protocol_lines(p: Protocol, report: Mapping[str, Any]) -> list[str]:
    """The card's Protocol section (its lines)."""
    anchors = ", ".join(
        f"{k} = {markdown_text(v)}" for k, v in sorted(p.anchors.items(), key=lambda i: int(i[0]))
    )
    real = p.n_annotators - p.n_simulated
    pool = f"{p.n_annotators} annotator account(s) rated: {real} people"
    if p.n_simulated:
        pool += f" and {p.n_simulated} SIMULATED annotators (made-up ratings, not people)"
    return [
        "## Protocol",
        "",
        "- **Blinding**: each annotator saw the two responses as A and B, the side of the "
        "benchmark's chosen response drawn per annotator and pair; the labels (chosen, "
        "rejected) were never shown.",
        f"- **Overlap**: {p.overlap} annotator(s) wanted per pair.",
        f"- **Scale**: {p.scale_min} to {p.scale_max}" + (f" ({anchors})." if anchors else "."),
        *questionnaire_lines(p.questionnaire),
        f"- **Equivalence margin**: {_margin_text(p, report)}.",
        f"- **Annotator pool**: {pool}.",
        *([f"- **Pay**: {p.pay}."] if p.pay else []),
        *_checks_line(p.instructed_checks),
    ]


def questionnaire_lines(questionnaire: Questionnaire) -> list[str]:
    """The questions each response was asked: the benchmark's four dimensions in one line, any
    other questionnaire as a table (key, label, question, scale or choices, role)."""
    if questionnaire == DEFAULT_QUESTIONNAIRE:
        return [
            "- **Dimensions**: factuality, relevance, helpfulness (general quality) and "
            "rubric_alignment (the benchmark's personalised criterion)."
        ]
    rows = [
        [q.key, markdown_text(q.label), markdown_text(q.text), _answers(q), q.role.value]
        for q in questionnaire.questions
    ]
    return [
        f"- **Questionnaire**: {len(rows)} question(s); the labels are validated when every "
        "`tie` question ties and every `diverge` question diverges (`describe`: reported, no "
        "hypothesis).",
        "",
        *table(["key", "label", "question", "scale or choices", "role"], rows),
        "",
    ]


def _answers(question: Question) -> str:
    if not question.is_scale:
        return "; ".join(f"{i} = {markdown_text(c)}" for i, c in enumerate(question.choices, 1))
    anchors = ", ".join(f"{k} = {markdown_text(v)}" for k, v in sorted(question.anchors.items()))
    scale = f"{question.points[0]} to {question.points[-1]}"
    return f"{scale} ({anchors})" if anchors else scale


def _checks_line(n_checks: int) -> list[str]:
    if not n_checks:
        return []
    return [
        f"- **Instructed-response checks**: {n_checks} item(s) between pairs telling crowd "
        "participants which option to pick; a participant's second wrong answer ended their "
        "work (status 'failed checks'). Gold pairs, speed and disagreement ended no one's work."
    ]


def _exclusions_section(p: Protocol, report: Mapping[str, Any]) -> list[str]:
    lines = ["## Exclusions", ""]
    if p.exclusions:
        lines.append(
            f"{len(p.exclusions)} pair(s) left out of every figure by an admin (their ratings "
            "are in the file, marked `excluded`):"
        )
        lines += [
            "",
            *table(
                ["pair", "reason", "by", "when"],
                [[e["pair_id"], e["reason"], e["by"], e["at"]] for e in p.exclusions],
            ),
        ]
    else:
        lines.append("No pair was left out by an admin.")
    n = report["exclusions"]["n_excluded_total"]
    lines += ["", f"Pairs lacking chosen or rejected scores on a dimension, left out of it: {n}."]
    return lines + _rules_lines(report.get("exclusion_rules"))


def _rules_lines(found: Mapping[str, Any] | None) -> list[str]:
    """The annotators the study's pre-registered exclusion rules left out (report key
    `exclusion_rules`, analysis/designs/exclusion_rules.py)."""
    if not found or not found["rules"]:
        return ["", "No pre-registered exclusion rules: every annotator is analysed."]
    rules = "; ".join(r["description"] for r in found["rules"])
    lines = ["", f"Pre-registered exclusion rules ({found['record']['note']}): {rules}."]
    excluded = [a for a in found["annotators"] if a["excluded_by"] and a["in_ratings"]]
    if not excluded:
        return [*lines, "They exclude no annotator."]
    lines += [
        f"{len(excluded)} annotator(s) left out of every figure (their ratings are in the file):",
        "",
        *table(["annotator", "why"], [[a["annotator"], "; ".join(a["reasons"])] for a in excluded]),
    ]
    return lines


def _privacy_section(p: Protocol) -> list[str]:
    """What the card's files hold about the people who took part (issue 24.1)."""
    disclosed = [f"`{f}` ({p.free_text[f]})" for f in p.disclosed if f in p.free_text]
    withheld = [f"`{f}`" for f in p.free_text if f not in p.disclosed]
    lines = [
        "## Participants' privacy",
        "",
        "- Annotators are named by a pseudonym of this study; no platform id, session id, "
        "study link or login token is in these files.",
        "- Times are given to the minute (UTC); durations (`seconds`) are exact.",
        "- Free text left out: " + (", ".join(withheld) if withheld else "none") + ".",
    ]
    if disclosed:
        lines.append("- Free text published at the admin's choice: " + ", ".join(disclosed) + ".")
    if p.erasures:
        scores = sum(int(str(e.get("n_scores", 0))) for e in p.erasures)
        when = ", ".join(sorted({str(e["at"]) for e in p.erasures}))
        later = sum(1 for e in p.erasures if e.get("after_ratings"))
        lines.append(
            f"- {len(p.erasures)} participant(s)' data were erased at their request or on "
            f"withdrawal ({when}; {scores} scores), {later} of them after other ratings had "
            "come in; every figure here is computed without them."
        )
    return lines


def _column_notes(questionnaire: Questionnaire) -> dict[str, str]:
    """The ratings table's columns in words; `dimension` holds the question's key."""
    if questionnaire == DEFAULT_QUESTIONNAIRE:
        return RATINGS_COLUMNS
    keys = ", ".join(questionnaire.keys)
    choice = "; a choice question's score is the choice's position, from 1"
    asked = f"the question's key ({keys}; see Protocol)"
    return {**RATINGS_COLUMNS, "dimension": asked, "score": f"the score given{choice}"}


def _files_section(
    report: Mapping[str, Any], withheld: Sequence[str] = (), files: Sequence[str] = ()
) -> list[str]:
    notes = _column_notes(asked(report))
    columns = [[name, text] for name, text in notes.items() if name not in withheld]
    aspects = (
        [f"- `{ASPECTS_FILE}`: the aspect checklist, one row per annotator, pair, response and "
         "rubric aspect (coverage 0 not covered, 1 partly, 2 well)."]
        if "aspects" in report
        else []
    )  # fmt: skip
    return [
        "## Files",
        "",
        f"- `{RATINGS_FILE}`: one row per score.",
        *aspects,
        *(
            [
                f"- `{SPANS_FILE}`: one row per span marked in a response: its label, `start` "
                "and `end` in code points of the stored response, and that `text`."
            ]
            if SPANS_FILE in files
            else []
        ),
        *_preference_lines(files),
        "- `report.json`, `report.md`, `report.html`: the full validation report.",
        *(
            [
                f"- `{PLAN_FILE}`: the pre-registered analysis plan with every change "
                "(`python -m analysis report ratings.parquet` reads it)."
            ]
            if "plan" in report
            else []
        ),
        f"- `{RATINGS_CSV}`: the same rows as CSV (for R, which has no Parquet reader in Debian).",
        "- `reproduce.R` (lme4/lmerTest) and `reproduce.py` (its Python twin): recompute each "
        "dimension's estimate, 95% interval, Satterthwaite df, TOST, superiority test and "
        "verdict, the study verdict and the report's Krippendorff's alphas (per dimension "
        "ordinal, interval and on the chosen - rejected difference; the rubric preference), "
        "from the ratings and the settings in `report.json`.",
        "",
        *table(["column", "meaning"], columns),
        "",
        *_reproduce_lines(report),
        "",
        "```python",
        "import pandas as pd",
        f'ratings = pd.read_parquet("{RATINGS_FILE}")',
        '# or: datasets.load_dataset(".", "ratings"): each config by its name',
        "```",
    ]


def _preference_lines(files: Sequence[str]) -> list[str]:
    if PREFERENCE_FILE not in files:
        return []
    return [
        f"- `{PREFERENCE_FILE}` (config `preference`): the pairs in TRL's preference format "
        "(`prompt`, `chosen`, `rejected`) with each pair's human agreement, verdict and whether "
        "its label held; `label_held` true keeps the pairs the human majority agrees with.",
        f"- `{CROISSANT_FILE}`: Croissant metadata of the tables, with its responsible-AI fields.",
    ]


def _reproduce_lines(report: Mapping[str, Any]) -> list[str]:
    """How to rerun the analysis, and what it prints (the figures above, to their last digit)."""
    return [
        "### Reproduce the verdict",
        "",
        "`Rscript reproduce.R .` (Debian: `apt-get install r-cran-lme4 r-cran-lmertest "
        f"r-cran-pbkrtest`; reads `{RATINGS_CSV}`) or `python reproduce.py .` "
        "(needs prb-annotate's `analysis` "
        "package) prints, per dimension, the estimate, 95% interval, df, TOST p, superiority p "
        "and verdict, then the ordinal, interval and difference alphas, then the study verdict. "
        "Only digits that reproduce are printed: both give these lines (a figure lying on a "
        "rounding boundary may differ by one in its last digit).",
        "",
        "```text",
        *reproduced_output(report),
        "```",
    ]


def dataset_card(protocol: Protocol, report: Mapping[str, Any]) -> str:
    """The README.md of the published folder."""
    body = [
        f"# Human validation: {markdown_text(protocol.study)}",
        "",
        f"Ratings of {report['n_pairs']} benchmark pairs by {report['n_annotators']} "
        f"annotators ({report['n_scores']} scores), collected with prb-annotate, and the "
        "validation report computed from them.",
        "",
        *protocol_lines(protocol, report),
        "",
        *verdict_section(report, protocol.questionnaire),
        "",
        *missing_section(report),
        "",
        *plan_section(report),
        "",
        *agreement_section(report),
        "",
        *models_section(report),
        *spans_section(report),
        "",
        *downstream_section(report),
        "",
        *_exclusions_section(protocol, report),
        "",
        *_privacy_section(protocol),
        "",
        *_files_section(
            report,
            [f for f in protocol.free_text if f not in protocol.disclosed],
            protocol.files,
        ),
    ]
    text = "\n".join(body).replace("\n\n\n", "\n\n") + "\n"
    return card_text(front_matter_data(protocol), text)


def folder_name(study: str) -> str:
    """A folder name for the study's card: its name with anything but letters, digits, '.',
    '_' and '-' replaced."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", study).strip(".-")
    return f"{safe or 'study'}-card"


def write_folder(folder: Path, files: Mapping[str, bytes]) -> list[Path]:
    """Write `files` (name -> bytes) into `folder`, which must not exist or be empty: written
    to a temporary folder beside it, then renamed into place (never half a folder)."""
    folder = folder.resolve()
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise Conflict(f"{folder} already exists and is not an empty folder; choose a new one")
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        staging.chmod(0o755)  # mkdtemp's folder is private; a folder to publish is not
        for name, data in files.items():
            (staging / name).write_bytes(data)
        if folder.exists():
            folder.rmdir()
        staging.rename(folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return [folder / name for name in files]
