// prb-annotate: the next pair, held (issue 36.2; annotate/app/participant/pair_component).
// The server gives the pair held behind the one being rated to a hidden element of ours (the
// carrier: `pair_component.draw_held`) at the end of the run that drew the current pair. This
// module keeps it, has pair.js build it off-screen while the annotator works, and hands the
// built nodes to pair.js when the server names that pair the current one, which it does only
// once the submit of the pair before is stored: the swap is one replaceChildren, no drawing.
//
// Loaded twice: as the carrier's script and as pair.js's import. Streamlit serves each
// component's files under the component's own name, so these are two module instances at two
// addresses; what they share is the page's one store (a global under Symbol.for).

const STORE = (globalThis[Symbol.for("prb-annotate.held")] ??= {
  pairs: new Map(), // drawn key -> {data, built}: the pair held, and the one held before it
  latest: null, // the key of the pair the server holds now (null: none)
  build: null,
});
const KEEP = 2; // the carrier's new pair may reach the page before the pair it replaces is shown

// What a pair's data says is drawn: all but what one run says about it (its notice, its error).
function drawnKey(data) {
  // Left out: what the run says of the last send (the outbox's `outage` and `confirmed` too),
  // not what is drawn.
  const { notice, error, attempt, outage, confirmed, ...drawn } = data;
  return JSON.stringify(drawn);
}

// pair.js, each time it runs: how a pair is built off-screen for the element on the page,
// `build(data) -> {owner, nodes}` (the carrier's data may come before pair.js is loaded).
export function buildWith(build) {
  STORE.build = build;
  later();
}

// The pair the server holds for this page (null: none).
function hold(data) {
  STORE.latest = data && data.pair ? drawnKey(data) : null;
  if (STORE.latest === null || STORE.pairs.has(STORE.latest)) return;
  STORE.pairs.set(STORE.latest, { data, built: null });
  for (const key of [...STORE.pairs.keys()].slice(0, -KEEP)) STORE.pairs.delete(key);
  later();
}

// Build the held pair when the page is next idle, so that building never delays what the
// annotator is doing.
function later() {
  const held = STORE.pairs.get(STORE.latest);
  if (!held || held.built || !STORE.build) return;
  const idle = window.requestIdleCallback || ((fn) => setTimeout(fn, 0));
  idle(() => {
    if (!held.built && STORE.build) held.built = STORE.build(held.data);
  });
}

// The nodes built for `data` if it is a pair held, built for `owner` (pair.js's state of the
// element on the page); else null (pair.js draws it). Taken once.
export function take(data, owner) {
  const key = drawnKey(data);
  const held = STORE.pairs.get(key);
  if (!held) return null;
  STORE.pairs.delete(key);
  return held.built && held.built.owner === owner ? held.built.nodes : null;
}

// The carrier: `data.held` is the next pair's data (null: none held).
export default function (component) {
  hold(component.data ? component.data.held : null);
}
