"""Security 6: no token (nor its hash) in any log.

The server: the production server (`secure_world`, stdout and stderr captured in one file) sees
a login by link, a rating submitted, a page change, a login by pasting the token, and bad tokens
in the URL and in the form; then its whole log, which every other test's activity has also been
written to, holds no token and no hash of any account of the world. An SQL error while a token is
being looked up (its traceback goes to the log) is checked in test_security_production.py
(`test_an_uncaught_error_shows_no_details_in_the_browser`).

The CLI takes no token as input (it is the operator's tool and acts on the database directly).
It prints a login link when it creates an account or rotates a token: on purpose, once, on
stdout, for the operator to hand over. Nothing else it prints (stderr, `annotators list`, other
commands) holds a token or a hash.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from security_helpers import in_chromium_marks

from annotate.domain.study import accounts
from tests.helpers.browser_helpers import settle
from tests.helpers.component_entry import enter_by_pointer
from tests.helpers.rating_entry import PairEntry


def secrets_in(text: str, tokens: list[str]) -> list[str]:
    found = [f"token of #{n}" for n, t in enumerate(tokens) if t in text]
    found += [f"hash of #{n}" for n, t in enumerate(tokens) if accounts.hash_token(t) in text]
    return found


@in_chromium_marks
def test_the_server_log_holds_no_token_or_hash(secure_world, new_page):
    bad = "not-a-valid-token-" + "x" * 20
    page = new_page()
    page.goto(secure_world.link("C"))
    settle(page)
    page.get_by_text("Pair 1 of 27", exact=True).wait_for()
    settle(page)
    dims = ("factuality", "relevance", "helpfulness", "rubric_alignment")
    enter_by_pointer(page, PairEntry(scores={(side, dim): 4 for side in "AB" for dim in dims}))
    page.get_by_role("button", name="Submit and go to the next pair").click()
    page.get_by_text("Pair 1 saved.").wait_for()
    settle(page)

    other = new_page()  # a researcher changes page: the token is carried over
    other.goto(secure_world.link("researcher"))
    settle(other)
    other.locator("[data-testid='stSidebarNav']").get_by_text("Rate pairs").click()
    other.get_by_text("No pairs have been assigned to you yet.").wait_for()

    failed = new_page()
    failed.goto(f"{secure_world.url}/?token={bad}")
    settle(failed)
    failed.get_by_text("This login link is not valid", exact=False).wait_for()
    failed.get_by_label("Your access token", exact=True).fill(bad + "y")
    failed.get_by_role("button", name="Log in").click()
    settle(failed)
    failed.get_by_label("Your access token", exact=True).fill(secure_world.tokens["B"])
    failed.get_by_role("button", name="Log in").click()
    failed.get_by_text("Pair 1 of 27", exact=True).wait_for()
    settle(failed)

    log = secure_world.log_text()
    assert "You can now view your Streamlit app" in log  # the right file, and it is written to
    tokens = list(secure_world.tokens.values())
    assert secrets_in(log, [*tokens, bad, bad + "y"]) == []
    assert not re.search(r"token=", log)


def _cli(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "annotate", "--db", str(db), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def test_the_cli_prints_a_link_once_on_stdout_and_nothing_else_holds_a_token(tmp_path):
    db = tmp_path / "cli.db"
    added = _cli(db, "annotators", "add", "alice", "bob", "--role", "admin")
    links = re.findall(r"token=([A-Za-z0-9_-]+)", added.stdout)
    assert len(links) == 2
    assert added.stdout.count(links[0]) == 1
    rotated = _cli(db, "annotators", "rotate", "alice")
    (new,) = re.findall(r"token=([A-Za-z0-9_-]+)", rotated.stdout)
    tokens = [*links, new]
    quiet = [
        _cli(db, "annotators", "list"),
        _cli(db, "annotators", "deactivate", "bob"),
        _cli(db, "annotators", "activate", "bob"),
        _cli(db, "annotators", "role", "bob", "researcher"),
    ]
    assert quiet[0].stdout.split() == ["alice", "admin", "active", "bob", "admin", "active"]
    everything = added.stderr + rotated.stderr + "".join(p.stdout + p.stderr for p in quiet)
    assert secrets_in(everything, tokens) == []
    assert secrets_in(added.stdout, links) == [f"token of #{n}" for n in range(2)]
