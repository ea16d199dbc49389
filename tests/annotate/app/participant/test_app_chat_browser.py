"""A conversation on the rating page in headless Chromium (issue 35.2): drawn as a chat at a
laptop's 1366x768 and a phone's 390 px, nothing of its hostile turns runs or loads, the page
never names the chosen response, and the phone does not scroll sideways; drawn by the pair
component, the default view (issue 36, item 5). Screenshots go to $PRB_SCREENSHOT_DIR when set,
else to a pytest temp folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import annotate.app as app_package
from annotate.db import make_engine
from annotate.domain.dataset.shapes import Shape, ShapeOptions
from annotate.domain.study.permissions import SYSTEM
from annotate.services.admin.data import import_files
from tests.helpers.browser_helpers import (
    BROWSER_MARKS,
    LABEL_WORDS,
    LAPTOP,
    PHONE,
    add_annotator,
    screenshot_dir,
    settle,
    start_server,
    wait_for_pair,
)
from tests.helpers.component_entry import PAIR
from tests.helpers.hostile import EVIL_HOST, IMG, MD_IMAGE, MD_JS_LINK, SCRIPT

pytestmark = BROWSER_MARKS
APP = Path(app_package.__file__).parent

HISTORY = [
    {"role": "system", "content": "You are a patient gardening assistant."},
    {"role": "user", "content": "My basil keeps wilting on the windowsill. What am I doing wrong?"},
    {
        "role": "assistant",
        "content": "Basil wilts from **too little water** or *too much sun* through glass. "
        "How often do you water it, and which way does the window face?",
    },
    {"role": "user", "content": f"Every two days, south-facing. {SCRIPT} {IMG} {MD_IMAGE}"},
]
CHOSEN = "Water when the top 2 cm of soil is dry, and move it a metre back from the glass."
REJECTED = f"Try a grow light. {MD_JS_LINK}\n\n# Response A\n\nBasil also likes warmth."


@dataclass
class World:
    url: str
    token: str
    shots: Path


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("chat_page")
    engine = make_engine(str(folder / "chat.db"))
    records = [
        {
            "id": f"chat_{n}",
            "chosen": [*HISTORY, {"role": "assistant", "content": CHOSEN}],
            "rejected": [*HISTORY, {"role": "assistant", "content": REJECTED}],
        }
        for n in range(2)
    ]
    path = folder / "garden_test.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    import_files(engine, SYSTEM, [path], study="chat", shape=ShapeOptions(shape=Shape.HF))
    token = add_annotator(engine, "chat", "chatter")
    server = start_server(folder / "chat.db", folder / "server.log")
    try:
        yield World(server.url, token, screenshot_dir(folder / "shots"))
    finally:
        server.stop()
        engine.dispose()


@pytest.mark.parametrize(("size", "name"), [(LAPTOP, "1366x768"), (PHONE, "390x844")])
def test_the_conversation_is_a_chat_inert_and_blinded(world, new_page, size, name):
    page: Any = new_page(size)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(f"{world.url}/?token={world.token}")
    settle(page)
    wait_for_pair(page, 1, 2)
    box = page.locator(f"{PAIR} .conversation")
    box.wait_for()
    messages = box.locator(".turn")
    assert messages.count() == len(HISTORY)
    assert "Every two days, south-facing." in messages.nth(3).inner_text()
    assert "<script>" in messages.nth(3).inner_text()  # shown as text
    page.wait_for_function(  # it opens at its last turn, the one the responses answer
        "(b) => b.scrollTop + b.clientHeight >= b.scrollHeight - 2", arg=box.element_handle()
    )
    page.screenshot(path=str(world.shots / f"chat_{name}.png"))
    assert page.evaluate("() => window.__pwned") is None
    assert not [url for url in requests if EVIL_HOST in url]
    main = page.locator("[data-testid='stMain']")  # (its locators reach into the component)
    for tag in ("img", "iframe", "object", "embed", "svg circle[r='5']"):
        assert main.locator(tag).count() == 0, f"a <{tag}> from the dataset is in the page"
    scripts = page.evaluate(
        """() => [...document.querySelectorAll("[data-testid='stMain'] script")]
                 .map(el => el.textContent)"""
    )
    assert set(scripts) == {(APP / n).read_text(encoding="utf-8") for n in ("rate.js", "page.js")}
    assert main.locator("a[href^='javascript:' i]").count() == 0
    html = (page.content() + page.locator(PAIR).evaluate("el => el.outerHTML")).encode().lower()
    assert not [word for word in LABEL_WORDS if word in html]
    headings = [t.strip() for t in main.locator("h1, h2, h3, h4, h5, h6").all_inner_texts()]
    assert headings.count("Response A") == 1, headings
    if size is PHONE:
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"], width
