"""The rating page in headless Chromium against the production server (issue 11, item 6).

A fresh SQLite file with the demo study (27 pairs) and 1 + 4 + 8 annotators, each with all
pairs; the app server is the production command (`support.appserver.AppServer`). Figures:

* **cold open**: a login link opened on a fresh server (its first session: the entry script is
  compiled and the rating page imported), then on the warm server, to the first pair visible
  with the focus on its first score.
* per **cycle**, at 1, 4 and 8 concurrent annotators (one Chromium, one context each): fill the
  8 scores (clicks in the page), submit, and wait for the next pair: *visible* (its progress
  line, its token in the form, empty scores, the focus on its first score) and *settled* (the
  server's run finished: the page accepts input without a stale overlay). Measured in the page
  (performance.now, polled every animation frame), so the driver's round trips are not in it.
* the **server**: CPU seconds (user + system, /proc) per cycle, and resident memory after each
  level.

Run:  python benchmarks/bench_browser.py [--cycles 12]
Targets (issue 11, quiet 2-core machine): visible p50 <= 150 ms at one annotator; cold open
<= 1.5 s on a fresh server; server <= 260 MB with 8 sessions.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from figures import distribution
from playwright.async_api import async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from annotate.db import make_engine, write_session
from annotate.domain.assignment import assign_pairs, study_pairs
from annotate.domain.study import accounts
from annotate.domain.study.studies import get_study
from annotate.services.demo import set_up_demo
from support.appserver import AppServer

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
LEVELS = (1, 4, 8)
TIMEOUT_MS = 60_000

# In the page: the pair shown, and whether it is ready for the annotator.
READY_JS = """
() => {
  const token = document.querySelector('.st-key-pair_token input');
  const first = document.querySelector(".st-key-factuality_A input[type='radio']");
  const active = document.activeElement;
  return {
    token: token ? token.value : null,
    checked: document.querySelectorAll(
      ".st-key-scores_A input:checked, .st-key-scores_B input:checked").length,
    focused: !!(active && active.type === 'radio' && active.closest('.st-key-factuality_A')),
    shown: !!first,
    settled: document.querySelector("[data-testid='stApp']")
               ?.getAttribute('data-test-script-state') === 'notRunning',
  };
}
"""

# Fill the 8 scores, submit, and time the next pair (all in the page).
CYCLE_JS = (
    """
async (deadline) => {
  const ready = READY;
  const frame = () => new Promise(r => requestAnimationFrame(r));
  const start = performance.now();
  const before = ready().token;
  for (const group of document.querySelectorAll(
      ".st-key-scores_A [data-testid='stRadio'], .st-key-scores_B [data-testid='stRadio']")) {
    const labels = group.querySelectorAll("label[data-testid='stRadioOption']");
    labels[Math.floor(Math.random() * labels.length)].click();
  }
  await frame();
  const submitted = performance.now();
  document.querySelector('.st-key-submit button').click();
  let visible = null;
  while (performance.now() - submitted < deadline) {
    await frame();
    const now = ready();
    if (visible === null && now.token && now.token !== before && now.checked === 0 && now.focused)
      visible = performance.now();
    if (visible !== null && now.settled) {
      return {fill: submitted - start, visible: visible - submitted,
              settled: performance.now() - submitted, token: now.token};
    }
  }
  return null;
}
"""
).replace("READY", READY_JS.strip())


def build_database(folder: Path) -> tuple[str, dict[str, str]]:
    db = folder / "bench_browser.db"
    engine = make_engine(str(db))
    demo = set_up_demo(engine)
    tokens = {"cold": demo.token}
    with write_session(engine) as session:
        study = get_study(session, "demo")
        for level in LEVELS:
            for number in range(level):
                name = f"l{level}-{number}"
                annotator, tokens[name] = accounts.create_account(session, name)
                assign_pairs(session, study, annotator, study_pairs(session, study))
        annotator, tokens["warm"] = accounts.create_account(session, "warm")
        assign_pairs(session, study, annotator, study_pairs(session, study))
    engine.dispose()
    return str(db), tokens


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def open_first_pair(browser: Any, url: str, context: Any | None = None) -> tuple[Any, float]:
    """A page opens the link (in a new context: nothing cached); seconds to the first pair
    visible with the focus on it."""
    context = context or await browser.new_context(viewport={"width": 1366, "height": 768})
    page = await context.new_page()
    start = time.perf_counter()
    await page.goto(url)
    await page.wait_for_function(
        f"() => {{ const r = ({READY_JS.strip()})(); return r.token && r.focused; }}",
        timeout=TIMEOUT_MS,
        polling="raf",
    )
    return page, time.perf_counter() - start


async def ready_page(browser: Any, url: str) -> Any:
    """An annotator's page on its first pair, the server's run finished."""
    page, _ = await open_first_pair(browser, url)
    await page.wait_for_selector(
        "[data-testid='stApp'][data-test-script-state='notRunning']", timeout=TIMEOUT_MS
    )
    return page


async def cycles_on(page: Any, cycles: int) -> list[dict[str, float]]:
    results = []
    for _ in range(cycles):
        result = await page.evaluate(CYCLE_JS, TIMEOUT_MS)
        if result is None:
            raise RuntimeError("a cycle did not reach the next pair in time")
        results.append(result)
    await page.context.close()
    return results


async def run(cycles: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="bench_browser_"))
    db, tokens = build_database(folder)
    server = AppServer(db, folder / "server.log").start()
    assert server.process is not None
    pid = server.process.pid
    print(f"server pid {pid}, idle RSS {server.memory_mb():.0f} MB")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page, cold = await open_first_pair(browser, f"{server.url}/?token={tokens['cold']}")
            await page.context.close()
            page, warm = await open_first_pair(browser, f"{server.url}/?token={tokens['warm']}")
            await page.close()  # the same browser again: its cache holds the app's files
            link = f"{server.url}/?token={tokens['warm']}"
            page, cached = await open_first_pair(browser, link, page.context)
            await page.context.close()
            print(
                f"login link to first pair: fresh server {cold * 1000:.0f} ms, "
                f"warm server {warm * 1000:.0f} ms, warm server and browser cache "
                f"{cached * 1000:.0f} ms"
            )
            for level in LEVELS:
                links = [f"{server.url}/?token={tokens[f'l{level}-{n}']}" for n in range(level)]
                pages = await asyncio.gather(*(ready_page(browser, link) for link in links))
                cpu_before = cpu_seconds(pid)  # the cycles only, not the logins
                runs = await asyncio.gather(*(cycles_on(page, cycles) for page in pages))
                cpu = cpu_seconds(pid) - cpu_before
                done = [r for one in runs for r in one]
                visible = distribution([r["visible"] for r in done])
                settled = distribution([r["settled"] for r in done])
                print(
                    f"{level} annotator(s), {len(done)} cycles: submit -> next pair visible "
                    f"p50 {visible['p50']:.0f} ms, p95 {visible['p95']:.0f} ms; settled "
                    f"p50 {settled['p50']:.0f} ms, p95 {settled['p95']:.0f} ms; server CPU "
                    f"{cpu / len(done) * 1000:.0f} ms per cycle; "
                    f"RSS {server.memory_mb():.0f} MB"
                )
        finally:
            await browser.close()
            server.stop()
    print(f"load: {Path('/proc/loadavg').read_text().strip()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=12, help="submits per annotator per level")
    args = parser.parse_args()
    asyncio.run(run(args.cycles))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
