"""Write the made-up downstream demo files of `data/demo/downstream/` (see its README).

Run once from the repository root: `python scripts/make_demo_downstream.py`. Deterministic:
the same files every time. Nothing here is a result of any real model.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from annotate.domain.models.synthetic_models import model_outputs

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo"
OUT = DEMO / "downstream"
SUBSET = "Art_and_Entertainment"
SHORT = "Art"
# reward model -> (benchmark accuracy, questions where best-of-16 picks the personalised answer,
# questions where best-of-16 picks the same sample as best-of-1)
MODELS = {
    "madeup-rm-a": (0.78, 6, 2),
    "madeup-rm-b": (0.67, 4, 3),
    "madeup-rm-c": (0.59, 2, 4),
}


def write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")


def judge(rng: np.random.Generator, n: int, personal: bool) -> list[float]:
    weights = [0.1, 0.2, 0.7] if personal else [0.5, 0.35, 0.15]
    return [float(v) for v in rng.choice([0, 1, 2], size=n, p=weights)]


def evals(rng, records, outputs, field, aspects_text, broken=()) -> list[dict]:
    rows = []
    for record, output in zip(records, outputs, strict=True):
        personal = output[field] == record["chosen"]
        scores = judge(rng, len(record["rubric_aspects"]), personal)
        if record["id"] in broken:  # what the script's regular expression makes of a bad answer
            scores = [] if broken[record["id"]] == "empty" else [*scores[:-1], 3.0]
        rows.append({
            "id": record["id"], "query": record["question"], "answer": output[field],
            "aspects": aspects_text(record), "scores": scores,
            "average_score": float(np.mean(scores)) if scores else 0.0,
        })  # fmt: skip
    return rows


def main() -> None:
    records = [json.loads(line) for line in (DEMO / f"{SUBSET}_test.jsonl").open(encoding="utf-8")]
    ids = [r["id"] for r in records]
    rng = np.random.default_rng(20261205)
    aspects = lambda r: ", ".join(a["aspect"] for a in r["rubric_aspects"])  # noqa: E731
    for number, (model, (accuracy, personal, same)) in enumerate(MODELS.items()):
        results = list(model_outputs(ids, kind="pointwise", accuracy=accuracy, seed=30 + number))
        write(OUT / "benchmark_results" / f"{model}.jsonl", results)
        order = rng.permutation(len(records))
        picks = {records[i]["id"]: "chosen" for i in order[:personal]}
        picks |= {records[i]["id"]: "same" for i in order[personal : personal + same]}
        for k in (1, 16):
            rows = []
            for record in records:
                pick = picks.get(record["id"], "other") if k == 16 else "same"
                text = {"chosen": record["chosen"], "same": record["rejected"]}.get(
                    pick, record["rejected"] + " (Another sample, a little longer.)"
                )
                score = round(float(rng.random()), 4)
                rows.append({"id": record["id"], "query": record["question"], "output": text,
                             "aspects": aspects(record), "score": score})  # fmt: skip
            folder = OUT / "bon" / model
            write(folder / f"{SHORT}_k{k}.jsonl", rows)
            broken = {ids[0]: "empty"} if k == 16 and number == 0 else {}
            write(folder / f"{SHORT}_eval_k{k}.jsonl",
                  evals(rng, records, rows, "output", aspects, broken))  # fmt: skip
    for tag, personal in (("base", range(7, 9)), ("step300", range(6))):
        rows = []
        for n, record in enumerate(records):
            other = record["rejected"] + (" (A trained policy's sample.)" if tag != "base" else "")
            text = record["chosen"] if n in personal else other
            profile = "\n".join(
                f"Post {i} (Category: {p['category']}):\n{p['text']}"
                for i, p in enumerate(record["profile"][:5], 1)
            )
            rows.append({"id": record["id"], "question": record["question"], "profile": profile,
                         "evaluation": text, "aspects": record["rubric_aspects"]})  # fmt: skip
        write(OUT / "ppo" / f"{SHORT}_{tag}_inference.jsonl", rows)
        broken = {ids[1]: "off"} if tag == "step300" else {}
        write(OUT / "ppo" / f"{SHORT}_{tag}_evaluation.jsonl",
              evals(rng, records, rows, "evaluation", aspects, broken))  # fmt: skip


if __name__ == "__main__":
    main()
