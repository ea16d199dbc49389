"""The `prb-annotate` command line, driven like a user would (CliRunner and real processes)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pandas as pd
import pytest
import typer
from sqlmodel import select
from typer.testing import CliRunner, Result

from annotate.cli import commands
from annotate.cli.common import State, app
from annotate.db import make_engine, read_session
from annotate.db.tables import Annotator, Assignment
from annotate.domain.study import accounts
from annotate.services.participant.rating import submit_rating
from annotate.vocabulary import DIMENSIONS, EXPORT_COLUMNS, PROVENANCE_EXPORT_COLUMNS

REPO = Path(__file__).resolve().parents[3]
DEMO_DOMAINS = (
    "Art_and_Entertainment",
    "Lifestyle_and_Personal_Development",
    "Society_and_Culture",
)

Invoke = Callable[..., Result]


@pytest.fixture
def cli(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Invoke]:
    """Run `prb-annotate --db <test database> ARGS...`; the engine is closed afterwards."""
    monkeypatch.delenv("PRB_DATABASE_URL", raising=False)
    runner = CliRunner()

    def invoke(*args: str, db: str | None = db_url, env: dict[str, str] | None = None) -> Result:
        prefix = ["--db", db] if db else []
        try:
            return runner.invoke(app, [*prefix, *args], env=env)
        finally:
            if State._engine is not None:
                State._engine.dispose()

    return invoke


def no_traceback(result: Result) -> None:
    text = result.stdout + result.stderr
    assert "Traceback" not in text, text
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


def pair_counts(result: Result) -> dict[str, int]:
    """`prb-annotate pairs` output: {domain: count, 'total': n} (columns split on whitespace)."""
    counts = {}
    for line in result.stdout.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[1].isdigit():
            counts[fields[0]] = int(fields[1])
    return counts


def columns(result: Result, n: int) -> list[list[str]]:
    """Each output line split into n whitespace-separated columns (the last keeps its spaces)."""
    return [line.split(maxsplit=n - 1) for line in result.stdout.strip().splitlines()]


# ---------------------------------------------------------------- help


def _command_paths(command: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = [prefix]
    if hasattr(command, "commands"):
        for name, sub in sorted(command.commands.items()):
            paths.extend(_command_paths(sub, (*prefix, name)))
    return paths


commands.load_all()  # the whole tree: a command's modules load only when it runs
COMMAND_PATHS = _command_paths(typer.main.get_command(app))


def test_the_foundation_commands_exist():
    assert {
        ("import",),
        ("pairs",),
        ("export",),
        ("annotators",),
        ("annotators", "add"),
        ("annotators", "list"),
        ("synth", "dataset"),
    } <= set(COMMAND_PATHS)


@pytest.mark.parametrize("path", COMMAND_PATHS, ids=lambda p: " ".join(p) or "prb-annotate")
def test_help_on_every_command_and_subcommand(path):
    result = CliRunner().invoke(app, [*path, "--help"], prog_name="prb-annotate")
    assert result.exit_code == 0, result.output
    assert f"Usage: {' '.join(('prb-annotate', *path))} [OPTIONS]" in " ".join(
        result.stdout.split()
    )
    no_traceback(result)


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "annotate", "--help"],
        [shutil.which("prb-annotate") or str(Path(sys.executable).parent / "prb-annotate")],
    ],
    ids=["python -m annotate", "console script"],
)
def test_entry_points_run_as_real_processes(command, tmp_path):
    args = command if "--help" in command else [*command, "--help"]
    done = subprocess.run(
        args, capture_output=True, text=True, timeout=60, cwd=tmp_path, env=_clean_env()
    )
    assert done.returncode == 0, done.stderr
    for name in ("import", "pairs", "annotators", "export"):
        assert name in done.stdout
    assert not list(tmp_path.iterdir())  # --help creates no database


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRB_")}
    env["COLUMNS"] = "120"
    return env


def test_a_failing_command_in_a_real_process_exits_1_without_traceback(tmp_path):
    bad = tmp_path / "Art_and_Entertainment_test.jsonl"
    bad.write_text('{"id": "1"}\n{oops\n')
    done = subprocess.run(
        [sys.executable, "-m", "annotate", "--db", str(tmp_path / "x.db"), "import", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
        env=_clean_env(),
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"{bad}, line 1, field 'question': missing" in done.stderr
    assert f"{bad}, line 2, column 2: invalid JSON" in done.stderr
    assert "Nothing was imported." in done.stderr


# ---------------------------------------------------------------- import and pairs


def test_import_demo_data_then_pairs_shows_at_least_8_per_domain(cli, demo_files):
    result = cli("import", *map(str, demo_files))
    assert result.exit_code == 0, result.output
    for path in demo_files:
        assert f"{path}: 9 pairs, domain {path.name.removesuffix('_test.jsonl')}" in result.stdout
    assert "Imported 27 new pairs into study 'default'." in result.stdout

    counts = pair_counts(cli("pairs"))
    assert set(counts) == {*DEMO_DOMAINS, "total"}
    assert all(counts[d] >= 8 for d in DEMO_DOMAINS)
    assert counts["total"] == sum(counts[d] for d in DEMO_DOMAINS) == 27


def test_reimport_says_nothing_changed(cli, demo_files, engine, snapshot):
    assert cli("import", *map(str, demo_files)).exit_code == 0
    before = snapshot(engine)
    again = cli("import", *map(str, demo_files))
    assert again.exit_code == 0, again.output
    assert "Nothing changed: every pair is already in study 'default'." in again.stdout
    assert again.stdout.count("0 added, 9 already present") == 3
    assert snapshot(engine) == before


def test_import_options_study_and_domain(cli, tmp_path, write_records, make_record):
    path = write_records(tmp_path / "export.jsonl", [make_record("a"), make_record("b")])
    result = cli("import", str(path), "--study", "pilot", "--domain", "Society_and_Culture")
    assert result.exit_code == 0, result.output
    assert "domain Society_and_Culture: 2 added" in result.stdout
    assert pair_counts(cli("pairs", "--study", "pilot")) == {"Society_and_Culture": 2, "total": 2}
    listed = columns(cli("pairs", "--study", "pilot", "--list"), 4)
    assert listed[-2:] == [
        ["Society_and_Culture", "a", "books", "What should I read next? (a)"],
        ["Society_and_Culture", "b", "books", "What should I read next? (b)"],
    ]
    assert pair_counts(cli("pairs", "--study", "pilot", "--domain", "Other")) == {"total": 0}


def test_bad_import_exits_1_names_the_problem_and_writes_nothing(
    cli, demo_files, tmp_path, engine, snapshot
):
    assert cli("import", str(demo_files[0])).exit_code == 0
    before = snapshot(engine)
    bad = tmp_path / "Society_and_Culture_test.jsonl"
    bad.write_text(demo_files[2].read_text().replace('"narrative"', '"narative"', 1))
    result = cli("import", str(demo_files[1]), str(bad))
    assert result.exit_code == 1
    assert f"error: {bad}, line 1, field 'narrative': missing; this field is required" in (
        result.stderr
    )
    assert "Nothing was imported." in result.stderr
    assert result.stdout == ""
    no_traceback(result)
    assert snapshot(engine) == before


def test_pairs_of_an_unknown_study_is_an_error(cli):
    result = cli("pairs", "--study", "nope")
    assert result.exit_code == 1
    assert "no study named 'nope'" in result.stderr
    no_traceback(result)


# ---------------------------------------------------------------- accounts


def test_annotators_add_prints_working_login_links(cli, engine, monkeypatch):
    monkeypatch.setenv("PRB_APP_URL", "https://rate.example.org")
    result = cli("annotators", "add", "alice", "bob")
    assert result.exit_code == 0, result.output
    rows = columns(result, 3)
    assert [row[:2] for row in rows] == [["alice", "annotator"], ["bob", "annotator"]]
    for name, _, link in rows:
        parsed = urlparse(link)
        assert link.startswith("https://rate.example.org/?token=")
        token = parse_qs(parsed.query)["token"][0]
        with read_session(engine) as session:
            assert accounts.find_account(session, token).name == name


def test_annotators_add_role_and_list(cli):
    assert cli("annotators", "add", "rita", "--role", "researcher").exit_code == 0
    assert cli("annotators", "add", "adam", "--role", "admin").exit_code == 0
    assert cli("annotators", "add", "anna").exit_code == 0
    listed = cli("annotators", "list")
    assert listed.exit_code == 0
    rows = columns(listed, 3)
    assert rows == [
        ["rita", "researcher", "active"],
        ["adam", "admin", "active"],
        ["anna", "annotator", "active"],
    ]
    assert "token" not in listed.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["annotators", "add", "x", "--role", "boss"], "unknown role 'boss'"),
        (["annotators", "add", "dup", "dup"], "an account named 'dup' already exists"),
    ],
)
def test_account_errors_exit_1_and_create_nobody(cli, engine, args, message):
    result = cli(*args)
    assert result.exit_code == 1
    assert message in result.stderr
    no_traceback(result)
    with read_session(engine) as session:
        assert session.exec(select(Annotator)).all() == []


# ---------------------------------------------------------------- export


def test_export_writes_every_score_in_the_chosen_format(cli, demo_files, tmp_path, engine):
    assert cli("import", *map(str, demo_files)).exit_code == 0
    assert cli("annotators", "add", "alice").exit_code == 0
    # give alice three pairs through the library and rate them
    from annotate.db import write_session
    from annotate.domain.assignment import assign_pairs, study_pairs
    from annotate.domain.exports.pseudonyms import pseudonym, secret_key
    from annotate.domain.study.studies import get_study

    with write_session(engine) as session:
        study = get_study(session, "default")
        alice = accounts.get_account(session, "alice")
        assign_pairs(session, study, alice, study_pairs(session, study)[:3])
    with read_session(engine) as session:
        items = session.exec(select(Assignment)).all()
    scores = {side: dict.fromkeys(DIMENSIONS, 4) for side in ("A", "B")}
    for item in items:
        submit_rating(
            engine, annotator_id=item.annotator_id, assignment_id=item.id, scores=scores, seconds=3
        )
    with read_session(engine) as session:
        study_id = get_study(session, "default").id
        pseudonym_of_alice = pseudonym(secret_key(session), study_id, items[0].annotator_id)
    for fmt in ("csv", "jsonl", "parquet"):
        out = tmp_path / f"ratings.{fmt}"
        result = cli("export", "--format", fmt, "-o", str(out))
        assert result.exit_code == 0, result.output
        assert f"Wrote 24 scores to {out}." in " ".join(result.stdout.split())
        if fmt == "parquet":
            frame = pd.read_parquet(out)
        elif fmt == "csv":
            frame = pd.read_csv(out)
        else:
            frame = pd.read_json(out, lines=True)
        # ... and last, why a pre-registered exclusion rule excludes the row's annotator
        expected = (*EXPORT_COLUMNS, *PROVENANCE_EXPORT_COLUMNS, "annotator_excluded")
        assert tuple(frame.columns) == expected
        assert len(frame) == 24
        assert set(frame["annotator"]) == {pseudonym_of_alice}  # never the account's name
    unknown = cli("export", "-o", str(tmp_path / "none.csv"), "--study", "other")
    assert unknown.exit_code == 1
    assert "no study named 'other'" in unknown.stderr
    assert not (tmp_path / "none.csv").exists()


def test_export_rejects_an_unknown_format(cli, tmp_path):
    result = cli("export", "--format", "xlsx", "-o", str(tmp_path / "r.xlsx"))
    assert result.exit_code == 1
    assert "unknown format 'xlsx'; expected one of csv, jsonl, parquet" in result.stderr
    assert not (tmp_path / "r.xlsx").exists()
    no_traceback(result)


def test_export_into_a_missing_folder_is_a_clean_error(cli, tmp_path):
    result = cli("export", "-o", str(tmp_path / "no" / "such" / "dir" / "r.csv"))
    assert result.exit_code == 1
    no_traceback(result)


def test_an_unopenable_database_is_a_clean_error(cli, tmp_path):
    result = cli("pairs", db=str(tmp_path / "missing-folder" / "x.db"))
    assert result.exit_code == 1
    no_traceback(result)


# ---------------------------------------------------------------- where the database is


def test_db_option_over_environment_over_working_directory(
    cli, tmp_path, monkeypatch, make_record, write_records
):
    monkeypatch.chdir(tmp_path)
    data = write_records(tmp_path / "Art_and_Entertainment_test.jsonl", [make_record("x")])

    assert cli("import", str(data), db=None).exit_code == 0
    assert (tmp_path / "prb_annotate.db").is_file()

    env = {"PRB_DATABASE_URL": str(tmp_path / "env.db")}
    assert cli("annotators", "add", "eve", db=None, env=env).exit_code == 0
    assert (tmp_path / "env.db").is_file()

    option = tmp_path / "option.db"
    assert cli("annotators", "add", "otto", db=str(option), env=env).exit_code == 0

    def names(path: Path) -> list[str]:
        engine = make_engine(str(path))
        try:
            with read_session(engine) as session:
                return [a.name for a in accounts.list_accounts(session)]
        finally:
            engine.dispose()

    assert names(tmp_path / "env.db") == ["eve"]
    assert names(option) == ["otto"]
    assert names(tmp_path / "prb_annotate.db") == []
    assert pair_counts(cli("pairs", db=None)) == {"Art_and_Entertainment": 1, "total": 1}


# ---------------------------------------------------------------- synthetic data


def test_synth_dataset_writes_files_that_import(cli, tmp_path):
    folder = tmp_path / "synth"
    result = cli("synth", "dataset", str(folder), "--scale", "0.01", "--profile-size", "3")
    assert result.exit_code == 0, result.output
    files = sorted(folder.glob("*.jsonl"))
    assert [f.name for f in files] == [f"{d}_test.jsonl" for d in DEMO_DOMAINS]
    assert result.stdout.split() == [str(f) for f in sorted(files, key=lambda f: f.name)]
    assert cli("import", *map(str, files), "--study", "synth").exit_code == 0
    assert pair_counts(cli("pairs", "--study", "synth")) == {
        "Art_and_Entertainment": 8,
        "Lifestyle_and_Personal_Development": 10,
        "Society_and_Culture": 11,
        "total": 29,
    }
