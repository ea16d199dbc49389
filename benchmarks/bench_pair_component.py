"""Submit -> next pair visible, the rating page's two views side by side (issue 36, item 2's
start): Streamlit's widgets (the fallback) and our own pair component (the default view).

For each round, each view in turn (the order rotated, so the shared machine's load falls on both
alike): a fresh SQLite file with the demo study (27 pairs, the default four questions), a fresh
app server with that view (the production command), one headless Chromium page on loopback
(1366x768), the first pair opened; then for each of `--pairs` pairs: the 8 scores clicked at
random, Submit clicked, and the time until the next pair is *visible* (its token changed, no
score checked, the focus on its first question) and *settled* (the server's run finished),
measured in the page at every animation frame (bench_browser's method, its cycle for the
Streamlit view). Medians and p95 over all pairs of a view, the ratio component / Streamlit within
each round, and the load average after each round.

Run:  python benchmarks/bench_pair_component.py [--pairs 24] [--rounds 2]

Measured (session 8, 2026-12-06, the 2-core machine shared with four other agents, load
average 11-13 throughout: far from quiet, both views alike), 2 rounds x 24 pairs per view:
* Streamlit's widgets: visible median 512 ms (round medians 536, 490), p95 847 ms;
* the pair component: visible median 122 ms (136, 103), p95 234 ms; settled median 131 ms;
* component / Streamlit within each round: 0.25 and 0.21.
Again after the preference was added to the component (load 12.5-15.4): Streamlit 513 ms (409,
603), p95 886 ms; component 145 ms (150, 119), p95 278 ms; ratios 0.37 and 0.20. With load
this high the ratio moves from round to round; a quiet machine is still to be measured.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_browser import CHROMIUM, CHROMIUM_ARGS, LAPTOP, TIMEOUT_MS
from browser_cycles import COMPONENT_CYCLE_JS, CYCLE_JS

from annotate.db import make_engine
from annotate.services.admin.demo import set_up_demo
from support.appserver import AppServer
from tests.helpers.browser_helpers import add_annotator

VIEWS = ("streamlit", "component")


def one_view(browser: Any, view: str, pairs: int, folder: Path) -> list[dict[str, float]]:
    """A fresh database and server with `view`; `pairs` submits timed in one page."""
    db = folder / f"{view}.db"
    engine = make_engine(str(db))
    set_up_demo(engine)
    token = add_annotator(engine, "demo", f"bench-{view}")
    engine.dispose()
    server = AppServer(
        str(db), folder / f"{view}.log", environment={"PRB_RATING_VIEW": view}
    ).start()
    try:
        context = browser.new_context(viewport=LAPTOP)
        page = context.new_page()
        page.goto(f"{server.url}/?token={token}")
        ready = ".prb-pair[data-pair]" if view == "component" else ".st-key-pair_token input"
        page.locator(ready).first.wait_for(state="attached", timeout=TIMEOUT_MS)
        page.wait_for_selector(
            "[data-testid='stApp'][data-test-script-state='notRunning']", state="attached"
        )
        cycle = COMPONENT_CYCLE_JS if view == "component" else CYCLE_JS
        results = []
        for _ in range(pairs):
            result = page.evaluate(cycle, TIMEOUT_MS)
            if result is None:
                raise RuntimeError(f"{view}: a submit did not reach the next pair in time")
            results.append(result)
        context.close()
        return results
    finally:
        server.stop()


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=24, help="submits per view and round")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if not 1 <= args.pairs <= 26:
        parser.error("--pairs: 1 to 26 (the demo study has 27 pairs)")
    found: dict[str, list[dict[str, float]]] = {v: [] for v in VIEWS}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for number in range(args.rounds):
            order = VIEWS if number % 2 == 0 else VIEWS[::-1]
            medians = {}
            for view in order:
                folder = Path(tmp) / f"round{number}"
                folder.mkdir(exist_ok=True)
                results = one_view(browser, view, args.pairs, folder)
                found[view] += results
                medians[view] = statistics.median(r["visible"] for r in results)
            ratio = medians["component"] / medians["streamlit"]
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            print(
                f"round {number + 1}: visible median streamlit {medians['streamlit']:.0f} ms, "
                f"component {medians['component']:.0f} ms (ratio {ratio:.2f}); load {load}",
                flush=True,
            )
        browser.close()
    for view in VIEWS:
        visible = [r["visible"] for r in found[view]]
        settled = [r["settled"] for r in found[view]]
        print(
            f"{view:>9}: submit -> next pair visible median {statistics.median(visible):.0f} ms, "
            f"p95 {p95(visible):.0f} ms; settled median {statistics.median(settled):.0f} ms "
            f"(n={len(visible)})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
