"""Helpers for the security tests: raw table dumps, hostile payloads, the production command.

Test modules import them as `from security_helpers import ...` (a name unique in the test tree).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import MetaData, select
from sqlalchemy.engine import Engine

from tests.helpers.browser_helpers import BROWSER_MARKS
from tests.helpers.hostile import EVIL_HOST

BOB_COMMENT = "BOBSECRETCOMMENT"
BOB_FLAG = "BOBSECRETFLAGREASON"
HOSTILE_ID = "hostile<b>1</b><img src=x onerror=\"window.__pwned='record id'\">"
HOSTILE_NAME = "mal<img src=x onerror=\"window.__pwned='name'\"><a href='javascript:1'>x</a>"

in_chromium = BROWSER_MARKS
"""Browser tests: skipped on a laptop without Chromium; in CI (CI=true) a missing browser fails."""


def in_chromium_marks(test: Any) -> Any:
    """Decorator form of `in_chromium`, for one test in a module of other tests."""
    for mark in in_chromium:
        test = mark(test)
    return test


def all_stored_values(engine: Engine) -> str:
    """Every value of every row of every table the database holds, as one text.

    The tables are reflected from the database itself (not taken from the models), so a table or
    column added later is searched too.
    """
    metadata = MetaData()
    metadata.reflect(engine)
    parts = []
    with engine.connect() as connection:
        for table in metadata.sorted_tables:
            for row in connection.execute(select(table)):
                parts.append(f"{table.name}: {tuple(row)!r}")
    return "\n".join(parts)


# ---------------------------------------------------------------- hostile text


def payloads(where: str) -> str:
    """Every kind of active content, each naming `where` (so a leak says which field it came
    from): a `<script>`, an `<img onerror>`, a `javascript:` link in HTML and Markdown, an
    `<iframe>`, an `<svg onload>`, and Markdown images pointing at an external host."""
    host = f"http://{EVIL_HOST}/{where}"
    return " ".join(
        [
            f"<script>window.__pwned='{where} script'</script>",
            f"<img src=x onerror=\"window.__pwned='{where} img'\">",
            f"<a href=\"javascript:window.__pwned='{where} link'\">click</a>",
            f"[markdown link](javascript:window.__pwned='{where}_mdlink')",
            f'<iframe src="{host}/frame" onload="window.__pwned=\'{where} iframe\'"></iframe>',
            f"<svg onload=\"window.__pwned='{where} svg'\"><circle r='5'/></svg>",
            f"![pic]({host}/image.png)",
            f"![ref][r_{where}]\n\n[r_{where}]: {host}/reference.png\n\n",
            f'<img src="{host}/html-image.png">',
            f"<object data='{host}/object'></object><embed src='{host}/embed'>",
            f"<style>@import url({host}/style.css);</style>",
            f"<video src='{host}/video.mp4' autoplay></video>",
        ]
    )


def all_hostile_record(record_id: str) -> dict[str, Any]:
    """A record with every payload in every displayed field."""
    return {
        "id": record_id,
        "question": f"Question {payloads('question')}",
        "profile": [
            {"id": "p1", "category": payloads("profile_category"), "text": payloads("profile")},
            {"id": "p2", "category": "c", "text": "An ordinary post"},
        ],
        "rubric_aspects": [
            {
                "aspect": payloads("rubric_aspect"),
                "evidence": payloads("rubric_evidence"),
                "reason": payloads("rubric_reason"),
            }
        ],
        "narrative": payloads("narrative"),
        "category": payloads("category"),
        "chosen": f"CHOSENTEXT {payloads('chosen')}",
        "rejected": f"REJECTEDTEXT {payloads('rejected')}",
    }


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


# ---------------------------------------------------------------- the production command


def command_options(command: list[str]) -> dict[str, str]:
    """`--name value` pairs of a `streamlit run` command line (after the script path)."""
    script = next(i for i, part in enumerate(command) if part.endswith("main.py"))
    rest = command[script + 1 :]
    options: dict[str, str] = {}
    for name, value in zip(rest[::2], rest[1::2], strict=True):
        assert name.startswith("--"), f"not an option: {name!r} in {rest}"
        assert name[2:] not in options, f"{name} given twice"
        options[name[2:]] = value
    return options
