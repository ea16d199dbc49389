// prb-annotate: the side panel on every page (put in the page by annotate/app/style.py).
// While the panel is collapsed (off screen) its controls leave the Tab order and the
// accessibility tree (`inert`): a participant's Withdraw box is never reached unseen. On a narrow
// screen, where the open panel covers the page, a tap on a page of its menu closes it (Streamlit
// leaves it open over the page it opened). It reads only the page's own elements.
(() => {
  if (window.__prbSidebar) return;
  window.__prbSidebar = true;

  const NARROW = 768; // Streamlit draws the open panel over the page below this width
  const panel = () => document.querySelector("[data-testid='stSidebar']");

  function sync() {
    const box = panel();
    if (!box) return;
    const hidden = box.getAttribute("data-collapsed") === "true";
    if (box.inert !== hidden) box.inert = hidden;
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
  new MutationObserver(sync).observe(document.body, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ["data-collapsed"],
  });
  sync();
})();
