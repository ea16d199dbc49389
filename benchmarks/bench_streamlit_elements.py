"""What each Streamlit element adds to a page's first open (issue 26, item 1's evidence).

Streamlit's three-element floor (`streamlit_floor.py`) on prb-annotate's server command, with
n more elements drawn before it (`PRB_FLOOR_EXTRA`): short Markdown paragraphs, or 5-point
radios with anchors like the rating page's scores. For each, a login-free link opened in a new
browser context (empty cache) on a warm server, loopback, 1366x768: the time from the websocket
opening to the floor's token and radio drawn, taken in the page at every animation frame
(`bench_browser.FIRST_OPEN_MARKS`). Medians of `--repeats` opens, the counts interleaved.

The rating page sends about 75 elements (a pair, its context, 8 score radios, the form, the
navigation); the websocket-to-pair target is 200 ms.

Run:  python benchmarks/bench_streamlit_elements.py [--repeats 5] [--counts 0,10,20,40,70]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    first_open_prb,
    load_average,
    spread,
    start_floor,
    stop_servers_on_sigterm,
)
from playwright.async_api import async_playwright

KINDS = ("markdown", "radio")


async def measure(counts: list[int], repeats: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="bench-elements-"))
    servers: dict[tuple[str, int], Any] = {}
    try:
        for kind in KINDS:
            for count in counts:
                os.environ["PRB_FLOOR_EXTRA"] = f"{kind}:{count}"
                servers[kind, count] = start_floor(folder, production=True)
        os.environ.pop("PRB_FLOOR_EXTRA")
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for _, url in servers.values():  # each server's first session: compiled, warm
                await first_open_prb(browser, url, False)
            times: dict[tuple[str, int], list[float]] = {key: [] for key in servers}
            for _ in range(repeats):
                for key, (_, url) in servers.items():
                    times[key].append((await first_open_prb(browser, url, False))["socket_to_pair"])
            await browser.close()
        print(f"websocket open -> floor drawn, median (range) of {repeats}; load {load_average()}")
        for kind in KINDS:
            for count in counts:
                line = spread(times[kind, count])
                per = ""
                if count:
                    extra = statistics.median(times[kind, count]) - statistics.median(
                        times[kind, 0]
                    )
                    per = f"; {extra / count:.1f} ms per element"
                print(f"  {count + 3:3d} elements ({count} {kind}): {line}{per}", flush=True)
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--counts", default="0,10,20,40,70")
    arguments = parser.parse_args()
    stop_servers_on_sigterm()
    counts = sorted({0, *(int(c) for c in arguments.counts.split(","))})
    asyncio.run(measure(counts, arguments.repeats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
