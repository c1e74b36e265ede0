// Code and tables on a phone's width (issue #17); extra.css holds the rules these hooks serve.
//
// 1. Line-break opportunities in long inline code (not in code blocks): a <wbr> after each separator,
//    so that `jax.make_jaxpr(autograph_lite.convert(f))` may wrap as `jax.` / `make_jaxpr(...` and
//    never inside a name (extra.css forbids breaks anywhere else). Copying the text is unchanged:
//    <wbr> holds no character.
// 2. Each table cell gets its column's header as `data-label`, so that on a narrow screen extra.css
//    can show a table as one card per row ("header: cell" lines) instead of cutting off columns.
const SEPARATOR_END = /(?<=[.(\[,\/])(?=[^)\]])/;
// Characters: prose code this short fits on any line, so it moves to the next line whole. In a table
// every code gets break points: a narrower column lets a wide table fit without scrolling.
const SHORT = 24;

function addCodeBreaks(root) {
  for (const code of root.querySelectorAll(".md-typeset code")) {
    if (code.closest("pre") || code.dataset.breaks) continue;
    if (code.textContent.length <= SHORT && !code.closest("table")) continue;
    code.dataset.breaks = "added";
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    const texts = [];
    while (walker.nextNode()) texts.push(walker.currentNode);
    for (const text of texts) {
      const parts = text.data.split(SEPARATOR_END);
      if (parts.length < 2) continue;
      const fragment = document.createDocumentFragment();
      parts.forEach((part, index) => {
        if (index > 0) fragment.append(document.createElement("wbr"));
        fragment.append(part);
      });
      text.replaceWith(fragment);
    }
  }
}

function labelTableCells(root) {
  for (const table of root.querySelectorAll(".md-typeset table:not([class])")) {
    const headers = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
    if (headers.length === 0 || table.dataset.stacked) continue;
    table.dataset.stacked = "labelled";
    for (const row of table.querySelectorAll("tbody tr")) {
      [...row.children].forEach((cell, index) => {
        cell.dataset.label = headers[index] ?? "";
      });
    }
  }
}

function adaptToNarrowScreens() {
  addCodeBreaks(document);
  labelTableCells(document);
}

// Material's `document$` announces every page, instant navigation included.
if (typeof document$ !== "undefined") {
  document$.subscribe(adaptToNarrowScreens);
} else {
  document.addEventListener("DOMContentLoaded", adaptToNarrowScreens);
}
