// Small DOM helpers. No innerHTML here: text goes in as text nodes; event handlers are attached
// with addEventListener (the page runs under a CSP without inline handlers or styles).

import { number, t } from "../i18n/i18n.js";

/**
 * h("button", {class: "btn", testid: "send", onclick: fn, attrs...}, ...children)
 * Keys: class, testid (→ data-testid), dataset {}, on* (listeners), hidden/disabled/checked/value
 * (properties), everything else an attribute (false/null/undefined skipped).
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = Array.isArray(v) ? v.filter(Boolean).join(" ") : v;
    else if (k === "testid") el.dataset.testid = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "hidden" || k === "disabled" || k === "checked" || k === "value" || k === "open" || k === "multiple") el[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

/** Replace all children. */
export function setChildren(el, ...children) {
  clear(el);
  return append(el, children);
}

const ICONS = {
  plus: "M12 5v14M5 12h14",
  search: "M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14zM20 20l-4-4",
  gear: "M12 9a3 3 0 1 0 0 6 3 3 0 0 0 0-6zM19 12l2-1-2-4-2 .5-1.5-1L15 4h-6l-.5 2.5-1.5 1L5 7l-2 4 2 1v0l-2 1 2 4 2-.5 1.5 1L9 20h6l.5-2.5 1.5-1 2 .5 2-4z",
  send: "M4 12l16-8-6 16-2-7z",
  stop: "M7 7h10v10H7z",
  steer: "M5 12h11M12 6l6 6-6 6",
  image: "M4 5h16v14H4zM4 16l5-5 4 4 3-3 4 4M15 9a1 1 0 1 0 0-.01",
  copy: "M9 9h10v11H9zM5 15V4h10",
  pencil: "M4 20h4L19 9l-4-4L4 16zM14 6l4 4",
  fork: "M7 4v6a4 4 0 0 0 4 4h2M17 4v4M7 20v-6M17 8a2 2 0 1 0 0-.01",
  download: "M12 4v11M7 10l5 5 5-5M5 20h14",
  trash: "M5 7h14M10 7V4h4v3M7 7l1 13h8l1-13",
  menu: "M4 6h16M4 12h16M4 18h16",
  check: "M5 12l5 5 9-10",
  x: "M6 6l12 12M18 6L6 18",
  list: "M9 6h11M9 12h11M9 18h11M4 6h.01M4 12h.01M4 18h.01",
  retry: "M4 12a8 8 0 1 0 3-6.2M4 4v5h5",
  chevron: "M9 6l6 6-6 6",
  up: "M12 19V5M6 11l6-6 6 6",
  down: "M12 5v14M6 13l6 6 6-6",
  terminal: "M4 5h16v14H4zM7 9l3 3-3 3M12 15h5",
  file: "M6 3h8l4 4v14H6zM14 3v4h4",
  resource: "M9 3v5M15 3v5M6 8h12v3a6 6 0 0 1-12 0zM12 17v4",
  tool: "M14 6a4 4 0 0 0 5 5l-8 8-3-3 8-8a4 4 0 0 0-2-2z",
  folder: "M3 6h6l2 2h10v11H3z",
  subagent: "M6 4v7a4 4 0 0 0 4 4h9M15 11l4 4-4 4M6 4h.01",
  "folder-open": "M3 6h6l2 2h8v3M3 19l3-8h16l-3 8z",
  archive: "M4 5h16v4H4zM5 9v10h14V9M10 13h4",
  unarchive: "M4 5h16v4H4zM5 9v10h14V9M12 17v-5M9.5 14.5 12 12l2.5 2.5",
  reveal: "M14 4h6v6M20 4l-9 9M18 14v6H4V6h6",
  book: "M5 4h10a3 3 0 0 1 3 3v13H8a3 3 0 0 1-3-3zM5 17a3 3 0 0 1 3-3h10",
  slash: "M15 4L9 20",
  shield: "M12 3l7 3v5c0 4.5-3 8.5-7 10-4-1.5-7-5.5-7-10V6z",
  compress: "M4 7h16M7 12h10M10 17h4",
  jobs: "M5 6h14v4H5zM5 14h14v4H5zM8 8h.01M8 16h.01",
  info: "M12 8h.01M11 12h1v5h1M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z",
};

/** An inline SVG icon (built with createElementNS; decorative, hidden from assistive tech). */
export function icon(name, cls = "icon") {
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", cls);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(NS, "path");
  path.setAttribute("d", ICONS[name] ?? ICONS.tool);
  svg.append(path);
  return svg;
}

/** A button with an icon and a (visible or screen-reader-only) label. */
export function iconButton(name, label, props = {}, { showLabel = false } = {}) {
  return h(
    "button",
    { type: "button", class: ["btn", "btn-icon", props.class], title: props.title ?? label, "aria-label": showLabel ? undefined : label, ...withoutClass(props) },
    icon(name),
    showLabel ? h("span", { class: "btn-label" }, label) : null,
  );
}

function withoutClass(props) {
  const { class: _c, title: _t, ...rest } = props;
  return rest;
}

/** Numbers in the page's language (i18n/i18n.js). */
export const fmt = { format: (n) => number(n) };

/** The message `key` with elements in some placeholders (`{link}` → a button), as one inline
 * element, so a sentence keeps its own word order in every language; a language switch
 * (i18n/i18n.js) fills it again around the same elements. */
export function tNodes(key, params = {}) {
  const el = document.createElement("span");
  el.className = "i18n-nodes";
  el._relabel = () => {
    const slots = {};
    for (const [k, v] of Object.entries(params)) slots[k] = v instanceof Node || Array.isArray(v) ? `\u0000${k}\u0000` : v;
    const parts = t(key, slots)
      .split("\u0000")
      .map((part, i) => (i % 2 ? params[part] : part))
      .filter((part) => part !== "");
    clear(el);
    append(el, parts);
  };
  el._relabel();
  return el;
}

/** Write text to the clipboard; resolves true on success. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = h("textarea", { class: "offscreen", "aria-hidden": "true" });
    ta.value = text;
    document.body.append(ta);
    ta.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    ta.remove();
    return ok;
  }
}
