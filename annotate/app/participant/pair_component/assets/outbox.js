// prb-annotate: the pair component's outbox (issue 36.4): entries kept through an outage.
// An ES module of its own, imported by pair.js from the same asset folder (Streamlit loads
// pair.js with import(), so a relative import is served by the same component route).
//
// What the annotator enters on a pair lives in this tab's sessionStorage under the pair's
// token (the assignment id, which says nothing of the sides' roles), from the first change
// until the server confirms it stored: a reload, or a reconnect to another app server, draws
// the pair with those entries. A Submit or Skip is a send with a key made here (a random UUID):
// the same entries are always sent with the same key, so the server recognises a resend of an
// entry it stored whose answer was lost (annotate.domain.rating.entry_keys); a change after a
// send makes a new key. While the database or the app server does not answer, the component
// says "not saved yet" (a live region) and the annotator keeps working; the send goes again by
// itself once the server answers (and on the next Submit). A confirmed write forgets its
// pair's entries; Log out and withdrawal forget every pair's.
//
// A reconnect to another app server (the first one died) reaches a new session there that has
// not run the page: Streamlit's frontend does not rerun it, and the server drops the
// component's event ("the fragment ... does not exist anymore"). So after a reconnect the
// outbox sends what is waiting and, unanswered, reloads the page (which draws the pair with
// the kept entries and sends them); with entries kept but no send waiting it reloads at once.

const PREFIX = "prb-entry:";
const RETRY_MS = [2000, 4000, 8000, 15000]; // waits between automatic sends in a database outage
const ANSWER_WAIT_MS = 45000; // unanswered (beyond PostgreSQL's 30 s statement timeout): reload
const RECONNECT_WAIT_MS = 6000; // after a reconnect, an unanswered send: the page is reloaded
const FORGET_ON = [".st-key-log_out button", ".st-key-withdraw_button button"];

export const NOT_SAVED =
  "Not saved yet: the server does not answer. Your entries are kept in this tab; keep working, " +
  "they are sent by themselves when it answers again.";

// ------------------------------------------------------------------ storage

function read(pair) {
  try {
    const text = sessionStorage.getItem(PREFIX + pair);
    return text ? JSON.parse(text) : null;
  } catch {
    return null; // storage refused (private mode, quota) or damaged: nothing kept
  }
}

function write(pair, record) {
  try {
    sessionStorage.setItem(PREFIX + pair, JSON.stringify(record));
  } catch {
    /* full or refused: the entries stay on the page only */
  }
}

export function forget(pair) {
  try {
    sessionStorage.removeItem(PREFIX + pair);
  } catch {
    /* nothing kept */
  }
}

export function forgetAll() {
  try {
    for (const name of Object.keys(sessionStorage)) {
      if (name.startsWith(PREFIX)) sessionStorage.removeItem(name);
    }
  } catch {
    /* nothing kept */
  }
}

// A random key (a UUID v4); crypto.randomUUID needs a secure context, getRandomValues does not.
export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// ------------------------------------------------------------------ the server's line

const app = () => document.querySelector("[data-testid='stApp']");
export function connected() {
  const node = app();
  return !node || node.getAttribute("data-test-connection-state") === "CONNECTED";
}

// ------------------------------------------------------------------ one pair's outbox
// `state` is pair.js's state of the component: root, pair, sent, setTrigger, collect() (the
// entries on the page), restore(entries) (put them back on the page), and `box`, ours:
// { send: {action, key} | null, outage, tries, timer, sentAt }.

function box(state) {
  if (!state.box) state.box = { send: null, outage: false, tries: 0, timer: 0, sentAt: 0, answeredAt: 0 };
  return state.box;
}

function keep(state) {
  write(state.pair, { entries: state.collect(), send: box(state).send, at: Date.now() });
}

function say(state, words) {
  const region = state.root.querySelector(".outbox");
  if (region && region.textContent !== words) region.textContent = words;
  state.root.classList.toggle("not-saved", Boolean(words));
}

function transmit(state) {
  const out = box(state);
  clearTimeout(out.timer);
  if (!out.send || state.sent) return;
  if (!connected()) {
    say(state, NOT_SAVED);
    return; // sent when the line is back (watch)
  }
  state.sent = true;
  state.count += 1;
  out.sentAt = Date.now();
  state.setTrigger("event", { ...state.collect(), action: out.send.action, key: out.send.key, n: state.count });
}

function later(state, wait) {
  const out = box(state);
  clearTimeout(out.timer);
  out.timer = setTimeout(() => transmit(state), wait);
}

// A Submit or Skip: a send with the key of these entries (kept until they change).
export function send(state, action) {
  const out = box(state);
  if (!out.send || out.send.action !== action) out.send = { action, key: newKey() };
  keep(state);
  transmit(state);
}

// Something entered: kept at once; entries changed after a send are a new entry (a new key).
export function changed(state) {
  const out = box(state);
  if (out.send) out.send = { action: out.send.action, key: newKey() };
  keep(state);
}

// A pair drawn anew (a new pair, a reload, another server): its kept entries put back, and a
// send that was never confirmed goes again.
export function opened(state) {
  state.box = null;
  const record = read(state.pair);
  if (!record) return;
  if (record.entries) state.restore(record.entries);
  box(state).send = record.send || null;
}

// The server's data for the shown pair: a confirmed write forgets its entries (also the shown
// pair's own, drawn again after its confirmed send led to a page without it); an outage keeps
// them and tries again after a wait; a refusal (missing answers, a login ended) ends the send,
// the entries stay; any other answer (a new session after a reconnect) sends again now.
export function answered(state, data) {
  const done = data.confirmed;
  if (done && done.key) {
    const record = read(done.pair);
    if (record && record.send && record.send.key === done.key) forget(done.pair);
  }
  const out = box(state);
  if (done && done.pair === state.pair && out.send && out.send.key === done.key) {
    out.send = null; // stored already: its answer drew a page without this pair (done, a check)
  }
  out.outage = Boolean(data.outage);
  out.answeredAt = Date.now();
  if (!out.send) {
    say(state, connected() ? "" : NOT_SAVED);
    return;
  }
  if (data.error && !data.outage) {
    out.send = null;
    keep(state);
    say(state, "");
    return;
  }
  if (data.outage) {
    say(state, NOT_SAVED);
    later(state, RETRY_MS[Math.min(out.tries, RETRY_MS.length - 1)]);
    out.tries += 1;
  } else {
    later(state, 0);
  }
}

// The line is back (the same server, or another through the balancer: see the top).
function reconnected(state) {
  const out = box(state);
  if (!out.outage) say(state, "");
  if (!out.send) {
    if (read(state.pair)) location.reload();
    return;
  }
  state.sent = false; // the line was cut: that send's answer is not coming
  const since = Date.now();
  later(state, 300);
  setTimeout(() => {
    if (state.box === out && out.send && out.answeredAt < since) location.reload();
  }, RECONNECT_WAIT_MS);
}

// ------------------------------------------------------------------ page-wide, once

let watched = null; // the state of the component on the page

export function watch(state) {
  watched = state;
  if (window.__prbOutbox) return;
  window.__prbOutbox = true;
  // Log out and withdrawal forget every pair's entries (clicked in this tab).
  document.addEventListener(
    "click",
    (event) => {
      const target = event.target;
      if (target.closest && FORGET_ON.some((selector) => target.closest(selector))) forgetAll();
    },
    true,
  );
  let was = connected();
  const check = () => {
    const state = watched && watched.root.isConnected ? watched : null;
    const now = connected();
    if (state && now !== was) {
      if (!now) say(state, NOT_SAVED);
      else reconnected(state);
    }
    was = now;
    if (state && state.sent && box(state).send && Date.now() - box(state).sentAt > ANSWER_WAIT_MS) {
      location.reload(); // no answer: the page drawn anew, with the kept entries, sends them
    }
  };
  const observe = () => {
    const node = app();
    if (!node) return setTimeout(observe, 500);
    new MutationObserver(check).observe(node, {
      attributes: true,
      attributeFilter: ["data-test-connection-state"],
    });
  };
  observe();
  setInterval(check, 2000);
}
