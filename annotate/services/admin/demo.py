"""One-command demo: the bundled dataset, a demo study, and a demo annotator with a link."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session

from annotate.db import read_session, write_session
from annotate.db.tables import Annotator
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.dataset.importer import ImportSummary
from annotate.domain.study import accounts
from annotate.domain.study.permissions import SYSTEM
from annotate.domain.study.studies import get_or_create_study, get_study, list_studies
from annotate.services.admin.data import import_files
from annotate.services.admin.simulated import store_simulated_ratings
from annotate.services.results import downstream
from annotate.services.results.reward_models import import_model
from annotate.vocabulary import Role

DEMO_STUDY = "demo"
DEMO_SEED = 20260407
DEMO_ANNOTATOR = "demo-annotator"
DEMO_ADMIN = "demo-admin"
DEMO_COMPLETION_CODE = "PRB-DEMO-2026"


def demo_data_folder() -> Path:
    """`data/demo` of a source checkout, else of the working directory (the Docker image)."""
    beside_package = Path(__file__).resolve().parents[3] / "data" / "demo"
    return beside_package if beside_package.is_dir() else Path.cwd() / "data" / "demo"


@dataclass(frozen=True)
class DemoSetup:
    imported: ImportSummary
    annotator: str
    token: str
    assigned: int
    admin: str
    admin_token: str
    simulated_scores: int
    models: tuple[str, ...] = ()
    comparisons: tuple[str, ...] = ()  # the downstream demo's comparison studies


def set_up_demo(
    engine: Engine, data_folder: Path | None = None, *, simulated_annotators: int = 0
) -> DemoSetup:
    """Import the demo pairs, give them all to the demo annotator, and return fresh tokens for
    the demo annotator and the demo admin. With `simulated_annotators`, that many simulated
    annotators rate every pair too, so that the results page has something to show.

    Safe to run again: nothing is imported or simulated twice, and the demo accounts keep their
    ratings (only their tokens are renewed: a token is stored as a hash and cannot be shown again).
    """
    folder = data_folder or demo_data_folder()
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise FileNotFoundError(f"no demo data (*.jsonl) in {folder}")
    with write_session(engine) as session:
        study = get_or_create_study(session, DEMO_STUDY, seed=DEMO_SEED)
        study.completion_code = study.completion_code or DEMO_COMPLETION_CODE
        session.add(study)
    summary = import_files(engine, SYSTEM, files, study=DEMO_STUDY)
    with write_session(engine) as session:
        study = get_study(session, DEMO_STUDY)
        annotator, token = _account_with_fresh_token(session, DEMO_ANNOTATOR, Role.ANNOTATOR)
        _, admin_token = _account_with_fresh_token(session, DEMO_ADMIN, Role.ADMIN)
        created = assign_pairs(session, study, annotator, study_pairs(session, study))
    simulated = 0
    if simulated_annotators:
        simulated = store_simulated_ratings(  # the demo counts them, labelled as simulated
            engine,
            DEMO_STUDY,
            n_annotators=simulated_annotators,
            seed=DEMO_SEED,
            force=True,  # a re-run after the demo annotator rated in the app
            count=True,
        )
    models = _import_demo_models(engine, folder)
    comparisons: list[str] = []
    if simulated_annotators:  # the results page's demo: its Downstream section too
        comparisons = set_up_demo_downstream(engine, folder, simulated_annotators)
    return DemoSetup(
        summary,
        DEMO_ANNOTATOR,
        token,
        len(created),
        DEMO_ADMIN,
        admin_token,
        simulated,
        models,
        tuple(comparisons),
    )


DOWNSTREAM_STUDY = "demo-downstream"
DOWNSTREAM_EFFECTS = {"madeup-rm-a": 1.2, "madeup-rm-b": 0.6, "madeup-rm-c": 0.2}
"""The simulated annotators' rubric-alignment effect (best-of-16 minus best-of-1), made up."""


def set_up_demo_downstream(engine: Engine, folder: Path, n_annotators: int) -> list[str]:
    """The made-up downstream files of `downstream/` (see its README) in study
    `demo-downstream`, a comparison study per reward model and one for the policy, rated by
    `n_annotators` simulated annotators. Safe to run again. Returns the comparison studies."""
    base = folder / "downstream"
    with write_session(engine) as session:
        get_or_create_study(session, DOWNSTREAM_STUDY, seed=DEMO_SEED)
    import_files(engine, SYSTEM, [folder / "Art_and_Entertainment_test.jsonl"],
                 study=DOWNSTREAM_STUDY)  # fmt: skip
    made: list[str] = []
    for model, effect in DOWNSTREAM_EFFECTS.items():
        results = base / "benchmark_results" / f"{model}.jsonl"
        import_model(engine, SYSTEM, [results], study=DOWNSTREAM_STUDY, model=model)
        for k in (1, 16):
            downstream.import_condition(
                engine, SYSTEM, study=DOWNSTREAM_STUDY, condition=f"bon:{model}:k{k}",
                outputs_file=base / "bon" / model / f"Art_k{k}.jsonl",
                eval_file=base / "bon" / model / f"Art_eval_k{k}.jsonl",
            )  # fmt: skip
        made.append(_demo_comparison(engine, f"demo-bon-{model}", f"bon:{model}:k16",
                                     f"bon:{model}:k1", effect, n_annotators))  # fmt: skip
    for tag in ("base", "step300"):
        downstream.import_condition(
            engine, SYSTEM, study=DOWNSTREAM_STUDY, condition=f"ppo:madeup-policy:{tag}",
            outputs_file=base / "ppo" / f"Art_{tag}_inference.jsonl",
            eval_file=base / "ppo" / f"Art_{tag}_evaluation.jsonl",
        )  # fmt: skip
    made.append(_demo_comparison(engine, "demo-ppo", "ppo:madeup-policy:step300",
                                 "ppo:madeup-policy:base", 0.8, n_annotators))  # fmt: skip
    return made


def _demo_comparison(
    engine: Engine, name: str, expected: str, baseline: str, effect: float, n_annotators: int
) -> str:
    with read_session(engine) as session:
        exists = name in {s.name for s in list_studies(session)}
    if not exists:
        downstream.create_comparison(
            engine, SYSTEM, source_study=DOWNSTREAM_STUDY, name=name,
            expected=expected, baseline=baseline, seed=DEMO_SEED, overlap=n_annotators,
        )  # fmt: skip
    store_simulated_ratings(  # a demo study: counts its simulated ratings, labelled
        engine, name, n_annotators=n_annotators, effects={"rubric_alignment": effect},
        seed=DEMO_SEED, count=True,
    )  # fmt: skip
    return name


def _import_demo_models(engine: Engine, folder: Path) -> tuple[str, ...]:
    """The made-up model outputs of `model_outputs/` (see its README), one model per file,
    named after the file; imported again unchanged on a re-run."""
    names = []
    for path in sorted((folder / "model_outputs").glob("madeup-*.json*")):
        name = path.name.split(".")[0]
        import_model(engine, SYSTEM, [path], study=DEMO_STUDY, model=name)
        names.append(name)
    return tuple(names)


def _account_with_fresh_token(session: Session, name: str, role: str) -> tuple[Annotator, str]:
    existing = accounts.account_named(session, name)
    if existing is None:
        return accounts.create_account(session, name, role=role)
    return existing, accounts.rotate_token(session, name)
