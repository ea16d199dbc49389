"""A real `streamlit run` server and headless Chromium, for the end-to-end tests.

The server is started exactly as the product starts it (`annotate.cli.server.streamlit_command` and
`server_environment`); the browser is Debian's Chromium in its headless shell
(`/usr/bin/chromium-headless-shell`, the same Blink engine without the desktop browser's layers:
a page load of the app costs it about 1.45 CPU s where the full `chromium --headless` takes about
2.5, and the browser tests are most of the suite's CPU), driven by playwright.
"""

from __future__ import annotations

import os
import re
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from annotate.config import RATING_VIEW_ENV
from annotate.db import write_session
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.study import accounts
from annotate.domain.study.studies import get_study
from support.appserver import AppServer

CHROMIUM = Path("/usr/bin/chromium-headless-shell")
FULL_CHROMIUM = Path("/usr/bin/chromium")
"""The desktop browser in its headless mode: for a test module whose pages must lose the focus to
another tab (the headless shell keeps every page focused). Such a module says
`BROWSER = FULL_CHROMIUM`; the `browser` fixture (tests/conftest.py) launches it."""
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# The marks of a browser test module: skipped on a laptop without Chromium; in CI (CI=true) a
# missing browser is a failure.
BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists() and os.environ.get("CI") != "true",
        reason=f"no Chromium at {CHROMIUM} (apt-get install chromium-headless-shell)",
    ),
]
SERVER_START_TIMEOUT_S = 60
LAPTOP = {"width": 1366, "height": 768}
DESKTOP = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}
UI_TIMEOUT_MS = 20_000
LABEL_WORDS = (b"chosen", b"rejected")


TALL = {"width": 1400, "height": 2200}  # a whole pair on one screenshot


def add_annotator(engine: Engine, study_name: str, name: str) -> str:
    """A new annotator with every pair of the study in their queue; their token."""
    with write_session(engine) as session:
        study = get_study(session, study_name)
        annotator, token = accounts.create_account(session, name)
        assign_pairs(session, study, annotator, study_pairs(session, study))
    return token


FALLBACK_VIEW = {RATING_VIEW_ENV: "streamlit"}
"""A server's environment for the tests of the rating page's fallback view (Streamlit's widgets);
without it a server draws the pair with the pair component, the default."""


def start_server(db: Path, log: Path, environment: Mapping[str, str] | None = None) -> AppServer:
    """Start the app (the production command) on a free port; return once it is healthy."""
    return AppServer(str(db), log, environment=environment).start(timeout=SERVER_START_TIMEOUT_S)


def settle(page: Any, timeout: int = UI_TIMEOUT_MS) -> None:
    """Wait until the app is connected and no script run is in progress (`timeout` in ms:
    longer for a run known to be slow, e.g. one computing a report)."""
    page.wait_for_selector(
        "[data-testid='stApp'][data-test-connection-state='CONNECTED']",
        state="attached",
        timeout=timeout,
    )
    page.wait_for_selector(
        "[data-testid='stApp'][data-test-script-state='notRunning']",
        state="attached",
        timeout=timeout,
    )


def wait_for_pair(page: Any, number: int, total: int = 27) -> None:
    """Wait until pair `number` is fully drawn: its progress line and, last on the page, the
    "go to pair" box showing it (the end of the run, not just its first messages)."""
    page.get_by_text(f"Pair {number} of {total}", exact=True).wait_for()
    page.wait_for_function(
        """(prefix) => [...document.querySelectorAll(".st-key-nav_jump input")]
                         .some(box => box.value.startsWith(prefix))""",
        arg=f"Pair {number} (",
        timeout=UI_TIMEOUT_MS,
    )
    settle(page)


def wait_for_focus(page: Any, key: str) -> None:
    """Wait until the keyboard focus is on a radio inside the element with widget key `key`."""
    page.wait_for_function(
        """(key) => { const el = document.activeElement;
                      return el && el.type === 'radio' && !!el.closest('.st-key-' + key); }""",
        arg=key,
        timeout=UI_TIMEOUT_MS,
    )


@dataclass
class Recorder:
    """Everything the page receives: websocket frames, DOM snapshots, and the requests it made."""

    received: list[bytes] = field(default_factory=list)
    sent: list[bytes] = field(default_factory=list)
    snapshots: list[tuple[str, str]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def attach(self, page: Any) -> Recorder:
        page.on("websocket", self._on_websocket)
        page.on("request", lambda request: self.requests.append(request.url))
        return self

    def _on_websocket(self, ws: Any) -> None:
        ws.on("framereceived", lambda payload: self.received.append(_as_bytes(payload)))
        ws.on("framesent", lambda payload: self.sent.append(_as_bytes(payload)))

    def snapshot(self, page: Any, step: str) -> None:
        self.snapshots.append((step, page.content() + shadow_html(page)))
        self.snapshots.append((f"{step} (attributes)", "\n".join(all_attributes(page))))

    def label_leaks(self) -> list[str]:
        """Where 'chosen' or 'rejected' appears in anything the page received or holds."""
        leaks = []
        for number, frame in enumerate(self.received):
            leaks += [f"received frame {number}: {w!r}" for w in LABEL_WORDS if w in frame.lower()]
        for number, frame in enumerate(self.sent):
            leaks += [f"sent frame {number}: {w!r}" for w in LABEL_WORDS if w in frame.lower()]
        for step, text in self.snapshots:
            lowered = text.lower()
            leaks += [f"{step}: {w.decode()!r}" for w in LABEL_WORDS if w.decode() in lowered]
        return leaks


def _as_bytes(payload: Any) -> bytes:
    return payload if isinstance(payload, bytes) else str(payload).encode("utf-8", "replace")


def all_attributes(page: Any) -> list[str]:
    """`name=value` of every attribute of every element (ids, classes, keys, test ids...), in
    the page and in the shadow roots inside it (the pair component's)."""
    return page.evaluate(
        """() => { const out = [];
                   const walk = (root) => { for (const el of root.querySelectorAll('*')) {
                       const tag = el.tagName;
                       for (const a of el.attributes) out.push(`${tag}: ${a.name}=${a.value}`);
                       if (el.shadowRoot) walk(el.shadowRoot); } };
                   walk(document); return out; }"""
    )


def shadow_html(page: Any) -> str:
    """The HTML inside the page's shadow roots (the pair component's), which `page.content()`
    leaves out."""
    return page.evaluate(
        """() => [...document.querySelectorAll('*')].filter(el => el.shadowRoot)
                 .map(el => el.shadowRoot.innerHTML).join('\\n')"""
    )


COMPONENT_PAIR = ".prb-pair[data-pair]"
"""The pair component's root, naming the assignment it shows (the default rating view)."""
PAIR_TOKEN = ".st-key-pair_token input"
"""The hidden per-pair token of the Streamlit view's form (PRB_RATING_VIEW=streamlit)."""


def current_assignment(page: Any) -> int:
    """The pair the page shows (one pair at a time), in either rating view: the assignment the
    component's root names, or the hidden per-pair token in the Streamlit view's form. Waits
    until one is there and the form holds its token: a run under load may draw the page's other
    elements (progress, navigation) a moment before it."""
    page.locator(f"{COMPONENT_PAIR}, {PAIR_TOKEN}").first.wait_for(state="attached")
    if page.locator(COMPONENT_PAIR).count():
        return int(page.locator(COMPONENT_PAIR).get_attribute("data-pair"))
    page.wait_for_function(
        """() => [...document.querySelectorAll(".st-key-pair_token input")]
                 .some(el => el.value)""",
        timeout=UI_TIMEOUT_MS,
    )
    tokens = page.evaluate(
        """() => [...document.querySelectorAll(".st-key-pair_token input")].map(el => el.value)"""
    )
    assert len(tokens) == 1, f"expected one pair on the page, found {tokens}"
    assert tokens[0], f"expected one pair on the page, found {tokens}"
    return int(tokens[0])


def checked_score(page: Any, key: str) -> int | None:
    """The score a radio group shows as selected (options are 1..5, values are indexes)."""
    index = page.evaluate(
        """(key) => { const el = document.querySelector(`.st-key-${key} input[type=radio]:checked`);
                      return el ? Number(el.value) : null; }""",
        key,
    )
    return None if index is None else index + 1


def screenshot_dir(default: Path) -> Path:
    """`$PRB_SCREENSHOT_DIR` if set (e.g. /tmp/shots, or a CI artifact folder), else `default`."""
    folder = Path(os.environ.get("PRB_SCREENSHOT_DIR") or default)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def closer_to(shown: str, expected: str, other: str) -> bool:
    """Is the shown text (rendered Markdown) the expected response rather than the other one?"""
    seen = words(shown)

    def overlap(text: str) -> float:
        mine = words(text)
        return len(seen & mine) / len(mine | seen)

    return overlap(expected) > overlap(other)


# Clicks retried by `click_until`, by what was clicked: printed at the end of the test session
# (tests/conftest.py), so a run that passed only thanks to retries says so.
RETRIES: dict[str, int] = {}
RETRY_WAIT_MS = 3_000  # how long a click is given to show its effect before it is checked
CLICK_ATTEMPTS = 4


def next_frame(page: Any) -> None:
    """Wait until the browser has drawn a frame: the events of a scroll made before (which
    Chromium sends with the next frame, not at once) have then been delivered."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def wait_for_loads(page: Any) -> None:
    """Wait until the page is drawn (every image, frame or style sheet in it has then been
    requested) and every image has loaded or failed (its `onerror`, if it had one, has run)."""
    next_frame(page)
    page.wait_for_function(
        "() => [...document.images].every(image => image.complete)", timeout=UI_TIMEOUT_MS
    )


def scroll_to(page: Any, target: Any) -> None:
    """Scroll `target` into view and wait until the page has seen that scroll.

    Playwright scrolls an element into view and clicks it within one frame, before the page
    receives the scroll event; a select box opened by that click receives it just after and
    closes its list (it closes on any scroll, like every menu that follows its box), so the
    click looked lost. A person sees the box before clicking it: the scroll comes first.
    """
    target.scroll_into_view_if_needed()
    next_frame(page)


def click_until(page: Any, target: Any, effect: Any, *, what: str, tap: bool = False) -> None:
    """Click `target` (tap it, with `tap`: a phone's touch) until `effect` (a locator) is
    visible.

    The target is scrolled into view first, as a person's eyes do (`scroll_to`). A click can
    still be lost when it lands while Streamlit redraws the element (a run ending, a sidebar
    closing). It is retried only when the app is idle (no script run, connected) and still in
    the state the click was made in (`effect` not shown and the target still there): a click
    that did take effect is never repeated. Each retry is counted in `RETRIES[what]`.
    """
    for attempt in range(CLICK_ATTEMPTS):
        settle(page)
        scroll_to(page, target)
        if tap:
            target.tap()
        else:
            target.click()
        try:
            effect.wait_for(state="visible", timeout=RETRY_WAIT_MS)
            return
        except Exception:  # playwright's TimeoutError: check the state before trying again
            settle(page)
            if effect.is_visible():
                return
            assert target.is_visible(), f"{what}: the page changed instead of answering the click"
            if attempt + 1 < CLICK_ATTEMPTS:
                RETRIES[what] = RETRIES.get(what, 0) + 1
    raise AssertionError(f"{what}: no effect after {CLICK_ATTEMPTS} clicks")


def confirm_withdrawal(page: Any, *, erase: bool = False) -> Any:
    """Open the side panel's "Withdraw from this study" box, tick "Yes, I want to withdraw" (and
    "Also erase everything I gave", with `erase`) and return the Withdraw button once the
    confirmation's rerun has enabled it. Waits on that state, not on time: under load a click
    landing while the expander was still drawing left the button disabled."""
    page.locator("[data-testid='stExpandSidebarButton']").click()
    expander = page.locator("[data-testid='stSidebar']").get_by_text("Withdraw from this study")
    confirm = page.locator(".st-key-withdraw_confirm label")
    click_until(page, expander, confirm, what="open withdrawal")
    if erase:
        erased = page.locator(".st-key-withdraw_erase input:checked")
        click_until(page, page.locator(".st-key-withdraw_erase label"), erased, what="erase")
    button = page.locator(".st-key-withdraw_button button:enabled")
    click_until(page, confirm, button, what="confirm withdrawal")
    settle(page)
    return button


def withdraw(page: Any, button: Any) -> None:
    """Click the enabled Withdraw `button` (from `confirm_withdrawal`) until the closing page
    shows; a click lost in a redraw is repeated, one that withdrew never is."""
    closing = page.get_by_role("heading", name="You have withdrawn from this study")
    click_until(page, button, closing, what="withdraw")
    settle(page)


def choose_option(page: Any, select: Any, option: str, *, what: str) -> None:
    """Open the select box `select` (a locator of its `stSelectbox`) and pick `option`, until
    the box shows it.

    A rerun that ends while the list is open redraws the box and closes the list, so the
    option's element is detached under the click, which then times out: the box is opened
    again (counted in `RETRIES[what]`) unless it already shows the option. A click that went
    through is never repeated.
    """
    for attempt in range(CLICK_ATTEMPTS):
        click_until(page, select, page.get_by_role("listbox"), what=what)
        try:
            page.get_by_role("option", name=option, exact=True).click(timeout=RETRY_WAIT_MS)
            settle(page)
            return
        except Exception:  # playwright's TimeoutError: the list was redrawn under the click
            settle(page)
        if _shows(select, option):
            return
        if attempt + 1 < CLICK_ATTEMPTS:
            RETRIES[what] = RETRIES.get(what, 0) + 1
    raise AssertionError(f"{what}: {option!r} not chosen after {CLICK_ATTEMPTS} tries")


def _shows(select: Any, option: str) -> bool:
    """Whether the closed select box `select` shows `option` as its value."""
    return option in select.inner_text().splitlines()


def status_without_cookies(url: str) -> int:
    """The HTTP status a client without any cookie gets for `url` (someone holding an address
    from a log)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code
