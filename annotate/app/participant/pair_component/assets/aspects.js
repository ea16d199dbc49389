// prb-annotate: the aspect checklist of the pair component (issue 36, item 1), a module of its
// own imported by pair.js (Streamlit loads pair.js with import() from this folder's address,
// so "./aspects.js" is fetched from the same folder, under the same Content-Security-Policy).
//
// Under the two responses: each rubric aspect of the pair (its words, drawn from the text tree
// as every dataset text is) with a coverage of 0-2 for Response A and for Response B, by side
// only (the server maps sides to responses). Each mark is a fieldset.q like the study's
// questions, so the digit keys, the focus moving on and the "missing" outline work on it the
// same way; its legend names the side and the aspect ("Response A, aspect 2") for a screen
// reader, and is shown on a phone, where the column headings are hidden.

const SIDES = ["A", "B"];

// The checklist (null when the study does not ask it). `tools`: pair.js's el and build.
export function drawAspects(data, { el, build }) {
  const asked = data.aspects;
  if (!asked) return null;
  const box = el("div", { class: "aspects", role: "group", "aria-labelledby": "prb-aspects-title" });
  box.append(
    el("p", { class: "aspects-title", id: "prb-aspects-title" }, el("strong", { text: asked.title })),
    el("p", { class: "hint", text: asked.help }),
  );
  const heads = el("div", { class: "aspect-row aspect-heads", "aria-hidden": "true" }, el("span"));
  for (const side of SIDES) heads.append(el("span", { class: "aspect-head", text: `Response ${side}` }));
  box.append(heads);
  asked.items.forEach((item, index) => {
    const words = el("div", { class: "aspect-words md" }, el("span", { class: "aspect-number", text: `${index + 1}.` }));
    build(item, words);
    const row = el("div", { class: "aspect-row" }, words);
    for (const side of SIDES) row.append(markGroup(el, side, index, asked.options, data.saved.marks[side]?.[index]));
    box.append(row);
  });
  return box;
}

function markGroup(el, side, index, options, saved) {
  const set = el("fieldset", { class: "q aspect", "data-mark-side": side, "data-index": String(index) });
  set.append(el("legend", { class: "aspect-legend", text: `Response ${side}, aspect ${index + 1}` }));
  const row = el("div", { class: "options" });
  for (const option of options) {
    const input = el("input", { type: "radio", name: `aspect_${side}_${index}`, value: String(option.value) });
    if (saved === option.value) input.checked = true;
    row.append(el("label", { class: "opt" }, input, el("span", { text: `${option.value}\u00a0· ${option.words}` })));
  }
  set.append(row);
  return set;
}

// The marks entered, by side in aspect order (null: not given); {} when none are asked.
export function aspectMarks(root) {
  const marks = {};
  for (const group of root.querySelectorAll("fieldset.aspect")) {
    const side = group.dataset.markSide;
    const checked = group.querySelector("input:checked");
    marks[side] = marks[side] || [];
    marks[side][Number(group.dataset.index)] = checked ? Number(checked.value) : null;
  }
  return marks;
}
