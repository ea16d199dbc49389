"""`prb-annotate platform sync` end to end (issue 34.3): the study's platform set with
`studies edit`, the token and the API's address in the environment as an operator sets them,
the fake Prolific server answering; the dry run, then --send, then nothing left to send."""

from __future__ import annotations

from typer.testing import CliRunner

from annotate.cli.common import State, app
from support.fake_prolific import FakeProlific
from tests.helpers.platform_world import IDS, PLATFORM_STUDY, SCREENOUT, TOKEN, crowd_on_prolific
from tests.security.participants_world import STUDY


def _words(text: str) -> str:
    return " ".join(text.split())


def _run(db_url, *args):
    try:
        return CliRunner().invoke(app, ["--db", db_url, *args])
    finally:
        if State._engine is not None:
            State._engine.dispose()


def test_sync_shows_the_table_then_sends_it_once(engine, db_url, monkeypatch, tmp_path):
    crowd_on_prolific(engine)
    cleared = _run(db_url, "studies", "edit", STUDY, "--platform", "", "--reward", "200")
    assert cleared.exit_code == 0, cleared.output
    assert "platform - " in _words(cleared.stdout)
    assert "reward 2.00 GBP" in _words(cleared.stdout)
    edited = _run(
        db_url, "studies", "edit", STUDY, "--platform", "prolific",
        "--platform-study-id", PLATFORM_STUDY, "--bonus-rule", "per_extra_pair:20",
    )  # fmt: skip
    assert edited.exit_code == 0, edited.output
    assert "platform prolific" in _words(edited.stdout)
    assert "bonus rule per_extra_pair:20" in _words(edited.stdout)
    wrong = _run(db_url, "studies", "edit", STUDY, "--bonus-rule", "lots")
    assert wrong.exit_code == 1
    assert "per_extra_pair:N" in wrong.stderr
    with FakeProlific(TOKEN) as fake:
        fake.state.screenout_codes.add(SCREENOUT)
        fake.state.page_size = 2  # four pages: the sync follows the next links
        for pid, sub, status in IDS.values():
            fake.add_submission(PLATFORM_STUDY, sub, pid, status)
        monkeypatch.setenv("PRB_PROLIFIC_TOKEN", TOKEN)
        monkeypatch.setenv("PRB_PROLIFIC_API_URL", fake.url)
        table = tmp_path / "actions.csv"
        dry = _run(db_url, "platform", "sync", STUDY, "--csv", str(table))
        assert dry.exit_code == 0, dry.output
        assert "7 action(s) planned, none sent: send with --send" in dry.stdout
        assert f"approve {IDS['full'][0]}" in _words(dry.stdout)
        assert "bonus 1 participant 0.40 GBP" in _words(dry.stdout)
        assert fake.calls["list"] == 4
        assert set(fake.calls) == {"list"}
        assert IDS["full"][0] in table.read_text()
        assert "never publish" in _words(dry.stderr)
        sent = _run(db_url, "platform", "sync", STUDY, "--send")
        assert sent.exit_code == 0, sent.output
        assert "7 of 7 action(s) sent" in sent.stdout
        assert fake.status(IDS["full"][1]) == "APPROVED"
        assert fake.paid_total == 40
        again = _run(db_url, "platform", "sync", STUDY, "--send")
        assert again.exit_code == 0
        assert "nothing to do" in again.stdout
        assert fake.paid_total == 40
        assert fake.calls["transition"] == 3
    assert TOKEN not in dry.output + sent.output + again.output
