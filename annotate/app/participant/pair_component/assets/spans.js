// prb-annotate: spans marked in a response (issue 36.3), for pair.js.
// A response comes as a *placed* text tree (text_tree.py): a text ["#", text, start] stands in
// the stored text at code point `start`. Each DOM text node drawn from it remembers its place,
// so a selection maps back to code points of the STORED text: from the first selected
// character to the last (whitespace at either end left out), whatever markup lies between.
// Marks are drawn as <mark> around the marked characters; nothing is parsed as HTML.
import { el } from "./dom.js";

const PLACES = new WeakMap(); // text node -> its first character's place (code points)
const PALETTE = 8; // pair.css colours .l0 .. .l7

const points = (text) => Array.from(text); // code points, not UTF-16 units


// The selection as seen from inside the component: it lives in a shadow root, where
// Chromium's ShadowRoot.getSelection gives the ranges in the shadow tree (the document's
// selection would name the host only).
export function selectionIn(box) {
  const root = box.getRootNode();
  return (root.getSelection && root.getSelection()) || window.getSelection();
}

function placedText(text, start) {
  const node = document.createTextNode(text);
  PLACES.set(node, start);
  return node;
}

// A placed text, split where marks begin and end; marked parts inside <mark>.
export function placedRun(text, start, marks, labels) {
  const chars = points(text);
  const end = start + chars.length;
  const cuts = new Set([0, chars.length]);
  for (const [s, e] of marks) {
    if (s > start && s < end) cuts.add(s - start);
    if (e > start && e < end) cuts.add(e - start);
  }
  const edges = [...cuts].sort((a, b) => a - b);
  const out = document.createDocumentFragment();
  for (let i = 0; i + 1 < edges.length; i += 1) {
    const a = start + edges[i];
    const b = start + edges[i + 1];
    const node = placedText(chars.slice(edges[i], edges[i + 1]).join(""), a);
    const over = marks.filter(([s, e]) => s <= a && e >= b);
    if (!over.length) { out.append(node); continue; }
    const names = over.map(([, , key]) => labels.findIndex((l) => l.key === key));
    const words = names.map((i) => labels[i]?.label || "").join(", ");
    out.append(el("mark", { class: `span-mark l${names[0] % PALETTE}`, title: words }, node));
  }
  return out;
}

// The selection inside `box` as [start, end) in code points of the stored text (null: none,
// or only text the parser made, which has no place).
export function selectedSpan(box) {
  const selection = selectionIn(box);
  if (!selection || !selection.rangeCount || selection.isCollapsed) return null;
  const range = selection.getRangeAt(0);
  if (!box.contains(range.commonAncestorContainer)) return null;
  let first = null;
  let last = null;
  const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!PLACES.has(node) || !range.intersectsNode(node)) continue;
    const from = node === range.startContainer ? range.startOffset : 0;
    const to = node === range.endContainer ? range.endOffset : node.data.length;
    const before = points(node.data.slice(0, from)).length;
    points(node.data.slice(from, to)).forEach((char, i) => {
      if (/\s/u.test(char)) return;
      const at = PLACES.get(node) + before + i;
      if (first === null) first = at;
      last = at + 1;
    });
  }
  return first === null ? null : [first, last];
}

// What a placed tree shows from stored place `start` to `end` (text_tree.shown_between).
export function shownBetween(tree, start, end) {
  let out = "";
  const walk = (nodes) => {
    for (const node of nodes || []) {
      if (!Array.isArray(node)) continue;
      if (node[0] === "#") {
        const chars = points(node[1]);
        out += chars.slice(Math.max(start - node[2], 0), Math.max(end - node[2], 0)).join("");
      } else walk(node[1]);
    }
  };
  walk(tree);
  return out;
}

const ARROWS = { ArrowLeft: "backward", ArrowRight: "forward", ArrowUp: "backward", ArrowDown: "forward" };

// Keys in a response: arrows move a caret (Ctrl or Alt: by word; up and down scroll unless
// with Shift), Shift+arrows select from it, a digit 1..N marks the selection with label N.
export function onResponseKey(event, box, labelCount, markWith) {
  if (event.metaKey) return;
  if (/^[1-9]$/.test(event.key) && !event.ctrlKey && !event.altKey) {
    if (Number(event.key) > labelCount) return;
    event.preventDefault();
    event.stopPropagation();
    markWith(Number(event.key) - 1);
    return;
  }
  const direction = ARROWS[event.key];
  const vertical = event.key === "ArrowUp" || event.key === "ArrowDown";
  if (!direction || (vertical && !event.shiftKey)) return;
  event.preventDefault();
  const selection = selectionIn(box);
  const inside = selection.rangeCount && box.contains(selection.getRangeAt(0).commonAncestorContainer);
  if (!inside) {
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    const start = walker.nextNode();
    if (!start) return;
    selection.collapse(start, 0);
  }
  const unit = vertical ? "line" : event.ctrlKey || event.altKey ? "word" : "character";
  selection.modify(event.shiftKey ? "extend" : "move", direction, unit);
  showCaret(box);
}

// A collapsed selection is not drawn in text that cannot be edited: a thin bar shows it.
export function showCaret(box) {
  const caret = box.querySelector(":scope > .caret") || box.appendChild(el("span", { class: "caret", "aria-hidden": "true" }));
  const selection = selectionIn(box);
  const inside = selection.rangeCount && box.contains(selection.getRangeAt(0).commonAncestorContainer);
  if (!inside || !selection.isCollapsed) { caret.hidden = true; return; }
  const rect = selection.getRangeAt(0).getClientRects()[0] || selection.getRangeAt(0).getBoundingClientRect();
  const outer = box.getBoundingClientRect();
  caret.hidden = false;
  caret.style.left = `${rect.left - outer.left + box.scrollLeft}px`;
  caret.style.top = `${rect.top - outer.top + box.scrollTop}px`;
  caret.style.height = `${rect.height || 18}px`;
}

// The spans under a response: each with its label, its words and a Remove button.
export function spanList(side, marks, labels, tree, remove) {
  const list = el("ul", { class: "span-list", "aria-label": `Spans marked in Response ${side}` });
  marks.forEach((mark, index) => {
    const [start, end, key] = mark;
    const at = labels.findIndex((l) => l.key === key);
    const name = at >= 0 ? labels[at].label : key;
    const words = shownBetween(tree, start, end);
    const button = el("button", { type: "button", class: "span-remove", text: "Remove", "aria-label": `Remove ${name}: ${words}` });
    button.addEventListener("click", () => remove(index));
    list.append(el("li", {}, el("span", { class: `chip l${Math.max(at, 0) % PALETTE}`, text: name }),
      el("q", { text: words }), button));
  });
  return list;
}

export { el };
