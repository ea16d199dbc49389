"""Submit -> next pair, measured in the page (`bench_browser.py`, `bench_pair_component.py`): the
scripts that tell which pair a page shows and time a cycle, for prb-annotate's two views
(Streamlit's widgets; our pair component, PRB_RATING_VIEW=component) and for Potato.

prb-annotate's cycle runs in one page (the next pair comes over the websocket): the answers
clicked at random, Submit clicked, then every animation frame until the next pair is *visible*
(another token, nothing checked, the focus on its first question) and *settled* (the server's run
finished). Potato's Next saves, asks for the next item and reloads the page, so its cycle spans
two documents: the click's time is taken in the first (epoch ms) and the next item's first
frame drawn (its text and first scale) in the second, by a script that runs in every document.
"""

from __future__ import annotations

from typing import Any

# The component's shadow root on the page (null until it is drawn).
ROOT_JS = """(() => {
    const host = [...document.querySelectorAll('*')].find(
      h => h.shadowRoot && h.shadowRoot.querySelector('.prb-pair'));
    return host ? host.shadowRoot : null;
  })()"""
COMPONENT_READY_JS = """() => {
    const root = ROOT;
    const pair = root ? root.querySelector('.prb-pair') : null;
    const active = root ? root.activeElement : null;
    const first = root ? root.querySelector('fieldset.q') : null;
    return {
      token: pair ? (pair.dataset.pair || null) : null,
      checked: root ? root.querySelectorAll('fieldset.q input:checked').length : 0,
      focused: !!(active && first && active.type === 'radio' && first.contains(active)),
      settled: document.querySelector("[data-testid='stApp']")
                 ?.getAttribute('data-test-script-state') === 'notRunning',
    };
  }""".replace("ROOT", ROOT_JS)
STREAMLIT_READY_JS = """() => {
  const token = document.querySelector('.st-key-pair_token input');
  const active = document.activeElement;
  return {
    token: token ? token.value : null,
    checked: document.querySelectorAll(
      ".st-key-scores_A input:checked, .st-key-scores_B input:checked").length,
    focused: !!(active && active.type === 'radio' && active.closest('.st-key-factuality_A')),
    settled: document.querySelector("[data-testid='stApp']")
               ?.getAttribute('data-test-script-state') === 'notRunning',
  };
}"""
# Either view: the pair shown, and whether it is ready for the annotator.
READY_JS = f"""() => {{
  const component = ({COMPONENT_READY_JS})();
  return component.token ? component : ({STREAMLIT_READY_JS})();
}}"""

# Fill the scores, submit, and time the next pair (all in the page). READY tells the pair shown
# and whether it is ready, FILL clicks a random answer to each question, SUBMIT sends the pair.
CYCLE_TEMPLATE = """
async (deadline) => {
  const ready = READY;
  const frame = () => new Promise(r => requestAnimationFrame(r));
  const start = performance.now();
  const before = ready().token;
  FILL
  await frame();
  const submitted = performance.now();
  SUBMIT
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
CYCLE_JS = (  # Streamlit's widgets (the default view)
    CYCLE_TEMPLATE.replace("READY", STREAMLIT_READY_JS)
    .replace(
        "FILL",
        """for (const group of document.querySelectorAll(
      ".st-key-scores_A [data-testid='stRadio'], .st-key-scores_B [data-testid='stRadio']")) {
    const labels = group.querySelectorAll("label[data-testid='stRadioOption']");
    labels[Math.floor(Math.random() * labels.length)].click();
  }""",
    )
    .replace("SUBMIT", "document.querySelector('.st-key-submit button').click();")
)
COMPONENT_CYCLE_JS = (  # our pair component (PRB_RATING_VIEW=component)
    CYCLE_TEMPLATE.replace("READY", COMPONENT_READY_JS)
    .replace(
        "FILL",
        """for (const group of ROOT.querySelectorAll('fieldset.q')) {
    const boxes = group.querySelectorAll("input[type='radio']");
    boxes[Math.floor(Math.random() * boxes.length)].click();
  }""",
    )
    .replace("SUBMIT", "ROOT.querySelector('button.submit').click();")
    .replace("ROOT", ROOT_JS)
)


def cycle_js(view: str) -> str:
    return COMPONENT_CYCLE_JS if view == "component" else CYCLE_JS


# Potato, in every document: the item shown (its id) and the epoch ms of the first animation
# frame in which its text and first scale were drawn and shown (Potato hides them while loading).
POTATO_MARKS = """
(() => {
  const now = () => performance.timeOrigin + performance.now();
  const tick = () => {
    const id = document.querySelector('#instance_id')?.value;
    const text = document.querySelector('#instance-text');
    const idle = typeof isLoading === 'undefined' || !isLoading;
    if (id && idle && text && text.offsetParent !== null && text.innerText.includes('Response A')
        && document.querySelector("input[name='factuality_A']")) {
      if (window.__potatoDrawn?.id !== id) window.__potatoDrawn = {id, at: now()};
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();
"""
# The 8 scores clicked at random (Potato saves each); then, once Potato is not loading (it
# ignores Next meanwhile), Next: the click's epoch ms.
POTATO_FILL_JS = """() => {
  for (const name of NAMES) {
    const boxes = document.querySelectorAll(`input[name='${name}']`);
    if (boxes.length) boxes[Math.floor(Math.random() * boxes.length)].click();
  }
}"""
POTATO_IDLE_JS = "() => typeof isLoading === 'undefined' || !isLoading"
POTATO_NEXT_JS = """() => {
  const at = performance.timeOrigin + performance.now();
  document.querySelector('#next-btn').click();
  return at;
}"""


async def potato_page(browser: Any, url: str, user: str, viewport: dict[str, int]) -> Any:
    """A Potato annotator logged in (a new context), on their first item."""
    context = await browser.new_context(viewport=viewport)
    await context.add_init_script(POTATO_MARKS)
    page = await context.new_page()
    await page.goto(url)
    await page.fill("#login-email", user)
    await page.click("button.potato-form-submit")
    await page.wait_for_function("() => window.__potatoDrawn", polling="raf")
    return page


async def potato_cycles(page: Any, cycles: int, names: list[str], timeout_ms: int) -> list[float]:
    """`cycles` items: their scores clicked, Next, ms until the next item is drawn."""
    fill = POTATO_FILL_JS.replace("NAMES", repr(names))
    found = []
    for _ in range(cycles):
        before = (await page.evaluate("() => window.__potatoDrawn"))["id"]
        await page.evaluate(fill)
        await page.wait_for_function(POTATO_IDLE_JS, polling="raf", timeout=timeout_ms)
        clicked = float(await page.evaluate(POTATO_NEXT_JS))
        drawn = await _next_drawn(page, before, timeout_ms)
        found.append(drawn - clicked)
    await page.context.close()
    return found


async def _next_drawn(page: Any, before: str, timeout_ms: int) -> float:
    """Epoch ms at which an item other than `before` was drawn (across the page's reload)."""
    for _ in range(50):  # a check that runs while the document is being replaced is retried
        try:
            handle = await page.wait_for_function(
                "(before) => window.__potatoDrawn && window.__potatoDrawn.id !== before"
                " && window.__potatoDrawn.at",
                arg=before,
                polling="raf",
                timeout=timeout_ms,
            )
            return float(await handle.json_value())
        except Exception as error:  # Playwright: "Execution context was destroyed"
            if "destroyed" not in str(error) and "navigat" not in str(error).lower():
                raise
    raise RuntimeError("Potato's next item was not drawn")
