// prb-annotate rating page: keyboard rating, a new pair opened at its top, errors where the eye is,
// and the pair's quality signals (focus losses, pastes into the rationale: counts only).
// Injected once per browser tab by annotate/app/keyboard.py; it reads only the page's own elements.
// Never write a less-than sign right before a letter, a slash or "!" here, not even in a comment:
// Streamlit's sanitiser (DOMPurify) then drops the whole script.
(() => {
  if (window.__prbRate) return;
  window.__prbRate = true;

  const GROUPS = ".st-key-scores_A [data-testid='stRadio'], .st-key-scores_B [data-testid='stRadio']";
  // Questions after the scores (a study's design options): the aspect checklist (options
  // "0 · Not covered" .. "2 · Well") and the direct preference (options without numbers).
  const AFTER =
    ".st-key-aspect_checklist [data-testid='stRadio'], .st-key-preference_box [data-testid='stRadio']";
  const STOPS = `${GROUPS}, ${AFTER}`;
  const groups = () => [...document.querySelectorAll(GROUPS)];
  const stops = () => [...document.querySelectorAll(STOPS)]; // in page order
  const groupOf = (el) => (el && el.closest ? el.closest(GROUPS) : null);
  const stopOf = (el) => (el && el.closest ? el.closest(STOPS) : null);
  // The rating page's Submit, or a training practice pair's (the same questions and keys).
  const submitButton = () =>
    document.querySelector(".st-key-submit button, .st-key-practice_submit button");
  const rationaleBox = () => document.querySelector(".st-key-rationale textarea");
  const radios = (group) => [...group.querySelectorAll("input[type='radio']")];

  function focusGroup(group) {
    if (!group) return false;
    const input = group.querySelector("input[type='radio']:checked") || radios(group)[0];
    if (!input) return false;
    input.focus({ preventScroll: true });
    return true;
  }

  // The first question still unanswered (else the first), in page order.
  const firstOpen = () => {
    const all = stops();
    return all.find((g) => !g.querySelector("input[type='radio']:checked")) || all[0] || null;
  };

  function scrollToTop() {
    window.scrollTo(0, 0);
    for (const box of document.querySelectorAll("[data-testid='stMain'], [data-testid='stAppViewContainer']")) {
      box.scrollTop = 0;
    }
  }

  // The option a digit picks: the one whose label is that number ("3 · Good", or "3" for a
  // point without an anchor); in a question whose options carry no numbers (the preference),
  // the option at that place.
  const pointOf = (label) => (label.innerText.trim().match(/^([0-9]+)(\s·|$)/) || [])[1];
  function optionFor(group, key) {
    const labels = [...group.querySelectorAll("label[data-testid='stRadioOption']")];
    const numbered = labels.filter((l) => pointOf(l) !== undefined);
    if (!numbered.length) return labels[Number(key) - 1];
    return numbered.find((l) => pointOf(l) === key);
  }

  // After the last question: the preference's rationale when there is one, else Submit.
  function focusAfterQuestions() {
    const box = rationaleBox();
    if (box) box.focus({ preventScroll: false });
    else submitButton()?.focus({ preventScroll: false });
  }

  // Digits answer the focused question (a score: the option whose label starts with that
  // number; a later question: the option at that place), then the focus moves to the next
  // question, and after the last one on to the rationale or Submit. Ctrl+Enter submits.
  function onKey(event) {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      const button = submitButton();
      if (button) {
        event.preventDefault();
        event.stopPropagation();
        button.click();
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || !/^[0-9]$/.test(event.key)) return;
    // A digit typed with the focus on no control (the page itself: after a click beside the
    // questions, or before the focus came) answers the first open question (issue 34.5: the
    // first digit on a practice pair did nothing).
    const onPage = !document.activeElement || document.activeElement === document.body;
    const group = onPage ? firstOpen() : stopOf(document.activeElement);
    if (!group || (!onPage && document.activeElement.type !== "radio")) return;
    const label = optionFor(group, event.key);
    if (!label) return;
    event.preventDefault();
    event.stopPropagation();
    label.click();
    group.classList.remove("prb-missing");
    const all = stops();
    const next = all[all.indexOf(group) + 1];
    if (!focusGroup(next)) focusAfterQuestions();
  }
  window.addEventListener("keydown", onKey, true);
  window.addEventListener(
    "change",
    (event) => groupOf(event.target)?.classList.remove("prb-missing"),
    true,
  );

  // Quality signals of the pair shown (annotate/domain/rating/signals.py): how often the page
  // lost focus (tab hidden or window left; one loss per time away) and how many pastes went into
  // the rationale (never the text). Written into the pair's hidden field as
  // "PAIR:LOSSES:PASTES", which the form sends with that pair's submit; a new pair (the
  // token changes, or the pair leaves the page) starts again from zero.
  const signals = { pair: null, losses: 0, pastes: 0, away: false };
  const setInput = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
  function writeSignals() {
    const box = document.querySelector(".st-key-pair_signals input");
    if (!box || signals.pair === null) return;
    const text = `${signals.pair}:${signals.losses}:${signals.pastes}`;
    if (box.value === text) return;
    setInput.call(box, text); // as typed: React sees an input event
    box.dispatchEvent(new Event("input", { bubbles: true }));
  }
  function trackPair(token) {
    const pair = token && token.value ? token.value : null;
    if (pair !== signals.pair) {
      signals.pair = pair;
      signals.losses = 0;
      signals.pastes = 0;
    }
    writeSignals();
  }
  function leave() {
    if (signals.away || signals.pair === null) return;
    signals.away = true;
    signals.losses += 1;
    writeSignals();
  }
  const back = () => { signals.away = false; };
  window.addEventListener("blur", leave);
  window.addEventListener("focus", back);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") leave();
    else if (document.hasFocus()) back();
  });
  document.addEventListener(
    "paste",
    (event) => {
      if (!event.target.closest || !event.target.closest(".st-key-rationale")) return;
      signals.pastes += 1;
      writeSignals();
    },
    true,
  );

  // Watch the page: a new pair (the hidden token changed) opens at its top with the focus on its
  // first score; a new missing-score error is scrolled into view and the empty groups marked.
  let shownPair = null;
  let shownError = null;
  let pending = false;
  // Streamlit may still redraw the new pair's elements after they first appear (and take the
  // focus with them): until the annotator acts or a moment has passed, the focus is put back.
  let settleUntil = 0;
  const acted = () => { settleUntil = 0; stepUntil = 0; };
  window.addEventListener("pointerdown", acted, true);
  window.addEventListener("keydown", acted, true);
  window.addEventListener("wheel", acted, { capture: true, passive: true });
  window.addEventListener("touchstart", acted, { capture: true, passive: true });
  // The scroll boxes (the question, the two responses, the context's tabs): a Tab stop each,
  // named, so a keyboard or screen-reader user can reach and scroll them (axe's
  // scrollable-region-focusable). Streamlit's containers take no attributes of their own.
  const SCROLL_BOXES = [
    [".st-key-question", "Question"],
    [".st-key-conversation", "Conversation"],
    [".st-key-response_A", "Response A"],
    [".st-key-response_B", "Response B"],
    [".st-key-context [data-testid='stTabPanel']", null],
  ];
  function nameScrollBoxes() {
    for (const [selector, name] of SCROLL_BOXES) {
      for (const box of document.querySelectorAll(selector)) {
        if (box.getAttribute("tabindex") === "0") continue;
        box.setAttribute("tabindex", "0");
        if (name) {
          box.setAttribute("role", "region");
          box.setAttribute("aria-label", name);
        }
      }
    }
  }
  // A conversation opens at its last turn (the one the responses answer), as a chat does;
  // the earlier turns are a scroll up (the box's top shadow says so).
  function showLastTurn() {
    const box = document.querySelector(".st-key-conversation");
    if (box) box.scrollTop = box.scrollHeight;
  }
  function check() {
    pending = false;
    nameScrollBoxes();
    for (const group of stops()) {
      for (const icon of group.querySelectorAll("button:not([tabindex='-1']), [tabindex='0']:not(input)")) {
        icon.setAttribute("tabindex", "-1"); // the help icon: no Tab stop of its own
      }
    }
    const token = document.querySelector(".st-key-pair_token input");
    trackPair(token);
    if (token && token.value && token.value !== shownPair && groups().length) {
      shownPair = token.value;
      settleUntil = Date.now() + 1500;
      for (const delay of [50, 150, 400, 800, 1500]) setTimeout(schedule, delay);
    }
    if (Date.now() < settleUntil) {
      scrollToTop();
      showLastTurn();
      const first = groups()[0];
      if (groupOf(document.activeElement) !== first) focusGroup(first);
    }
    if (!token) focusNewStep();
    const error = document.querySelector("[class*='st-key-submit_error_']");
    const errorId = error ? error.className : null;
    if (error && errorId !== shownError) {
      const empty = groups().filter((g) => !g.querySelector("input[type='radio']:checked"));
      for (const g of empty) g.classList.add("prb-missing");
      error.scrollIntoView({ block: "center" });
      if (empty.length) focusGroup(empty[0]);
    }
    shownError = errorId;
  }
  // A training step (a practice pair, its feedback, the comprehension check, the Start page)
  // drawn after the last one left the focus on the page, so Tab started again at its top
  // (issue 34.5): the focus goes to the step's first open question, else to its main button.
  // (The rating page's pairs have their own rule above: the pair token.)
  let shownStep = null;
  let stepUntil = 0; // as settleUntil: Streamlit may redraw the step and drop the focus again
  function focusNewStep() {
    const title = document.querySelector("[data-testid='stMain'] h1");
    const step = title ? title.innerText : null;
    if (step && step !== shownStep) {
      shownStep = step;
      stepUntil = Date.now() + 1500; // until the person acts (`acted`)
      for (const delay of [50, 150, 400, 800, 1500]) setTimeout(schedule, delay);
    }
    if (stepUntil && document.querySelector(RUNNING)) stepUntil = Date.now() + 1500;
    if (Date.now() >= stepUntil) return; // once the person acts, their focus stays theirs
    // (The focus may also sit on an element Streamlit kept from the last step: a button.)
    const target = firstOpen() || document.querySelector(PRIMARY);
    if (!target || target.contains(document.activeElement)) return;
    scrollToTop(); // the step opens at its top, as a new pair does
    if (target.matches("button")) target.focus({ preventScroll: true });
    else focusGroup(target);
  }
  const RUNNING = "[data-testid='stApp'][data-test-script-state='running']";
  const PRIMARY =
    "[data-testid='stMain'] [data-testid='stBaseButton-primary'], " +
    "[data-testid='stMain'] [data-testid='stBaseButton-primaryFormSubmit']";

  function schedule() {
    if (!pending) {
      pending = true;
      requestAnimationFrame(check);
    }
  }
  // Attributes too: a run's end flips `data-stale` and the app's script state.
  new MutationObserver(schedule).observe(document.body, {
    childList: true,
    subtree: true,
    characterData: true,
    attributes: true,
    attributeFilter: ["data-stale", "data-test-script-state", "class", "aria-checked"],
  });
  setInterval(schedule, 100); // a value set by React (the token) is no DOM mutation
  check();
})();
