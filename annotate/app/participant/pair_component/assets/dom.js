// prb-annotate: the one way the pair component's scripts make an element (pair.js, spans.js).
// Every text goes in with textContent, every attribute with setAttribute: nothing is parsed as
// HTML.

export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (name === "text") node.textContent = value;
    else if (name === "class") node.className = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}
