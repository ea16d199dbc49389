"""Demo and serve commands of `prb-annotate`: synthetic data (datasets, simulated ratings and
their removal), the database's schema (upgrade, current revision), serve and the one-command demo.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from sqlalchemy.engine import Engine

from annotate.cli.common import (
    State,
    StudyOption,
    app,
    db_app,
    fail,
    out,
    refusals,
    synth_app,
)
from annotate.domain.study import accounts
from annotate.domain.study.studies import DEFAULT_STUDY
from annotate.services import database
from annotate.services.database import DatabaseUnreachable, open_database


@synth_app.command("dataset")
def synth_dataset(
    folder: Annotated[Path, typer.Argument(help="Folder for the three <Domain>_test.jsonl.")],
    scale: Annotated[float, typer.Option(help="Fraction of the full benchmark's size.")] = 1.0,
    profile_size: Annotated[int, typer.Option(help="Profile items per pair.")] = 120,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
) -> None:
    """Write a synthetic dataset shaped like the full benchmark (2,830 pairs)."""
    from annotate.domain.dataset.synthetic import write_synthetic_benchmark

    for path in write_synthetic_benchmark(
        folder, seed=seed, profile_size=profile_size, scale=scale
    ):
        out.print(str(path), highlight=False)


def _parse_effects(values: list[str]) -> dict[str, float]:
    from annotate.vocabulary import DIMENSIONS

    effects = {}
    for value in values:
        name, _, number = value.partition("=")
        if name not in DIMENSIONS or not number:
            raise fail(
                f"--effect takes DIMENSION=NUMBER with a dimension among "
                f"{', '.join(DIMENSIONS)}; got {value!r}"
            )
        try:
            effects[name] = float(number)
        except ValueError:
            raise fail(f"--effect {value!r}: {number!r} is not a number") from None
    return effects


@synth_app.command("ratings")
def synth_ratings(
    study: StudyOption = DEFAULT_STUDY,
    annotators: Annotated[int, typer.Option(help="Simulated annotators (sim-01...).")] = 5,
    effect: Annotated[
        list[str] | None,
        typer.Option(
            help="DIMENSION=POINTS: true chosen-minus-rejected difference; repeat. "
            "Default: rubric_alignment=1.5, the others 0."
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    count: Annotated[
        bool,
        typer.Option(
            "--count",
            help="The study counts simulated ratings in its verdict and card, labelled (a "
            "study setting, as `studies edit --count-simulated`); without it they are left out.",
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option("--force", help="Add them although the study holds real ratings (audited)."),
    ] = False,
) -> None:
    """Have simulated annotators rate every pair of a study (for demos and tests): scores, aspect
    marks, the direct preference and its rationale, as the study asks. Refused for a study with
    real ratings unless --force; audited; `synth remove` takes them out again."""
    from annotate.services.admin.simulated import store_simulated_ratings

    effects = _parse_effects(effect) if effect else None
    with refusals():
        stored = store_simulated_ratings(
            State.engine(),
            study,
            n_annotators=annotators,
            effects=effects,
            seed=seed,
            force=force,
            count=count,
        )
    counted = (
        "counted in the verdict and card"
        if count
        else "see `studies show` for whether the verdict counts them"
    )
    out.print(f"Stored {stored} simulated scores in study {study!r} ({counted}).", markup=False)


@synth_app.command("remove")
def synth_remove(study: StudyOption) -> None:
    """Remove every simulated rating of a study (scores, revisions, aspect marks, preferences,
    their assignments, and simulated accounts left with no work); real ratings stay. Audited."""
    from annotate.services.admin.simulated import remove_simulated

    with refusals():
        removed = remove_simulated(State.engine(), study)
    out.print(
        f"Removed {removed['scores']} simulated scores, {removed['assignments']} assignments "
        f"and {removed['accounts']} simulated accounts from study {study!r}.",
        markup=False,
    )


def _unupgraded_engine() -> Engine:
    """The database without the automatic upgrade that `State.engine()` runs."""
    try:
        return open_database(State.db, upgrade=False)
    except DatabaseUnreachable as error:
        raise fail(str(error)) from None


@db_app.command("upgrade")
def db_upgrade_command() -> None:
    """Upgrade the database to the current schema (every command and the app also do it at
    start; run this first when several app servers start at once). Back up first."""
    engine = _unupgraded_engine()
    try:
        with refusals():
            before = database.upgrade(engine)
    finally:
        engine.dispose()
    head = database.CURRENT_REVISION
    if before == head:
        out.print(f"Already at the current schema ({head}).", highlight=False)
    elif before is None:
        out.print(f"Created the tables ({head}).", highlight=False)
    else:
        out.print(f"Upgraded from {before} to {head}.", highlight=False)


@db_app.command("current")
def db_current_command() -> None:
    """Print the database's schema revision (without upgrading it)."""
    engine = _unupgraded_engine()
    try:
        with refusals():
            state = database.revision_of(engine)
    finally:
        engine.dispose()
    revision, detected, head = state.recorded, state.detected, state.head
    if revision is not None:
        note = " (current)" if revision == head else f" (current is {head})"
        out.print(f"{revision}{note}", highlight=False)
    elif detected is None:
        out.print("none: the database is empty", highlight=False)
    else:
        out.print(
            f"none recorded: made before migrations, schema of {detected} "
            f"(current is {head}; run `prb-annotate db upgrade`)",
            highlight=False,
        )


PortOption = Annotated[int, typer.Option(help="Port to serve the app on.")]


DEMO_ADDRESS = "127.0.0.1"


@app.command("serve")
def serve_command(
    port: PortOption = 8501,
    address: Annotated[str, typer.Option(help="Address to listen on.")] = "0.0.0.0",
) -> None:
    """Start the annotation app (Streamlit) on this database.

    Needs the session secret: $PRB_SESSION_SECRET, or $PRB_SESSION_SECRET_FILE naming a file only
    its owner can read (32 random bytes or more; the same on every app server)."""
    _serve(port, address)


def _serve(port: int, address: str) -> None:
    """Become the server process, or say why not (no good session secret)."""
    from annotate.cli.server import serve
    from annotate.config import SessionSecretError

    try:
        serve(State.db, port, address)
    except SessionSecretError as error:
        raise fail(f"not started: {error}") from None


@app.command("demo")
def demo_command(
    port: PortOption = 8501,
    simulated: Annotated[
        int, typer.Option(help="Simulated annotators who also rate every pair (for the results).")
    ] = 5,
    no_serve: Annotated[bool, typer.Option("--no-serve", help="Set up only.")] = False,
    address: Annotated[
        str,
        typer.Option(
            help="Address to listen on: this computer only by default (the demo's login links "
            "are printed here); 0.0.0.0 to let other machines in (e.g. in a container)."
        ),
    ] = DEMO_ADDRESS,
) -> None:
    """Set up the demo (bundled data, demo study, demo accounts), print the links, serve."""
    from annotate.cli.server import use_demo_secret
    from annotate.services.admin.demo import set_up_demo

    setup = set_up_demo(State.engine(), simulated_annotators=simulated)
    out.print(
        f"Demo study ready: {setup.imported.added} pairs imported "
        f"({setup.imported.unchanged} already there), {setup.assigned} newly assigned, "
        f"{setup.simulated_scores} simulated scores added; made-up reward-model outputs: "
        f"{', '.join(setup.models) or 'none'} (data/demo/model_outputs/README.md)."
    )
    if setup.comparisons:
        out.print(
            "Downstream demo (made-up files, data/demo/downstream/README.md): study "
            f"'demo-downstream' and its comparison studies {', '.join(setup.comparisons)}.",
            highlight=False,
            markup=False,
        )
    base = f"http://{demo_host(address)}:{port}"
    out.print(
        f"Annotator ({setup.annotator}): {accounts.login_link(setup.token, base)}",
        highlight=False,
        markup=False,
    )
    out.print(
        f"Admin ({setup.admin}): {accounts.login_link(setup.admin_token, base)}",
        highlight=False,
        markup=False,
    )
    if not no_serve:
        use_demo_secret(Path.cwd())
        _serve(port, address)


def demo_host(address: str) -> str:
    """The host of the demo's printed links: localhost for this computer or every address."""
    if address in (DEMO_ADDRESS, "0.0.0.0", "::", "localhost"):
        return "localhost"
    return f"[{address}]" if ":" in address else address
