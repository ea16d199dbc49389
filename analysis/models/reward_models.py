"""Reward models against humans, pair by pair (issue 13).

Inputs are plain tables, built by the service layer from the database (no database code here):

* ``ratings``: the ratings export (one row per score: pair_id, domain, annotator, response, side,
  dimension, score);
* ``predictions``: one row per (model, pair) with the columns of
  ``annotate.domain.models.reward_models.PREDICTION_COLUMNS`` (model, kind, pair_id, domain,
  score_chosen, score_rejected, prediction, pos_in_a, correct, parse_failed, status).

Definitions (also in the report's ``methods``):

* an annotator's **vote** on a pair: chosen, rejected or tie, by the sign of their
  rubric-alignment score of chosen minus rejected; the **human verdict** is the vote most
  annotators cast, and ``tie`` when no vote has more annotators than every other;
* a model's **preference**: pointwise, the sign of score(chosen) - score(rejected) (equal scores:
  tie, which counts as wrong, as in the benchmark's script); pairwise, chosen when the judge
  picked the side chosen was on;
* **correct**: the model (or the human verdict) prefers chosen. Pointwise pairs with one score
  or a non-finite score are left out of the accuracies and counted; pairwise parse failures stay
  in with the prediction the benchmark's script gave them (it counts them so) and are counted.
"""

from __future__ import annotations

import warnings
from typing import cast

import numpy as np
import pandas as pd
from scipy import stats

from analysis.core.human_verdicts import (
    annotator_votes,
    audited_pairs,
    human_verdicts,
    label_audit,
)
from analysis.inference.accuracy import (
    REWARD_MODEL_REFERENCE,
    REWARD_MODEL_SOURCE,
    TIES_COUNT_AS,
    wilson_interval,
)
from analysis.inference.crossed import (
    crossed_mean,
)
from analysis.schema.jsonable import to_jsonable
from analysis.schema.model_types import (
    AuditRow,
    Correlation,
    McNemar,
    ModelDomain,
    Proportion,
    RewardModelResult,
)
from analysis.schema.questions import report_questionnaire, target_key
from analysis.schema.report_types import Report
from annotate.questionnaire import DEFAULT_QUESTIONNAIRE, Questionnaire
from annotate.vocabulary import (
    VERDICTS,
    ModelKind,
    PredictionStatus,
    Verdict,
)

MCNEMAR_EXACT_BELOW = 25
"""McNemar: with fewer discordant pairs than this, the exact binomial test is used."""
CHOSEN_AT = {True: "chosen_at_A", False: "chosen_at_B"}

METHODS = (
    "Human verdict per pair: the rubric-alignment vote (chosen > rejected: chosen, <: rejected, "
    "=: tie) cast by most of its annotators; tie when no vote leads. Model preference: pointwise, "
    "sign of score(chosen) - score(rejected), equal scores a tie counted wrong (as the "
    "benchmark's evaluation/pointwise.py); pairwise, chosen when prediction is the side chosen "
    "was on; parse failures keep the prediction the benchmark's script gave them and are counted "
    "as it counts them. Pointwise pairs with one score or a non-finite score are left out and "
    "counted. accuracy_all: all of a model's pairs in the study; accuracy_rated: the pairs with "
    "a human verdict; Wilson 95% intervals. human_accuracy_same_pairs: on those pairs, the "
    "report's headline human accuracy (a single annotator puts chosen above rejected, ties as "
    "half; interval over pairs and annotators); human_majority_accuracy_same_pairs: share of "
    "those pairs whose majority verdict is chosen (Wilson). agreement: "
    "share of those pairs where model preference = human verdict; kappa: Cohen's kappa over "
    "chosen/rejected/tie. McNemar on model-correct vs human-correct: exact two-sided binomial "
    f"test of the discordant counts when there are fewer than {MCNEMAR_EXACT_BELOW} (R: "
    "binom.test(b, b + c)), else chi-squared with continuity correction (R: mcnemar.test "
    "default, correct = TRUE). margin_correlation: Spearman's rho of the score margin with each "
    "dimension's mean human margin (chosen - rejected). position: accuracy by the side chosen "
    "was shown on (the model's pos_in_a; the annotators' drawn side, per annotator-pair). "
    "label_audit: pairs whose human verdict is rejected or tie, strongest evidence first "
    "(mean_rubric_diff x sqrt(n_annotators), lowest first)."
)


# ---------------------------------------------------------------- statistics


def cohen_kappa(first: np.ndarray, second: np.ndarray, categories: tuple[str, ...]) -> float | None:
    """Cohen's kappa of two raters' labels on the same items (None when undefined)."""
    n = len(first)
    if n == 0:
        return None
    observed = float(np.mean(first == second))
    expected = sum(float(np.mean(first == c)) * float(np.mean(second == c)) for c in categories)
    if expected >= 1:
        return None
    return (observed - expected) / (1 - expected)


def mcnemar_test(model_correct: np.ndarray, human_correct: np.ndarray) -> McNemar:
    """McNemar's test of paired correctness: exact binomial below MCNEMAR_EXACT_BELOW discordant
    pairs, else chi-squared with continuity correction (as R's ``mcnemar.test``)."""
    b = int(np.sum(model_correct & ~human_correct))
    c = int(np.sum(~model_correct & human_correct))
    n = len(model_correct)
    statistic: float | None = None
    if n == 0:
        p, method = None, None
    elif b + c < MCNEMAR_EXACT_BELOW:
        p = 1.0 if b + c == 0 else float(stats.binomtest(b, b + c, 0.5).pvalue)
        method = "exact binomial"
    else:
        statistic = (abs(b - c) - 1) ** 2 / (b + c)
        p = float(stats.chi2.sf(statistic, 1))
        method = "chi-squared with continuity correction"
    return {
        "n_pairs": n,
        "model_only_correct": b,
        "human_only_correct": c,
        "statistic": statistic,
        "p": p,
        "method": method,
    }


def proportion(successes: np.ndarray) -> Proportion:
    n = len(successes)
    wins = int(np.sum(successes))
    return {
        "n": n,
        "accuracy": wins / n if n else None,
        "ci95": wilson_interval(wins, n),
    }


def spearman(x: np.ndarray, y: np.ndarray) -> Correlation:
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    n = len(x)
    if n < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return {"n": n, "spearman_rho": None, "p": None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = stats.spearmanr(x, y)
    return {"n": n, "spearman_rho": float(result.statistic), "p": float(result.pvalue)}


# ---------------------------------------------------------------- models


def model_preferences(predictions: pd.DataFrame) -> pd.DataFrame:
    """The predictions with ``usable``, ``preference`` and ``model_correct`` columns."""
    out = predictions.copy()
    pointwise = (out["kind"] == ModelKind.POINTWISE).to_numpy()
    chosen = pd.to_numeric(out["score_chosen"], errors="coerce").to_numpy(float)
    rejected = pd.to_numeric(out["score_rejected"], errors="coerce").to_numpy(float)
    margin = chosen - rejected
    judged = out["correct"].fillna(False).astype(bool).to_numpy()
    out["score_margin"] = np.where(pointwise, margin, np.nan)
    out["usable"] = ~pointwise | (out["status"] == PredictionStatus.OK).to_numpy()
    point_pref = np.where(
        margin > 0, Verdict.CHOSEN.value, np.where(margin < 0, Verdict.REJECTED.value, "tie")
    )
    pair_pref = np.where(judged, Verdict.CHOSEN.value, Verdict.REJECTED.value)
    out["preference"] = np.where(pointwise, point_pref, pair_pref)
    out["model_correct"] = out["preference"] == Verdict.CHOSEN.value
    return out


def compare_model(
    predictions: pd.DataFrame,
    verdicts: pd.DataFrame,
    votes: pd.DataFrame,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> RewardModelResult:
    """Every figure of one model (its rows of ``model_preferences``) against the humans."""
    kind = str(predictions["kind"].iloc[0])
    usable = predictions[predictions["usable"]]
    humans = verdicts.drop(columns="domain").reset_index()
    rated = usable.merge(humans, on="pair_id", how="inner")
    model_correct = rated["model_correct"].to_numpy(bool)
    human_correct = (rated["verdict"] == Verdict.CHOSEN.value).to_numpy()
    overall = proportion(usable["model_correct"].to_numpy(bool))
    on_rated = proportion(model_correct)
    human_share = proportion(human_correct)
    single = single_annotator_accuracy(votes, rated["pair_id"])
    mcnemar = mcnemar_test(model_correct, human_correct)
    statuses = predictions["status"]
    return {
        "kind": kind,
        "n_pairs": overall["n"],
        "n_predictions": len(predictions),
        "n_missing_score": int(np.sum(statuses == PredictionStatus.MISSING_SCORE)),
        "n_non_finite": int(np.sum(statuses == PredictionStatus.NON_FINITE)),
        "n_parse_failed": int(np.sum(statuses == PredictionStatus.PARSE_FAILED)),
        "accuracy_all": overall["accuracy"],
        "accuracy_all_ci95": overall["ci95"],
        "n_rated": on_rated["n"],
        "accuracy_rated": on_rated["accuracy"],
        "accuracy_rated_ci95": on_rated["ci95"],
        "human_accuracy_same_pairs": single[0],
        "human_accuracy_same_pairs_ci95": single[1],
        "human_majority_accuracy_same_pairs": human_share["accuracy"],
        "human_majority_accuracy_same_pairs_ci95": human_share["ci95"],
        "agreement": float(np.mean(rated["preference"] == rated["verdict"]))
        if len(rated)
        else None,
        "kappa": cohen_kappa(rated["preference"].to_numpy(), rated["verdict"].to_numpy(), VERDICTS),
        "mcnemar_p": mcnemar["p"],
        "mcnemar": mcnemar,
        "accuracy_where_humans_agree": proportion(model_correct[human_correct]),
        "accuracy_where_humans_disagree": proportion(model_correct[~human_correct]),
        "margin_correlation": _margin_correlation(rated, questionnaire)
        if kind == ModelKind.POINTWISE
        else None,
        "position": _model_position(usable) if kind == ModelKind.PAIRWISE else None,
        "human_position": human_position(votes) if kind == ModelKind.PAIRWISE else None,
        "by_domain": _by_domain(usable, rated),
    }


def single_annotator_accuracy(
    votes: pd.DataFrame, pair_ids: pd.Series
) -> tuple[float | None, list[float] | None]:
    """The report's headline human accuracy on these pairs: the probability that a single
    annotator's rubric vote is chosen (a tie as half), with its interval over pairs and
    annotators (:func:`analysis.inference.crossed.crossed_mean`)."""
    pair = votes.index.get_level_values("pair_id")
    here = votes[pair.isin(set(pair_ids))]
    if here.empty:
        return None, None
    vote = here["vote"].to_numpy()
    credit = np.where(
        vote == Verdict.CHOSEN.value, 1.0, np.where(vote == "tie", TIES_COUNT_AS, 0.0)
    )
    fit = crossed_mean(
        credit,
        here.index.get_level_values("pair_id").to_numpy(),
        here.index.get_level_values("annotator").to_numpy(),
    )
    ci = None if fit.ci is None else [max(0.0, fit.ci[0]), min(1.0, fit.ci[1])]
    return fit.estimate, ci


def _agreement(rated: pd.DataFrame) -> float | None:
    return float(np.mean(rated["preference"] == rated["verdict"])) if len(rated) else None


def _by_side(correct: np.ndarray, at_a: np.ndarray) -> dict[str, Proportion]:
    return {
        CHOSEN_AT[True]: proportion(correct[at_a]),
        CHOSEN_AT[False]: proportion(correct[~at_a]),
    }


def _margin_correlation(
    rated: pd.DataFrame, questionnaire: Questionnaire
) -> dict[str, Correlation]:
    """Spearman's rho of the model's score margin with the humans' mean difference on each
    scale question: the ``diverge`` questions first, then ``tie``, then ``describe``."""
    margin = rated["score_margin"].to_numpy(float)
    order = (*questionnaire.diverge_keys, *questionnaire.tie_keys, *questionnaire.describe_keys)
    return {
        dim: spearman(margin, rated[f"margin_{dim}"].to_numpy(float))
        for dim in order
        if f"margin_{dim}" in rated
    }


def _model_position(usable: pd.DataFrame) -> dict[str, Proportion]:
    at_a = usable["pos_in_a"].astype(bool).to_numpy()
    correct = usable["model_correct"].to_numpy(bool)
    return _by_side(correct, at_a)


def human_position(votes: pd.DataFrame) -> dict[str, Proportion]:
    """The annotators' accuracy (vote = chosen) by the side chosen was shown on."""
    correct = (votes["vote"] == Verdict.CHOSEN.value).to_numpy()
    at_a = (votes["chosen_side"] == "A").to_numpy()
    return _by_side(correct, at_a)


def _by_domain(usable: pd.DataFrame, rated: pd.DataFrame) -> dict[str, ModelDomain]:
    out: dict[str, ModelDomain] = {}
    for domain in sorted(usable["domain"].unique()):
        overall = proportion(usable.loc[usable["domain"] == domain, "model_correct"].to_numpy(bool))
        here = rated[rated["domain"] == domain]
        on_rated = proportion(here["model_correct"].to_numpy(bool))
        humans = proportion((here["verdict"] == Verdict.CHOSEN.value).to_numpy())
        out[str(domain)] = {
            "n_pairs": overall["n"],
            "accuracy_all": overall["accuracy"],
            "accuracy_all_ci95": overall["ci95"],
            "n_rated": on_rated["n"],
            "accuracy_rated": on_rated["accuracy"],
            "accuracy_rated_ci95": on_rated["ci95"],
            "human_accuracy_same_pairs": humans["accuracy"],
        }
    return out


# ---------------------------------------------------------------- the label audit, for CSV


def label_audit_frame(
    ratings: pd.DataFrame,
    predictions: pd.DataFrame | None = None,
    comments: pd.DataFrame | None = None,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> pd.DataFrame:
    """The audit as a table for CSV: the JSON fields plus the votes, every annotator's rubric
    scores (``name: chosen/rejected``), their comments and how many models got the pair wrong."""
    votes = annotator_votes(ratings, questionnaire)
    audit = audited_pairs(human_verdicts(votes, questionnaire))
    target = target_key(questionnaire)
    rubric = ratings[(ratings["dimension"] == target) & ratings["pair_id"].isin(audit["pair_id"])]
    table = rubric.pivot_table(
        index=["pair_id", "annotator"], columns="response", values="score", aggfunc="mean"
    ).reindex(columns=["chosen", "rejected"])
    cells = [
        f"{who}: {chosen:g}/{rejected:g}"
        for who, chosen, rejected in zip(
            table.index.get_level_values("annotator"),
            table["chosen"],
            table["rejected"],
            strict=True,
        )
    ]
    joined = pd.Series(cells, index=table.index.get_level_values("pair_id"), dtype=object)
    scores = joined.groupby(level=0).agg("; ".join).to_dict()
    columns = ["pair_id", "domain", "verdict", "n_annotators", "mean_rubric_diff"]
    out = audit[columns + [f"n_{v}" for v in VERDICTS]].rename(
        columns={"verdict": "human_majority"}
    )
    texts = _joined_comments(comments)
    out["rubric_scores_chosen_rejected"] = [scores.get(p, "") for p in out["pair_id"]]
    out["comments"] = [texts.get(str(p), "") for p in out["pair_id"]]
    if predictions is not None and len(predictions):
        prefs = model_preferences(predictions)
        wrong = prefs[prefs["usable"] & ~prefs["model_correct"]]
        out["models_wrong"] = out["pair_id"].map(wrong.groupby("pair_id").size()).fillna(0)
        out["models_wrong"] = out["models_wrong"].astype(int)
    return out.reset_index(drop=True)


def _joined_comments(comments: pd.DataFrame | None) -> dict[str, str]:
    if comments is None or comments.empty:
        return {}
    return {
        str(pair): " | ".join(
            f"{a}: {c}" for a, c in zip(g["annotator"], g["comment"], strict=True)
        )
        for pair, g in comments.groupby("pair_id")
    }


# ---------------------------------------------------------------- the report's keys


def reward_models_section(
    ratings: pd.DataFrame,
    predictions: pd.DataFrame,
    questionnaire: Questionnaire = DEFAULT_QUESTIONNAIRE,
) -> tuple[dict[str, RewardModelResult], list[AuditRow]]:
    """``reward_models`` (by model name) and ``label_audit`` of the report: the humans'
    votes are on the questionnaire's target question."""
    votes = annotator_votes(ratings, questionnaire)
    verdicts = human_verdicts(votes, questionnaire)
    prefs = model_preferences(predictions) if len(predictions) else predictions
    models = {
        str(name): compare_model(rows, verdicts, votes, questionnaire)
        for name, rows in (prefs.groupby("model", sort=True) if len(prefs) else [])
    }
    return models, label_audit(verdicts)


def attach_reward_models(
    report: Report, ratings: pd.DataFrame, predictions: pd.DataFrame
) -> Report:
    """The report with its ``reward_models`` and ``label_audit`` keys (and their methods)."""
    models, audit = reward_models_section(ratings, predictions, report_questionnaire(report))
    extended = dict(report)
    extended["reward_models"] = models
    extended["label_audit"] = audit
    extended["methods"] = {**report["methods"], "reward_models": METHODS}
    return cast(Report, to_jsonable(extended))


REFERENCE_NOTE = (
    f"No reward model imported: the reference is {REWARD_MODEL_REFERENCE:.2%}, the "
    f"{REWARD_MODEL_SOURCE}; import models with `prb-annotate models import`."
)
