"""Where one annotator's submit -> next pair goes (issue 36.2, K = 1): the websocket's frames
and the page's moments around each Submit, in headless Chromium against the production server.

The pool study of `bench_browser.py` (`build_database`: the next pair held, a live reservation),
the component view, one page on loopback (1366x768). For each of `--pairs` submits (the answers
clicked at random, Submit, `browser_cycles.COMPONENT_CYCLE_JS`), with `--idle` only once the
page is idle (no run under way, the held pair built: an annotator reads before submitting),
every websocket frame sent and received (its size and ms after the Submit), the moment the
server's run state changed and the moment the component's element named the new pair, then
*visible* as bench_browser.py takes it (the next animation frame showing the pair ready). Then
the medians: Submit -> the pair's frame (the run's first frame over 4 KB), the pair's frame
-> the run's last frame, the last frame -> the new pair in the element, and visible.

Run:  python benchmarks/bench_submit_timeline.py [--pairs 16] [--idle] [--show 4]

Found with it (2026-12-06, eleventh session, nobody else working, load 3.5-5 with the bench's
own server and browser; 16 submits, with and without `--idle` alike): Submit -> the pair's frame
median 36-37 ms, -> the run's last frame 52-59 ms, -> the new pair in the element 66-68 ms,
visible 68-69 ms (max 100); an ad-hoc run before it at load 1.1-2.2 gave visible medians of
66-83 ms over 3 rounds, in steps of an animation frame (the page polls at each). The run's frames
reach the browser as one burst once the script thread lets the event loop's thread have the GIL:
the pair's frame arrives at 25-40 ms and the ~12 frames after it (progress line, navigation,
the finish box, the held pair's 9 KB) within a few ms of it; the frontend applies a burst's
deltas and draws the component once it ends, 10-25 ms after the last frame. Tried and not kept:
reserving the held pair right after the pair is drawn (no change: its frame still waits for the
GIL), `sys.setswitchinterval(0.0005)` in the server (no clear change), and the held pair in a
fragment of its own that the page asks for after each swap (visible median 66-68 against
71-83 ms with `--idle`; without it 85 / 77 against 75 / 81, the held pair often not built yet;
and a run of that fragment interrupting the pair's left the instructed check's form on the page
under load). What is left: fewer of the run's
frames after the pair.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from browser_cycles import COMPONENT_CYCLE_JS, ROOT_JS
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_browser import CHROMIUM, CHROMIUM_ARGS, LAPTOP, TIMEOUT_MS, build_database

from support.appserver import AppServer

# Every frame the page's websockets send or receive: (kind, ms, bytes), kept in window.__frames.
FRAMES_JS = """
(() => {
  window.__frames = [];
  const Socket = window.WebSocket;
  const log = (kind, data) => window.__frames.push(
    [kind, performance.now(), data.byteLength ?? data.size ?? data.length ?? 0]);
  window.WebSocket = function (...args) {
    const socket = new Socket(...args);
    const send = socket.send.bind(socket);
    socket.send = (data) => { log('sent', data); return send(data); };
    socket.addEventListener('message', (event) => log('received', event.data));
    return socket;
  };
  window.WebSocket.prototype = Socket.prototype;
  Object.assign(window.WebSocket, Socket);
})();
"""
# Once per page: the moments the component's element names another pair and the run state.
WATCH_JS = """() => {
  const root = ROOT;
  const app = document.querySelector("[data-testid='stApp']");
  const log = (kind) => window.__frames.push([kind, performance.now(), 0]);
  new MutationObserver(() => log('pair')).observe(
    root, {attributes: true, subtree: true, attributeFilter: ['data-pair']});
  new MutationObserver(() => log(app.getAttribute('data-test-script-state'))).observe(
    app, {attributes: true, attributeFilter: ['data-test-script-state']});
}""".replace("ROOT", ROOT_JS)
IDLE_JS = """() => {
  const held = globalThis[Symbol.for('prb-annotate.held')];
  const built = held && (held.latest === null || !!held.pairs.get(held.latest)?.built);
  return built && document.querySelector("[data-testid='stApp']")
    ?.getAttribute('data-test-script-state') === 'notRunning';
}"""
CYCLE_JS = COMPONENT_CYCLE_JS.replace(
    "const submitted = performance.now();",
    "const submitted = performance.now(); window.__submitted = submitted;",
)


def one_submit(page: Any, idle: bool) -> dict[str, Any]:
    """A submit's frames and moments, in ms after its Submit."""
    if idle:
        page.wait_for_function(IDLE_JS, polling="raf", timeout=TIMEOUT_MS)
    page.evaluate("() => { window.__frames = []; }")
    result = page.evaluate(CYCLE_JS, TIMEOUT_MS)
    if result is None:
        raise RuntimeError("a submit did not reach the next pair in time")
    start = page.evaluate("() => window.__submitted")
    frames = [(kind, at - start, size) for kind, at, size in page.evaluate("() => window.__frames")]
    return {"visible": result["visible"], "frames": frames}


PAIR_FRAME_BYTES = 4_000  # a pair's data is 8-10 KB; the run's other frames under 1 KB


def phases(frames: list[tuple[str, float, int]]) -> dict[str, float] | None:
    """Submit -> the pair's frame, -> the run's last frame, -> the new pair in the element."""
    received = [(at, size) for kind, at, size in frames if kind == "received" and at > 0]
    drawn = [at for kind, at, _ in frames if kind == "pair" and at > 0]
    if not received or not drawn:
        return None
    big = [at for at, size in received if size > PAIR_FRAME_BYTES]
    if not big:
        return None
    pair_at = big[0]  # the pair's data (the held pair's comes after it)
    before = [at for at, _ in received if at <= drawn[0]]
    last = max(before) if before else pair_at
    return {"pair frame": pair_at, "last frame": last, "element": drawn[0]}


def timeline(frames: list[tuple[str, float, int]]) -> str:
    return " ".join(
        f"{kind[0]}{at:.0f}:{size}" if kind in ("sent", "received") else f"[{kind} {at:.0f}]"
        for kind, at, size in frames
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=16, help="submits (1 to 26)")
    parser.add_argument("--idle", action="store_true", help="submit only once the page is idle")
    parser.add_argument("--show", type=int, default=4, help="timelines printed in full")
    args = parser.parse_args()
    if not 1 <= args.pairs <= 26:
        parser.error("--pairs: 1 to 26 (the pool has 27 pairs)")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as driver:
        db, tokens = build_database(Path(tmp))
        server = AppServer(
            db, Path(tmp) / "server.log", environment={"PRB_RATING_VIEW": "component"}
        ).start()
        try:
            browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport=LAPTOP)
            context.add_init_script(FRAMES_JS)
            page = context.new_page()
            page.goto(f"{server.url}/?token={tokens['l1-0']}")
            page.locator(".prb-pair[data-pair]").first.wait_for(state="attached")
            page.evaluate(WATCH_JS)
            found = [one_submit(page, args.idle) for _ in range(args.pairs)]
            browser.close()
        finally:
            server.stop()
    for number, submit in enumerate(found[: args.show], start=1):
        print(f"submit {number}: visible {submit['visible']:.0f} ms: {timeline(submit['frames'])}")
    measured = [p for p in (phases(s["frames"]) for s in found) if p is not None]
    for name in ("pair frame", "last frame", "element"):
        values = [p[name] for p in measured]
        print(f"Submit -> {name}: median {statistics.median(values):.0f} ms (n={len(values)})")
    visible = [s["visible"] for s in found]
    print(f"Submit -> visible: median {statistics.median(visible):.0f} ms, max {max(visible):.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
