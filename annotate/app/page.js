// prb-annotate: the script of every page (put in the page by annotate/app/style.py).
// The side panel: while it is collapsed (off screen) its controls leave the Tab order and the
// accessibility tree (`inert`), so a participant's Withdraw box is never reached unseen; on a
// narrow screen, where the open panel covers the page, a tap on a page of its menu closes it
// (Streamlit leaves it open over the page it opened). The static tables (`st.table`), which
// scroll sideways on a phone, are a named Tab stop each, so a keyboard can scroll them too
// (axe's scrollable-region-focusable). It reads only the page's own elements.
(() => {
  if (window.__prbPage) return;
  window.__prbPage = true;

  const NARROW = 768; // Streamlit draws the open panel over the page below this width
  const panel = () => document.querySelector("[data-testid='stSidebar']");

  function sync() {
    pending = false;
    const box = panel();
    if (box) {
      const hidden = box.getAttribute("data-collapsed") === "true";
      if (box.inert !== hidden) box.inert = hidden;
    }
    for (const table of document.querySelectorAll("[data-testid='stTable']")) {
      for (const el of [table, ...table.querySelectorAll(":scope > div, :scope > div > div")]) {
        const scrolls =
          el.scrollWidth > el.clientWidth && /(auto|scroll)/.test(getComputedStyle(el).overflowX);
        if (scrolls && el.getAttribute("tabindex") !== "0") {
          el.setAttribute("tabindex", "0");
          el.setAttribute("role", "region");
          el.setAttribute("aria-label", "Table (scrolls sideways)");
        }
      }
    }
  }
  let pending = false;
  function schedule() {
    if (!pending) {
      pending = true;
      requestAnimationFrame(sync);
    }
  }

  document.addEventListener(
    "click",
    (event) => {
      const link = event.target.closest && event.target.closest("[data-testid='stSidebarNavLink']");
      if (!link || window.innerWidth >= NARROW) return;
      // After Streamlit has taken the click (it switches the page), close the panel.
      setTimeout(() => {
        document.querySelector("[data-testid='stSidebarCollapseButton'] button")?.click();
      }, 0);
    },
    true,
  );
  new MutationObserver(schedule).observe(document.body, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ["data-collapsed"],
  });
  sync();
})();
