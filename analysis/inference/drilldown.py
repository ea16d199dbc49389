"""Drill-down: the pairs behind each figure of the validation report, the most telling first.

A figure is named ``kind:dimension`` (or ``accuracy``); :data:`FIGURES` lists them all:

- ``agreement:<dim>`` (Krippendorff's alpha on a dimension): the pairs rated by two or more
  annotators, the most disagreeing first. ``score_sd`` is the SD of the annotators' scores of
  the same response, pooled over chosen and rejected (the square root of the mean of the two
  variances, ddof=1; a response scored once adds no variance): alpha's observed disagreement
  on a unit is this variance. Ties are broken by ``diff_sd``, the SD of the annotators'
  chosen - rejected differences (what ``alpha_difference`` measures).
- ``agreement:preference`` (nominal alpha on which response each annotator scored higher on
  rubric alignment): ``disagreement`` is 1 - the share of the pair's most common vote.
- ``verdict:<dim>`` (the paired chosen-vs-rejected test): every pair with both means,
  ``mean_diff`` = mean chosen - mean rejected over all the pair's scores (as the test uses it).
  The general dimensions should tie: the largest ``|mean_diff|`` first; rubric alignment should
  diverge: the smallest ``mean_diff`` (rejected at or above chosen) first.
- ``accuracy`` (human accuracy, strict): the pairs the figure does not count as a win first
  (``outcome`` rejected higher, then tie, then chosen higher; by ``mean_diff`` within), with
  the annotators' votes and their majority beside it.

Every table has ``pair_id``, ``domain``, the figure's measures, ``n_annotators``,
``mean_chosen``, ``mean_rejected``, ``mean_diff`` and ``scores``: each annotator's chosen/rejected
scores on the figure's dimension (``ana 4/2; ben 5/-``). The ratings are a validated export
frame of one study (:func:`analysis.core.ratings.validate_ratings`), excluded pairs already left
out.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from analysis.core.coded import scale_keys
from analysis.core.human_verdicts import annotator_votes, human_verdicts
from analysis.core.ratings import ordinary_rows
from analysis.inference.paired import DIFF_DECIMALS
from analysis.schema.questions import target_key
from annotate.errors import Invalid
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire
from annotate.vocabulary import RESPONSES, Verdict

PREFERENCE = "preference"
ACCURACY = "accuracy"
MISSING = "-"
OUTCOMES = ("rejected higher", "tie", "chosen higher")  # the order of the accuracy table


def figures(questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE) -> dict[str, str]:
    """Figure name -> a short human label (the app's selector, the CLI's help), for each
    scale question of ``questionnaire`` (the target's preference and accuracy with one)."""
    keys, labels = scale_keys(questionnaire), questionnaire.labels
    out = {f"agreement:{dim}": f"Agreement on {labels[dim].lower()}" for dim in keys}
    if questionnaire.target is not None:
        out[f"agreement:{PREFERENCE}"] = "Agreement on the rubric preference"
    for dim in keys:
        expected = _expected(questionnaire, dim)
        out[f"verdict:{dim}"] = f"Chosen vs rejected ({expected}) on {dim.replace('_', ' ')}"
    if questionnaire.target is not None:
        out[ACCURACY] = "Human accuracy (strict)"
    return out


def _expected(questionnaire: Questionnaire, dim: str) -> str:
    return "divergence" if dim in questionnaire.diverge_keys else "tie"


FIGURES: dict[str, str] = figures()
"""The figures of the default questionnaire."""
FIGURE_HELP = (
    "The figure: "
    + ", ".join(FIGURES)
    + " (for a study's own questions: agreement:KEY and verdict:KEY of its scale questions)."
)
"""The `--figure` option's help, in both command lines."""

ORDER_NOTES: dict[str, str] = {
    "agreement": "Pairs rated by two or more annotators, the most disagreeing first: score_sd is "
    "the SD of the annotators' scores of the same response (pooled over chosen and rejected), "
    "then diff_sd, the SD of their chosen - rejected differences.",
    PREFERENCE: "Pairs with two or more rubric votes, the most split first: disagreement is "
    "1 - the share of the most common vote (chosen, tie, rejected).",
    "tie": "Pairs with chosen and rejected scores, the largest |mean chosen - mean rejected| "
    "first (the general dimensions should tie).",
    "divergence": "Pairs with chosen and rejected scores, the smallest mean chosen - mean "
    "rejected first (rubric alignment should diverge: rejected at or above chosen first).",
    ACCURACY: "The pairs the strict accuracy does not count as a win first (rejected higher, "
    "then ties), by mean chosen - mean rejected on rubric alignment.",
}


def figure_note(figure: str, questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE) -> str:
    """How the figure's pairs are chosen and ordered, in one sentence or two."""
    kind, dim = parse_figure(figure, questionnaire)
    if kind == "verdict":
        return ORDER_NOTES[_expected(questionnaire, dim)]
    return ORDER_NOTES[PREFERENCE if dim == PREFERENCE else kind]


def parse_figure(
    figure: str, questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE
) -> tuple[str, str]:
    """(kind, question key) of a figure name; Invalid, naming the figures, when it is none."""
    named = figures(questionnaire)
    if figure not in named:
        raise Invalid(f"unknown figure {figure!r}; expected one of: {', '.join(named)}")
    if figure == ACCURACY:
        return ACCURACY, target_key(questionnaire)
    kind, dim = figure.split(":", 1)
    return kind, dim


def figure_pairs(
    ratings: pd.DataFrame,
    figure: str,
    domain: str | None = None,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> pd.DataFrame:
    """The pairs behind ``figure`` (within ``domain`` when given), most telling first."""
    kind, dim = parse_figure(figure, questionnaire)
    ratings = ordinary_rows(ratings)  # no skip rows, no adjudications: as in the figures
    if ratings.empty:
        raise Invalid("no ratings yet: no pair is behind any figure")
    if domain is not None:
        domains = sorted(ratings["domain"].astype(str).unique())
        if domain not in domains:
            raise Invalid(f"no rated pair in domain {domain!r}; domains: {', '.join(domains)}")
        ratings = ratings[ratings["domain"] == domain]
    builders: dict[str, Callable[[pd.DataFrame, str, Questionnaire], pd.DataFrame]] = {
        "agreement": _preference_pairs if dim == PREFERENCE else _agreement_pairs,
        "verdict": _verdict_pairs,
        ACCURACY: _accuracy_pairs,
    }
    target = target_key(questionnaire) if dim == PREFERENCE else dim
    table = builders[kind](ratings, target, questionnaire)
    return table.reset_index(drop=True)


def pair_scores(ratings: pd.DataFrame, dim: str) -> pd.DataFrame:
    """Per pair on ``dim``: domain, n_annotators, mean_chosen, mean_rejected, mean_diff (NaN
    without both) and ``scores`` (each annotator's chosen/rejected, by annotator name)."""
    rows = ratings[ratings["dimension"] == dim]
    wide = rows.pivot_table(
        index=["pair_id", "annotator"], columns="response", values="score", aggfunc="mean"
    ).reindex(columns=["chosen", "rejected"])
    means = rows.pivot_table(
        index="pair_id", columns="response", values="score", aggfunc="mean"
    ).reindex(columns=["chosen", "rejected"])
    grouped = wide.groupby(level="pair_id", sort=True)
    out = pd.DataFrame(
        {
            "domain": rows.groupby("pair_id", sort=True)["domain"].first(),
            "n_annotators": grouped.size(),
            "mean_chosen": means["chosen"],
            "mean_rejected": means["rejected"],
        }
    )
    out["mean_diff"] = (out["mean_chosen"] - out["mean_rejected"]).round(DIFF_DECIMALS)
    labels = [
        f"{who} {_score(c)}/{_score(r)}"
        for (_, who), c, r in zip(wide.index, wide["chosen"], wide["rejected"], strict=True)
    ]
    text = pd.Series(labels, index=wide.index).groupby(level="pair_id", sort=True)
    out["scores"] = text.agg("; ".join)
    out.index.name = "pair_id"
    return out


def _score(value: float) -> str:
    if np.isnan(value):
        return MISSING
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _agreement_pairs(ratings: pd.DataFrame, dim: str, _: Questionnaire) -> pd.DataFrame:
    rows = ratings[ratings["dimension"] == dim]
    per_unit = rows.groupby(["pair_id", "response"])["score"].agg(["var", "count"])
    per_unit = per_unit[per_unit["count"] >= 2]  # a unit alpha can pair
    pooled = np.sqrt(per_unit["var"].groupby(level="pair_id").mean())
    wide = rows.pivot_table(
        index=["pair_id", "annotator"], columns="response", values="score", aggfunc="mean"
    ).reindex(columns=["chosen", "rejected"])
    diff_sd = (wide["chosen"] - wide["rejected"]).groupby(level="pair_id").std(ddof=1)
    table = pair_scores(ratings, dim).loc[pooled.index]
    table.insert(1, "score_sd", pooled.round(DIFF_DECIMALS))
    table.insert(2, "diff_sd", diff_sd.reindex(table.index).round(DIFF_DECIMALS))
    table = table.reset_index()
    return table.sort_values(
        ["score_sd", "diff_sd", "pair_id"],
        ascending=[False, False, True],
        na_position="last",
        kind="stable",
    )


def _with_votes(
    table: pd.DataFrame, ratings: pd.DataFrame, questionnaire: Questionnaire
) -> pd.DataFrame:
    """Beside each pair: its votes on the target (n_chosen, n_tie, n_rejected) and their
    majority."""
    votes = annotator_votes(ratings, questionnaire)
    if votes.empty:
        columns = ["n_chosen", "n_tie", "n_rejected", "majority"]
        return table.assign(**{c: pd.Series(dtype=object) for c in columns})
    verdicts = human_verdicts(votes, questionnaire)
    for verdict in (Verdict.CHOSEN.value, "tie", Verdict.REJECTED.value):
        table[f"n_{verdict}"] = verdicts[f"n_{verdict}"].reindex(table.index).astype("Int64")
    table["majority"] = verdicts["verdict"].reindex(table.index)
    return table


def _preference_pairs(
    ratings: pd.DataFrame, dim: str, questionnaire: Questionnaire
) -> pd.DataFrame:
    table = _with_votes(pair_scores(ratings, dim), ratings, questionnaire)
    counts = table[["n_chosen", "n_tie", "n_rejected"]].astype(float)
    n_votes = counts.sum(axis=1)
    table = table[n_votes >= 2].copy()
    share = counts.loc[table.index].max(axis=1) / n_votes.loc[table.index]
    table.insert(1, "disagreement", (1 - share).round(DIFF_DECIMALS))
    table = table.reset_index()
    return table.sort_values(
        ["disagreement", "n_annotators", "pair_id"], ascending=[False, False, True], kind="stable"
    )


def _verdict_pairs(ratings: pd.DataFrame, dim: str, questionnaire: Questionnaire) -> pd.DataFrame:
    table = pair_scores(ratings, dim).dropna(subset=["mean_diff"]).reset_index()
    if dim in questionnaire.diverge_keys:
        return table.sort_values(["mean_diff", "pair_id"], kind="stable")
    table["abs_diff"] = table["mean_diff"].abs()
    ordered = table.sort_values(["abs_diff", "pair_id"], ascending=[False, True], kind="stable")
    return ordered.drop(columns="abs_diff")


def _accuracy_pairs(ratings: pd.DataFrame, dim: str, questionnaire: Questionnaire) -> pd.DataFrame:
    table = pair_scores(ratings, dim).dropna(subset=["mean_diff"])
    diff = table["mean_diff"].to_numpy(float)
    outcome = np.where(diff > 0, OUTCOMES[2], np.where(diff < 0, OUTCOMES[0], OUTCOMES[1]))
    table.insert(1, "outcome", outcome)
    table = _with_votes(table, ratings, questionnaire).reset_index()
    rank = table["outcome"].map({o: i for i, o in enumerate(OUTCOMES)})
    table = table.assign(_rank=rank)
    ordered = table.sort_values(["_rank", "mean_diff", "pair_id"], kind="stable")
    return ordered.drop(columns="_rank")


def annotator_scores(
    ratings: pd.DataFrame, pair_id: str, questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE
) -> pd.DataFrame:
    """One pair's scores: a row per annotator, a column per scale question (the
    questionnaire's order) holding ``chosen/rejected`` (``4/2``; ``-`` for a missing score)."""
    keys = scale_keys(questionnaire)
    rows = ratings[ratings["pair_id"] == pair_id]
    wide = rows.pivot_table(
        index="annotator", columns=["dimension", "response"], values="score", aggfunc="mean"
    )
    columns = pd.MultiIndex.from_tuples([(d, r) for d in keys for r in RESPONSES])
    wide = wide.reindex(columns=columns)
    out = pd.DataFrame({"annotator": wide.index})
    for dim in keys:
        pairs = zip(wide[(dim, "chosen")], wide[(dim, "rejected")], strict=True)
        out[dim] = [f"{_score(c)}/{_score(r)}" for c, r in pairs]
    return out
