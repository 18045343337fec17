// Invisible text-direction controls, made visible (Trojan Source, docs/threat-model.md).
//
// U+202A–U+202E, U+2066–U+2069, U+200E/U+200F and U+061C reorder how text is displayed without
// changing what it is: an approval card could show `echo hello` while bash runs `touch …`. In
// approval cards, tool cards and paths every such character is replaced, in the displayed text
// only, by a visible marker naming it, and the card gets a warning.

import { h } from "./dom.js";
import { t } from "../i18n/i18n.js";

const NAMES = {
  "\u061C": "ARABIC LETTER MARK",
  "\u200E": "LEFT-TO-RIGHT MARK",
  "\u200F": "RIGHT-TO-LEFT MARK",
  "\u202A": "LEFT-TO-RIGHT EMBEDDING",
  "\u202B": "RIGHT-TO-LEFT EMBEDDING",
  "\u202C": "POP DIRECTIONAL FORMATTING",
  "\u202D": "LEFT-TO-RIGHT OVERRIDE",
  "\u202E": "RIGHT-TO-LEFT OVERRIDE",
  "\u2066": "LEFT-TO-RIGHT ISOLATE",
  "\u2067": "RIGHT-TO-LEFT ISOLATE",
  "\u2068": "FIRST STRONG ISOLATE",
  "\u2069": "POP DIRECTIONAL ISOLATE",
};
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const BIDI_ALL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;


/** Whether `text` holds a bidi control. */
export function hasBidi(text) {
  return BIDI.test(String(text ?? ""));
}

/** `U+202E` for a character. */
export function codePoint(ch) {
  return `U+${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Split `text` into plain strings and the bidi characters between them (pure, for tests). */
export function splitBidi(text) {
  const parts = [];
  let last = 0;
  for (const m of String(text).matchAll(BIDI_ALL)) {
    if (m.index > last) parts.push({ text: text.slice(last, m.index) });
    parts.push({ mark: m[0] });
    last = m.index + 1;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}

function marker(ch) {
  return h("span", { class: "bidi-mark", testid: "bidi-mark", title: `${codePoint(ch)} ${NAMES[ch] ?? ""}`.trim() }, `⟨${codePoint(ch)}⟩`);
}

/** Replace every bidi control in the text under `root` by a visible marker; true if any. */
export function revealBidi(root) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const hits = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (BIDI.test(node.data)) hits.push(node);
  }
  for (const node of hits) {
    const frag = document.createDocumentFragment();
    for (const part of splitBidi(node.data)) frag.append(part.mark ? marker(part.mark) : part.text);
    node.replaceWith(frag);
  }
  return hits.length > 0;
}

/** `revealBidi` on a card, plus a warning placed before `before` (or first) when any was found. */
export function guardCard(card, before = null) {
  card.querySelectorAll(":scope [data-testid='bidi-warning']").forEach((w) => w.remove());
  if (!revealBidi(card)) return false;
  const warning = h("p", { class: "bidi-warning", testid: "bidi-warning", role: "alert", translate: "yes" }, "⚠ ", t("bidi.warning"));
  card.insertBefore(warning, before && before.parentNode === card ? before : card.firstChild);
  return true;
}
