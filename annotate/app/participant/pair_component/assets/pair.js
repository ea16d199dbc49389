// prb-annotate: one blinded pair drawn by our own component (annotate/app/participant/pair_component).
// Every text from the data is put in with createTextNode / textContent, and dataset text comes
// as a tree of plain nodes (text_tree.py) built here with createElement from a fixed list of
// tags: nothing in the data is ever parsed as HTML.
// Streamlit calls this function again whenever the data change; the pair is drawn anew only
// when the pair changes (a refused submit keeps what was typed).
// What is entered is kept in the tab until the server confirms it, and sent again after an
// outage, by the outbox (outbox.js, its own module: issue 36.4).

import { el } from "./dom.js";
import * as outbox from "./outbox.js";

import { onResponseKey, placedRun, selectedSpan, selectionIn, showCaret, shownBetween, spanList } from "./spans.js";

import { aspectMarks, drawAspects } from "./aspects.js"; // the aspect checklist (its own module)
// The next pair, held (held.js, issue 36.2): built off-screen with `children`, shown by `draw`.
// Imported once this script runs, not before (a static import would keep the first pair waiting
// one more round trip on a slow connection); until it is there, a pair is drawn as it comes.
let held = null;
import("./held.js").then((module) => {
  held = module;
  if (current) held.buildWith(buildHeld);
});

const TAGS = new Set([
  "p", "strong", "em", "s", "code", "pre", "ul", "ol", "li", "blockquote", "br", "hr",
  "table", "thead", "tbody", "tr", "th", "td", "span",
]);
const BLOCKS = new Set(["p", "li", "td", "th", "blockquote"]);
const NEXT_TURN = "The assistant's next turn, written two ways: Response A and Response B below.";
const STATES = new WeakMap(); // the component's root -> its state
let current = null; // the state of the pair component on the page (for the page-wide keys)


// A text tree: a string is text; a node is [tag, children] with a tag of TAGS (else a span);
// in a response, ["#", text, start] is text placed in the stored text, drawn with its `marks`.
function build(nodes, parent, marks = [], labels = []) {
  for (const node of nodes || []) {
    if (typeof node === "string") {
      parent.append(document.createTextNode(node));
    } else if (Array.isArray(node) && node[0] === "#") {
      parent.append(placedRun(String(node[1]), Number(node[2]), marks, labels));
    } else if (Array.isArray(node)) {
      const tag = TAGS.has(node[0]) ? node[0] : "span";
      const child = document.createElement(tag);
      if (BLOCKS.has(tag)) child.dir = "auto"; // right-to-left text aligned as it reads
      build(node[1], child, marks, labels);
      parent.append(child);
    }
  }
  return parent;
}

function region(name, cls, ...children) {
  // A scroll box: a Tab stop, named for a screen reader.
  return el("div", { class: cls, role: "region", "aria-label": name, tabindex: "0" }, ...children);
}

function drawContext(data) {
  const box = el("div", { class: "context" });
  if (data.conversation.length) {
    const chat = region("Conversation", "conversation",
      el("p", { class: "box-title", text: "The conversation so far" }));
    for (const turn of data.conversation) {
      chat.append(el("div", { class: `turn turn-${turn.role}` },
        el("p", { class: "who", text: turn.name }), build(turn.body, el("div", { class: "md" }))));
    }
    chat.append(el("p", { class: "caption", text: NEXT_TURN }));
    box.append(chat);
  } else {
    const title = el("p", { class: "box-title" }, el("strong", { text: "The user's question" }));
    // (Not in italics: on a pair whose text has no emphasis, that one word would fetch the
    // font's italic face, 139 KB, on every first open.)
    if (data.category) title.append(" · ", el("span", { class: "category", text: data.category }));
    box.append(region("Question", "question", title, build(data.question, el("div", { class: "md" }))));
  }
  data.sections.forEach((section, index) => {
    const details = el("details", { class: "section" },
      el("summary", { text: section.title }),
      build(section.body, region(section.title, "md")));
    if (index === 0 && data.sections.length > 1) details.open = true;
    box.append(details);
  });
  return box;
}

function drawQuestion(side, question, saved) {
  const set = el("fieldset", { class: "q", "data-side": side, "data-key": question.key });
  set.append(el("legend", { text: `Response ${side}: ${question.label}` }));
  set.append(el("p", { class: "hint", text: question.text }));
  const options = el("div", { class: "options" });
  for (const option of question.options) {
    const input = el("input", { type: "radio", name: `${side}__${question.key}`, value: String(option.value) });
    if (saved === option.value) input.checked = true;
    const words = option.words ? `${option.value}\u00a0· ${option.words.replace(/ /g, "\u00a0")}` : String(option.value);
    options.append(el("label", { class: "opt" }, input, el("span", { text: words })));
  }
  set.append(options);
  return set;
}

function drawSides(state, m, data) {
  const sides = el("div", { class: "sides" });
  const marking = m.labels.length > 0;
  for (const response of data.responses) {
    const side = response.side;
    const column = el("div", { class: `side side-${side}` });
    // Rows shared by both columns (pair.css: subgrid): each question level with its twin.
    column.style.gridRow = `span ${data.questions.length + (marking ? 3 : 2)}`;
    column.append(el("h3", { text: `Response ${side}` }));
    const box = region(`Response ${side}`, "response");
    column.append(box);
    m.boxes[side] = box;
    m.trees[side] = response.body;
    drawResponse(m, side);
    if (marking) column.append(drawSpanTools(state, m, side));
    const saved = data.saved.scores[side] || {};
    for (const question of data.questions) column.append(drawQuestion(side, question, saved[question.key]));
    sides.append(column);
  }
  return sides;
}

// The response's text with its marks (drawn again whenever a mark is added or removed).
function drawResponse(m, side) {
  const marks = m.spans[side] || [];
  const body = build(m.trees[side], el("div", { class: "md" }), marks, m.labels);
  m.boxes[side].replaceChildren(body);
}

// Under a response: a button per span label (marks the text selected in it), the spans marked
// with their Remove buttons, and a line that says what happened.
function drawSpanTools(state, m, side) {
  const tools = el("div", { class: "span-tools", "data-side": side });
  const buttons = el("div", { class: "span-labels", role: "group", "aria-label": `Mark the text selected in Response ${side} as` },
    el("span", { class: "hint", text: "Mark the selected text as:" }));
  m.labels.forEach((label, index) => {
    const button = el("button", { type: "button", class: `span-label l${index % 8}`, "data-label": label.key,
      text: `${index + 1} · ${label.label}` });
    button.addEventListener("pointerdown", (event) => event.preventDefault()); // keep the selection
    button.addEventListener("click", () => markSelection(state, m, side, index));
    buttons.append(button);
  });
  const said = el("p", { class: "span-said hint", role: "status" });
  tools.append(buttons, el("div", { class: "span-marks" }), said);
  m.tools[side] = tools;
  const box = m.boxes[side];
  box.addEventListener("keydown", (event) =>
    onResponseKey(event, box, m.labels.length, (index) => markSelection(state, m, side, index)));
  box.addEventListener("mouseup", () => showCaret(box));
  drawSpanList(state, m, side);
  return tools;
}

function drawSpanList(state, m, side) {
  const list = spanList(side, m.spans[side], m.labels, m.trees[side], (index) => {
    const [start, end, key] = m.spans[side][index];
    m.spans[side].splice(index, 1);
    drawResponse(m, side);
    drawSpanList(state, m, side);
    outbox.changed(state);
    say(m, side, `Removed ${labelName(m, key)}: ${shownBetween(m.trees[side], start, end)}`);
    m.boxes[side].focus({ preventScroll: true });
  });
  m.tools[side].querySelector(".span-marks").replaceChildren(list);
}

const labelName = (m, key) => m.labels.find((l) => l.key === key)?.label || key;
const say = (m, side, words) => { m.tools[side].querySelector(".span-said").textContent = words; };

// Mark what is selected in the response (or was, before a button took the tap) with label
// `index`; the same span with the same label twice is one span.
function markSelection(state, m, side, index) {
  const label = m.labels[index];
  const span = selectedSpan(m.boxes[side]) || (m.lastSelection?.side === side ? m.lastSelection.span : null);
  if (!label) return;
  if (!span) { say(m, side, `Select some text in Response ${side} first.`); return; }
  const marks = m.spans[side];
  if (!marks.some(([s, e, k]) => s === span[0] && e === span[1] && k === label.key)) {
    marks.push([span[0], span[1], label.key]);
    marks.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  }
  m.lastSelection = null;
  selectionIn(m.boxes[side]).removeAllRanges();
  drawResponse(m, side);
  drawSpanList(state, m, side);
  outbox.changed(state);
  say(m, side, `Marked as ${label.label}: ${shownBetween(m.trees[side], span[0], span[1])}`);
}

// The direct preference (by side only; a digit picks the option at its place) and its
// rationale box unless the study's rationale is "off".
function drawPreference(data) {
  const asked = data.preference;
  if (!asked) return null;
  const set = el("fieldset", { class: "q pref", "data-key": "preference" });
  set.append(el("legend", { text: "Which response fits this user better?" }));
  const options = el("div", { class: "options" });
  for (const option of asked.options) {
    const input = el("input", { type: "radio", name: "preference", value: String(option.value) });
    if (asked.saved === option.value) input.checked = true;
    options.append(el("label", { class: "opt" }, input, el("span", { text: option.words })));
  }
  set.append(options);
  const box = el("div", { class: "preference" }, set);
  if (asked.rationale !== "off") {
    const why = el("textarea", { id: "prb-rationale", rows: "2", maxlength: String(asked.max_chars) });
    why.value = asked.saved_rationale || "";
    box.append(el("label", { for: "prb-rationale", text: `Why? (${asked.rationale})` }), why);
  }
  return box;
}

function drawNotes(data) {
  if (data.notes === false) return null; // a practice pair asks no comment nor flag
  const comment = el("textarea", { id: "prb-comment", rows: "2" });
  comment.value = data.saved.comment || "";
  const flag = el("input", { id: "prb-flag", type: "text" });
  flag.value = data.saved.flag || "";
  return el("div", { class: "notes" },
    el("div", {}, el("label", { for: "prb-comment", text: "Comment (optional)" }), comment),
    el("div", {}, el("label", { for: "prb-flag", text: "Flag this pair: describe the problem (optional)" }), flag,
      el("p", { class: "hint", text: "For broken, offensive or impossible-to-judge pairs. With every answer given, the pair counts as rated; with answers left out, it is sent to the organisers without scores and set aside like a skipped pair." })));
}

function drawActions(state, data) {
  const submit = el("button", { type: "button", class: "submit", text: data.submit || "Submit and go to the next pair" });
  submit.addEventListener("click", () => send(state, "submit"));
  const actions = el("div", { class: "actions" }, submit);
  if (data.can_skip) {
    const reason = el("input", { id: "prb-skip-reason", type: "text" });
    const skip = el("button", { type: "button", class: "skip", text: "Skip" });
    const row = el("div", { class: "skip-row", hidden: "" },
      el("label", { for: "prb-skip-reason", text: "Why do you skip it?" }), reason, skip);
    const open = el("button", { type: "button", class: "skip-open", "aria-expanded": "false", text: "Skip this pair" });
    open.addEventListener("click", () => {
      row.hidden = !row.hidden;
      open.setAttribute("aria-expanded", String(!row.hidden));
      if (!row.hidden) reason.focus();
    });
    skip.addEventListener("click", () => send(state, "skip"));
    reason.addEventListener("keydown", (event) => {
      if (event.key === "Enter") { event.preventDefault(); send(state, "skip"); }
    });
    actions.append(open, row);
  }
  return actions;
}

// A pair's nodes, not yet in the page (held.js builds the next pair's ahead with them). Parts
// a study does not ask are left out (a null given to replaceChildren would show "null").
// `nodes.marks`: the pair's spans and the boxes they are drawn in (its own object, so building
// the next pair ahead leaves the current pair's alone; `draw` makes it the state's `m`).
function children(state, data) {
  const m = newMarks(data);
  const nodes = [
    el("div", { class: "notice", role: "status" }),
    drawContext(data),
    drawSides(state, m, data),
    drawAspects(data, { el, build }),
    drawPreference(data),
    drawNotes(data),
    el("div", { class: "outbox", role: "status", "aria-live": "polite", "aria-atomic": "true" }),
    drawActions(state, data),
    el("div", { class: "error", role: "alert" }),
  ].filter(Boolean);
  nodes.marks = m;
  return nodes;
}

// A pair's span labels, its spans by side (from what was saved) and, once drawn, each side's
// response box, text tree and span tools.
function newMarks(data) {
  const spans = {};
  for (const response of data.responses) {
    spans[response.side] = (data.saved.spans?.[response.side] || []).map((mark) => [...mark]);
  }
  return { labels: data.span_labels || [], spans, boxes: {}, trees: {}, tools: {}, lastSelection: null };
}
const buildHeld = (data) => ({ owner: current, nodes: children(current, data) });

// Show a pair: the nodes held for it if there are (held.js), else built now.
function draw(state, data, nodes = null) {
  const root = state.root;
  state.pair = data.pair;
  state.losses = 0;
  state.pastes = 0; // pastes into the rationale (a count; the text is never read)
  state.sent = false;
  const built = nodes || children(state, data);
  state.m = built.marks;
  root.replaceChildren(...built);
  root.dataset.pair = data.pair;
  openAtTop(root);
}

// A new pair opens at its top with the focus on its first question (a conversation at its
// last turn, the one the responses answer).
function openAtTop(root) {
  window.scrollTo(0, 0);
  for (const box of document.querySelectorAll("[data-testid='stMain'], [data-testid='stAppViewContainer']")) box.scrollTop = 0;
  const chat = root.querySelector(".conversation");
  const toEnd = () => { if (chat) chat.scrollTop = chat.scrollHeight; };
  toEnd();
  requestAnimationFrame(() => requestAnimationFrame(toEnd)); // once its layout has settled
  focusGroup(root.querySelector("fieldset.q"), true);
}

const radios = (group) => [...group.querySelectorAll("input[type='radio']")];
function focusGroup(group, preventScroll = false) {
  if (!group) return false;
  const input = group.querySelector("input:checked") || radios(group)[0];
  if (!input) return false;
  input.focus({ preventScroll });
  return true;
}

function entries(state) {
  const root = state.root;
  const scores = {};
  for (const group of root.querySelectorAll("fieldset.q[data-side]")) {
    const side = group.dataset.side;
    const checked = group.querySelector("input:checked");
    scores[side] = scores[side] || {};
    scores[side][group.dataset.key] = checked ? Number(checked.value) : null;
  }
  return {
    pair: state.pair,
    scores,
    marks: aspectMarks(root),
    preference: preferenceOf(root),
    rationale: root.querySelector("#prb-rationale")?.value || "",
    comment: root.querySelector("#prb-comment")?.value || "",
    flag: root.querySelector("#prb-flag")?.value || "",
    reason: root.querySelector("#prb-skip-reason")?.value || "",
    signals: `${state.pair}:${state.losses}:${state.pastes}`,
    ...(state.m.labels.length ? { spans: state.m.spans } : {}),
  };
}

function preferenceOf(root) {
  const checked = root.querySelector("fieldset.pref input:checked");
  return checked ? Number(checked.value) : null;
}

// Entries kept by the outbox put back on the page (a reload, another server).
function restore(state, kept) {
  const root = state.root;
  for (const group of root.querySelectorAll("fieldset.q[data-side]")) {
    const value = (kept.scores?.[group.dataset.side] || {})[group.dataset.key];
    for (const input of radios(group)) input.checked = value != null && Number(input.value) === value;
  }
  for (const group of root.querySelectorAll("fieldset.aspect")) {
    const value = (kept.marks?.[group.dataset.markSide] || [])[Number(group.dataset.index)];
    for (const input of radios(group)) input.checked = value != null && Number(input.value) === value;
  }
  const pref = root.querySelector("fieldset.pref");
  if (pref) for (const input of radios(pref)) input.checked = Number(input.value) === kept.preference;
  const fields = { "#prb-rationale": kept.rationale, "#prb-comment": kept.comment, "#prb-flag": kept.flag, "#prb-skip-reason": kept.reason };
  for (const [selector, value] of Object.entries(fields)) {
    const field = root.querySelector(selector);
    if (field && typeof value === "string") field.value = value;
  }
  if (state.m.labels.length && kept.spans) {
    for (const side of Object.keys(state.m.spans)) {
      const marks = kept.spans[side];
      if (!Array.isArray(marks)) continue;
      state.m.spans[side] = marks.filter((m) => Array.isArray(m) && m.length === 3).map((m) => [...m]);
      drawResponse(state.m, side);
      drawSpanList(state, state.m, side);
    }
  }
}

// One event per pair shown: a second click (or key) before the server has answered sends
// nothing; an answer for the same pair (a refused submit) allows the next one. The outbox
// gives the send its key and sends it (again, after an outage).
function send(state, action) {
  if (state.sent) return;
  state.root.querySelector(".error").textContent = "";
  outbox.send(state, action);
}

function showError(state, data) {
  const box = state.root.querySelector(".error");
  state.root.querySelector(".notice").textContent = data.notice || "";
  if (!data.error || data.outage) return; // an outage: the outbox says "not saved yet"
  box.replaceChildren(...data.error.split("\n").map((line) => el("p", { text: line })));
  const open = [...state.root.querySelectorAll("fieldset.q")].filter((g) => !g.querySelector("input:checked"));
  for (const group of open) group.classList.add("missing");
  box.scrollIntoView({ block: "center" });
  if (open.length) focusGroup(open[0]);
}

// Digits answer the focused question (the option with that value), then the focus moves to
// the next question, and after the last one to Submit.
function onKey(state, event) {
  if (event.ctrlKey || event.metaKey || event.altKey || !/^[0-9]$/.test(event.key)) return;
  const target = event.composedPath()[0];
  if (!target || target.type !== "radio") return;
  answer(state, target.closest("fieldset.q"), event);
}

function answer(state, group, event) {
  const byPlace = group.classList.contains("pref"); // options without numbers
  const input = byPlace ? radios(group)[Number(event.key) - 1] : radios(group).find((r) => r.value === event.key);
  if (!input) return;
  event.preventDefault();
  event.stopPropagation();
  input.checked = true;
  group.classList.remove("missing");
  outbox.changed(state);
  const all = [...state.root.querySelectorAll("fieldset.q")];
  const next = all[all.indexOf(group) + 1];
  if (focusGroup(next)) return;
  // After the last question: the preference's rationale when there is one, else Submit.
  (state.root.querySelector("#prb-rationale") || state.root.querySelector("button.submit")).focus();
}

// Page-wide keys, installed once: Ctrl+Enter or Ctrl+S (Cmd on a Mac) submits, a digit with
// the focus on no control answers the first open question; a focus loss is counted.
function installPageKeys() {
  if (window.__prbPairKeys) return;
  window.__prbPairKeys = true;
  const live = () => (current && current.root.isConnected ? current : null);
  window.addEventListener("keydown", (event) => {
    const state = live();
    if (!state) return;
    const submitKey = event.key === "Enter" || event.key === "s" || event.key === "S";
    if ((event.ctrlKey || event.metaKey) && submitKey) {
      event.preventDefault();
      event.stopPropagation();
      send(state, "submit");
      return;
    }
    const onPage = !document.activeElement || document.activeElement === document.body;
    if (!onPage || event.ctrlKey || event.metaKey || event.altKey || !/^[0-9]$/.test(event.key)) return;
    const groups = [...state.root.querySelectorAll("fieldset.q")];
    const open = groups.find((g) => !g.querySelector("input:checked")) || groups[0];
    if (open) answer(state, open, event);
  }, true);
  let away = false;
  const leave = () => {
    const state = live();
    if (away || !state) return;
    away = true;
    state.losses += 1;
  };
  // The last selection made in a response, kept for a label button a finger taps after it
  // (a tap may clear the selection before the click).
  document.addEventListener("selectionchange", () => {
    const state = live();
    if (!state || !state.m?.labels.length) return;
    for (const [side, box] of Object.entries(state.m.boxes)) {
      const span = selectedSpan(box);
      if (span) state.m.lastSelection = { side, span };
      showCaret(box);
    }
  });
  window.addEventListener("blur", leave);
  window.addEventListener("focus", () => { away = false; });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") leave();
    else if (document.hasFocus()) away = false;
  });
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const root = parentElement.querySelector(".prb-pair");
  if (!root || !data) return;
  let state = STATES.get(root);
  if (!state) {
    state = { root, pair: null, losses: 0, sent: false, count: 0, setTrigger: setTriggerValue };
    state.collect = () => entries(state);
    state.restore = (kept) => restore(state, kept);
    STATES.set(root, state);
    root.addEventListener("keydown", (event) => onKey(state, event));
    root.addEventListener("change", (event) => event.target.closest?.("fieldset.q")?.classList.remove("missing"));
    root.addEventListener("paste", (event) => { if (event.target.id === "prb-rationale") state.pastes += 1; });
    root.addEventListener("input", () => outbox.changed(state));
  }
  state.setTrigger = setTriggerValue;
  current = state;
  installPageKeys();
  outbox.watch(state);
  if (data.pair !== state.pair) {
    draw(state, data, held ? held.take(data, state) : null);
    outbox.opened(state);
  } else state.sent = false; // the server answered for this pair: it may be sent again
  outbox.answered(state, data);
  showError(state, data);
  if (held) held.buildWith(buildHeld);
}
