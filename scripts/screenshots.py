"""The guides' screenshots (docs/images/*.png), taken in headless Chromium on the demo.

A new SQLite file with the demo study rated by 3 simulated annotators, the production server
(`support.appserver.AppServer`), and the pages the guides show: the rating page at 1366x768 and
390x844, the admin's Progress, Results and Monitor pages with the demo picked. The PNGs are
committed, so `mkdocs build --strict` needs no browser; run this again after a page changes:

    python scripts/screenshots.py [--out docs/images]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from annotate.db import make_engine  # noqa: E402
from annotate.services.admin.demo import set_up_demo  # noqa: E402
from support.appserver import AppServer  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
TIMEOUT_MS = 60_000


def settle(page: Any) -> None:
    """Until the app is connected and its script run has finished."""
    page.wait_for_selector(
        "[data-testid='stApp'][data-test-script-state='notRunning']",
        state="attached",
        timeout=TIMEOUT_MS,
    )


def drawn(page: Any) -> None:
    """Until no element is a placeholder (Streamlit draws one while its script loads)."""
    page.wait_for_function(
        "() => !document.querySelector(\"[data-testid='stSkeleton']\")", timeout=TIMEOUT_MS
    )


def rating_page(browser: Any, url: str, viewport: dict[str, int], out: Path) -> None:
    page = browser.new_page(viewport=viewport)
    page.goto(url)
    page.get_by_text("Pair 1 of 27", exact=True).wait_for(timeout=TIMEOUT_MS)
    page.locator(".st-key-response_B[tabindex='0']").wait_for(timeout=TIMEOUT_MS)
    settle(page)
    drawn(page)
    page.screenshot(path=str(out / f"rate_{viewport['width']}x{viewport['height']}.png"))
    page.close()


def admin_pages(browser: Any, url: str, out: Path) -> None:
    page = browser.new_page(viewport=LAPTOP)
    page.goto(url)
    settle(page)
    page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").first.click()
    page.get_by_role("option", name="demo", exact=True).click()
    page.mouse.move(LAPTOP["width"] - 1, LAPTOP["height"] - 1)  # no sidebar link under it
    page.get_by_role("heading", name="Progress: demo", exact=True).wait_for(timeout=TIMEOUT_MS)
    settle(page)
    page.locator("[data-testid='stMetricValue']").first.wait_for(timeout=TIMEOUT_MS)
    drawn(page)
    page.screenshot(path=str(out / "admin_progress_1366x768.png"))
    page.locator("[data-testid='stSidebarNav']").get_by_text("Results", exact=True).click()
    page.mouse.move(LAPTOP["width"] - 1, LAPTOP["height"] - 1)
    page.get_by_role("heading", name="Results: demo", exact=True).wait_for(timeout=TIMEOUT_MS)
    settle(page)
    drawn(page)
    page.screenshot(path=str(out / "results_1366x768.png"))
    page.locator("[data-testid='stSidebarNav']").get_by_text("Monitor", exact=True).click()
    page.mouse.move(LAPTOP["width"] - 1, LAPTOP["height"] - 1)
    page.get_by_role("heading", name="Monitor: demo", exact=True).wait_for(timeout=TIMEOUT_MS)
    page.locator("[data-testid='stMetricValue']").first.wait_for(timeout=TIMEOUT_MS)
    settle(page)
    drawn(page)
    page.screenshot(path=str(out / "admin_monitor_1366x768.png"))
    page.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="prb_screenshots_"))
    engine = make_engine(str(folder / "demo.db"))
    demo = set_up_demo(engine, simulated_annotators=3)
    engine.dispose()
    server = AppServer(str(folder / "demo.db"), folder / "server.log").start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for viewport in (LAPTOP, PHONE):
                rating_page(browser, f"{server.url}/?token={demo.token}", viewport, args.out)
            admin_pages(browser, f"{server.url}/?token={demo.admin_token}", args.out)
            browser.close()
    finally:
        server.stop()
    for png in sorted(args.out.glob("*.png")):
        print(f"{png.relative_to(ROOT) if png.is_relative_to(ROOT) else png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
