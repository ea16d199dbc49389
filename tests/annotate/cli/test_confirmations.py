"""A command that changes a study's design after the fact asks first (issue 22 item 9): `studies
edit` of the overlap or the analysis plan, `studies rules`, and `assign --per-pair` other than
the study's overlap need `--yes`, are refused without it when stdin is not a terminal (nothing
changed, nothing audited), and ask when it is one (a real pseudo-terminal here); `assign` never
changes the overlap silently."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
REFUSED = "pass --yes to confirm it; nothing was changed"


@pytest.fixture
def study(cli, tmp_path: Path) -> str:
    assert cli("studies", "create", "s").exit_code == 0
    data = tmp_path / "data"
    assert (
        cli("synth", "dataset", str(data), "--scale", "0.003", "--profile-size", "2").exit_code == 0
    )
    assert cli("import", *map(str, sorted(data.glob("*.jsonl"))), "--study", "s").exit_code == 0
    assert cli("annotators", "add", "ann1", "ann2", "ann3").exit_code == 0
    return "s"


def _overlap(cli) -> int:
    shown = cli("studies", "show", "s").stdout.splitlines()
    (line,) = [line for line in shown if line.startswith("overlap k")]
    return int(line.split()[-1])


def _audited(cli) -> list[str]:
    lines = cli("audit", "--study", "s", "--json").stdout.splitlines()
    return [json.loads(line)["action"] for line in lines]


@pytest.mark.parametrize(
    "change",
    [("--overlap", "2"), ("--margin", "0.4"), ("--alpha", "0.01"), ("--planned-pairs", "50")],
)
def test_a_design_change_without_yes_is_refused_off_a_terminal(cli, study, change) -> None:
    before = cli("studies", "show", "s").stdout
    refused = cli("studies", "edit", "s", *change)
    assert refused.exit_code == 1
    assert REFUSED in refused.stderr
    assert "->" in refused.stderr  # the change it would make is shown
    assert cli("studies", "show", "s").stdout == before
    assert "study.update" not in _audited(cli)
    confirmed = cli("studies", "edit", "s", *change, "--yes")
    assert confirmed.exit_code == 0, confirmed.output
    assert cli("studies", "show", "s").stdout != before
    assert _audited(cli).count("study.update") == 1


def test_other_settings_and_unchanged_values_need_no_confirmation(cli, study) -> None:
    assert cli("studies", "edit", "s", "--guidelines", "Read twice.").exit_code == 0
    assert cli("studies", "edit", "s", "--overlap", "3").exit_code == 0  # already 3


def test_assign_never_changes_the_overlap_silently(cli, study) -> None:
    refused = cli("assign", "ann1", "ann2", "--study", "s", "--per-pair", "2")
    assert refused.exit_code == 1
    assert "overlap: 3 -> 2" in refused.stderr
    assert REFUSED in refused.stderr
    assert _overlap(cli) == 3
    assert "plan.assign" not in _audited(cli)
    same = cli("assign", "--study", "s", "--per-pair", "3")  # the study's own k: no question
    assert same.exit_code == 0, same.output
    assert "changed from" not in same.stdout
    changed = cli("assign", "--study", "s", "-k", "2", "--yes")
    assert changed.exit_code == 0, changed.output
    assert "The overlap of study s changed from 3 to 2." in changed.stdout
    assert _overlap(cli) == 2


def test_rules_changes_are_confirmed_too(cli, study) -> None:
    refused = cli("studies", "rules", "-s", "s", "--max-gold-failures", "1")
    assert refused.exit_code == 1
    assert REFUSED in refused.stderr
    shown = cli("studies", "rules", "-s", "s").stdout
    assert " ".join(shown.split()).startswith("exclusion rules none")


def _in_terminal(db_url: str, args: list[str], answer: bytes) -> tuple[int, str]:
    """Run `python -m annotate --db URL ARGS` with a pseudo-terminal as stdin and stdout; when
    it asks (y/N), type `answer`. Waits on the output, with a deadline, never on a clock."""
    leader, follower = os.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    env.pop("PRB_DATABASE_URL", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "annotate", "--db", db_url, *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        close_fds=True,
    )
    os.close(follower)
    output, asked = b"", False
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(leader, 4096)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                output += chunk
                if not asked and b"[y/N]" in output:
                    os.write(leader, answer + b"\n")
                    asked = True
            elif process.poll() is not None:
                break
        code = process.wait(timeout=60)
    finally:
        os.close(leader)
        if process.poll() is None:
            process.kill()
    return code, output.decode("utf-8", "replace")


@pytest.mark.parametrize(("answer", "code", "overlap"), [(b"n", 1, 3), (b"y", 0, 2)])
def test_at_a_terminal_the_change_is_asked(cli, db_url, study, answer, code, overlap) -> None:
    result, output = _in_terminal(db_url, ["studies", "edit", "s", "--overlap", "2"], answer)
    assert "overlap: 3 -> 2" in output
    assert "change the study's design as above? [y/N]" in output
    assert result == code, output
    if code:
        assert "not confirmed; nothing was changed" in output
    assert _overlap(cli) == overlap
