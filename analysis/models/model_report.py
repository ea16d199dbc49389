"""The report's "Reward models" and "Label audit" sections: tables (text cells, escaped by each
renderer) and the accuracy chart, built from the report's `reward_models` and `label_audit`.

A report without models (no model imported, or built from a ratings file) shows the published
best accuracy as a labelled reference instead.
"""

from __future__ import annotations

import plotly.graph_objects as go

from analysis.inference.accuracy import REWARD_MODEL_REFERENCE, REWARD_MODEL_SOURCE
from analysis.schema.model_types import Interval, RewardModelResult
from analysis.schema.report_types import Report
from analysis.schema.style import HUMAN_COLOUR, MODEL_COLOUR
from analysis.schema.tables import DASH, Table, num, p_value, pct, pct_interval

MAX_AUDIT_ROWS = 50


def _models(report: Report) -> dict[str, RewardModelResult]:
    return report.get("reward_models") or {}


def reference_note() -> str:
    return (
        f"No reward model imported. Reference: {pct(REWARD_MODEL_REFERENCE, 2)}, the "
        f"{REWARD_MODEL_SOURCE} (a published figure, not measured here). Import models' "
        "results with `prb-annotate models import`."
    )


def reward_model_table(report: Report) -> Table:
    """One row per model: both accuracies with intervals, the humans on the same pairs,
    agreement, kappa, McNemar and the counted problems."""
    models = _models(report)
    headers = [
        "Model",
        "Kind",
        "Pairs",
        "Accuracy (all)",
        "Rated pairs",
        "Accuracy (rated) [95% CI]",
        "Humans, same pairs",
        "Agreement",
        "Kappa",
        "McNemar p",
        "Acc. where humans agree / not",
        "Left out / parse failures",
    ]
    rows = [_model_row(name, m) for name, m in models.items()]
    if not rows:
        return Table(
            headers=["Reference", "Accuracy"],
            rows=[
                ["Best reward model, published (not measured here)", pct(REWARD_MODEL_REFERENCE, 2)]
            ],
            numeric=[False, True],
            note=reference_note(),
        )
    note = (
        "Humans: the probability that a single annotator puts chosen above rejected on the "
        "rubric on the same pairs (ties as half; interval over pairs and annotators), as the "
        "report's human accuracy. "
        "McNemar: model-correct vs human-correct (exact binomial below 25 discordant pairs, "
        "else chi-squared with continuity correction). See methods.reward_models."
    )
    return Table(headers, rows, [False, False, *[True] * 10], note)


def _model_row(name: str, m: RewardModelResult) -> list[str]:
    left_out = m["n_missing_score"] + m["n_non_finite"]
    return [
        name,
        m["kind"],
        str(m["n_pairs"]),
        f"{pct(m['accuracy_all'])} {pct_interval(m['accuracy_all_ci95'])}",
        str(m["n_rated"]),
        f"{pct(m['accuracy_rated'])} {pct_interval(m['accuracy_rated_ci95'])}",
        f"{pct(m['human_accuracy_same_pairs'])} "
        f"{pct_interval(m['human_accuracy_same_pairs_ci95'])}",
        pct(m["agreement"]),
        num(m["kappa"], 3),
        p_value(m["mcnemar_p"]),
        f"{pct(m['accuracy_where_humans_agree']['accuracy'])} / "
        f"{pct(m['accuracy_where_humans_disagree']['accuracy'])}",
        f"{left_out} / {m['n_parse_failed']}",
    ]


def model_detail_table(report: Report) -> Table:
    """Per model and domain; the score-margin correlations and the position bias."""
    rows = []
    for name, m in _models(report).items():
        for domain, d in m["by_domain"].items():
            rows.append(
                [
                    name,
                    f"domain {domain}",
                    f"all {pct(d['accuracy_all'])} (n={d['n_pairs']}); rated "
                    f"{pct(d['accuracy_rated'])} (n={d['n_rated']}); humans "
                    f"{pct(d['human_accuracy_same_pairs'])}",
                ]
            )
        for dim, c in (m["margin_correlation"] or {}).items():
            rows.append(
                [
                    name,
                    f"score margin vs human {dim} margin",
                    f"rho {num(c['spearman_rho'], 3)}, p {p_value(c['p'])}, n={c['n']}",
                ]
            )
        if m["position"] is not None and m["human_position"] is not None:
            for side, acc in m["position"].items():
                human = m["human_position"][side]
                rows.append(
                    [
                        name,
                        f"accuracy, {side.replace('_', ' ')}",
                        f"model {pct(acc['accuracy'])} (n={acc['n']}); humans "
                        f"{pct(human['accuracy'])} (n={human['n']} annotator-pairs)",
                    ]
                )
    if not rows:
        rows = [[DASH, "no reward model imported", DASH]]
    return Table(["Model", "Breakdown", "Figures"], rows)


def label_audit_table(report: Report) -> Table:
    audit = report.get("label_audit") or []
    rows = [
        [
            a["pair_id"],
            a["domain"],
            a["human_majority"],
            str(a["n_annotators"]),
            num(a["mean_rubric_diff"], 2, signed=True),
        ]
        for a in audit[:MAX_AUDIT_ROWS]
    ]
    note = (
        f"{len(audit)} pairs whose human majority prefers the rejected response or sees no "
        "difference on the rubric, strongest evidence first"
        + (f" (first {MAX_AUDIT_ROWS} shown)" if len(audit) > MAX_AUDIT_ROWS else "")
        + "; the full list with scores and comments: `prb-annotate models audit --csv FILE`."
    )
    headers = ["Pair", "Domain", "Human majority", "Annotators", "Mean rubric diff"]
    return Table(headers, rows, [False, False, False, True, True], note)


def _errors(values: list[float | None], cis: list[Interval | None]) -> dict[str, object]:
    plus = [None if c is None or v is None else c[1] - v for v, c in zip(values, cis, strict=True)]
    minus = [None if c is None or v is None else v - c[0] for v, c in zip(values, cis, strict=True)]
    return {"type": "data", "array": plus, "arrayminus": minus, "symmetric": False}


def model_accuracy_figure(report: Report) -> go.Figure:
    """Each model's accuracy on the rated pairs beside the humans' on the same pairs (95% CIs);
    the published reference as a line when no model is imported."""
    models = _models(report)
    names = list(models)
    fig = go.Figure()
    series = (
        (
            "model",
            [models[n]["accuracy_rated"] for n in names],
            [models[n]["accuracy_rated_ci95"] for n in names],
            MODEL_COLOUR,
        ),
        (
            "humans, same pairs",
            [models[n]["human_accuracy_same_pairs"] for n in names],
            [models[n]["human_accuracy_same_pairs_ci95"] for n in names],
            HUMAN_COLOUR,
        ),
    )
    for label, values, cis, colour in series:
        fig.add_trace(
            go.Bar(name=label, x=names, y=values, marker_color=colour, error_y=_errors(values, cis))
        )
    if not names:
        fig.add_hline(
            y=REWARD_MODEL_REFERENCE,
            line_dash="dash",
            annotation_text=f"published best reward model {pct(REWARD_MODEL_REFERENCE, 2)} "
            "(reference; no model imported)",
        )
    fig.update_layout(
        title="Reward models vs humans on the rated pairs (95% CI)",
        template="plotly_white",
        height=380,
        barmode="group",
        yaxis={"title": "accuracy (prefers chosen)", "tickformat": ".0%", "range": [0, 1]},
    )
    return fig
