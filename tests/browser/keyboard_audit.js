// The keyboard audit's page side (tests/browser/keyboard_audit.py): evaluated as the body of a
// function; `auditStep()` and `auditFind(visited, described)` are what it calls.
const INTERACTIVE = "button, a[href], input:not([type=hidden]), select, textarea, summary, [contenteditable=''], [contenteditable=true], [role=button], [role=link], [role=menuitem], [role=menuitemradio], [role=menuitemcheckbox], [role=option], [role=tab], [role=checkbox], [role=radio], [role=switch], [role=slider], [role=scrollbar], [role=separator][tabindex], [role=treeitem], [tabindex]:not([tabindex='-1'])";
const ROVING = "[role=listbox], [role=menu], [role=menubar], [role=radiogroup], [role=tablist], [role=tree], [role=toolbar], [role=grid], [role=treegrid]";
const scope = () => { const d = [...document.querySelectorAll("dialog[open]")].pop(); return d ?? document.body; };
const aid = (el) => { if (!el.dataset.auditId) el.dataset.auditId = String(window.__auditNext = (window.__auditNext ?? 0) + 1); return el.dataset.auditId; };
const shown = (el) => {
  if (!el.isConnected || el.closest("[inert], [hidden], [aria-hidden=true]") && !el.matches(":focus")) return false;
  const r = el.getBoundingClientRect();
  if (r.width < 1 || r.height < 1) return false;
  return el.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true }); // a closed <details>' body too
};
// what shows the focus of an element that is not itself drawn: xterm's input is the terminal's screen
const face = (el) => (el.classList.contains("xterm-helper-textarea") ? el.closest(".term-view") ?? el : el);
const ringed = (el) => { const s = getComputedStyle(el); return (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== "none"; };
const opacity = (el) => { let o = 1; for (let n = el; n && n.nodeType === 1; n = n.parentElement) o *= Number(getComputedStyle(n).opacity); return o; };
const textOf = (el) => {
  let s = "";
  for (const n of el.childNodes) {
    if (n.nodeType === 3) s += n.textContent;
    else if (n.nodeType === 1 && n.getAttribute("aria-hidden") !== "true" && getComputedStyle(n).display !== "none") s += " " + (n.tagName === "IMG" ? n.alt ?? "" : textOf(n));
  }
  return s;
};
const nameOf = (el) => {
  const by = el.getAttribute("aria-labelledby");
  if (by) { const s = by.split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? "").join(" ").trim(); if (s) return s; }
  const label = el.getAttribute("aria-label")?.trim(); if (label) return label;
  if (el.labels?.length) { const s = [...el.labels].map((l) => textOf(l)).join(" ").trim(); if (s) return s; }
  const field = ["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName);
  if (el.tagName === "INPUT" && ["button", "submit", "reset"].includes(el.type) && el.value) return el.value;
  if (!field) { const s = textOf(el).replace(/\s+/g, " ").trim(); if (s) return s; }
  if (el.title?.trim()) return el.title.trim();
  if (el.placeholder?.trim()) return el.placeholder.trim();
  return "";
};
const describe = (el) => `${el.tagName.toLowerCase()}${el.dataset.testid ? "[" + el.dataset.testid + "]" : ""}${el.id ? "#" + el.id : ""}${el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : ""} "${nameOf(el).slice(0, 40)}"`;

/** What the focus is on after a Tab: its audit id, how to name it, shown, with a focus ring. */
function auditStep() {
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return null;
  const f = face(el);
  let ring = ringed(f);
  for (let n = f.parentElement, i = 0; !ring && n && i < 3; n = n.parentElement, i++) ring = getComputedStyle(n).boxShadow !== "none";
  return { id: aid(el), what: describe(el), shown: shown(f) && opacity(f) >= 0.5, ring, trap: f !== el };
}

/** Every visible interactive element of the page (or its open dialog) that Tab did not reach
 * (`visited` ids; `described`: what a redraw replaced, the same control drawn again) or that has
 * no name. */
function auditFind(visited, described) {
  const seen = new Set(visited);
  const seenAs = new Set(described);
  const root = scope();
  const clicky = window.__auditClicky ?? new WeakSet();
  const all = [...root.querySelectorAll("*")].filter(shown);
  const candidates = all.filter((el) => {
    if (el.matches(INTERACTIVE)) return !el.closest("[aria-hidden=true]");
    if (!clicky.has(el) || el === root || el.tagName === "DIALOG") return false;
    // a listener on a container serves what is inside it (delegation); one inside a control is the control's
    if (el.querySelector(INTERACTIVE)) return false;
    return !el.parentElement?.closest(INTERACTIVE);
  });
  const reached = (el) => {
    if (seen.has(el.dataset.auditId) || seenAs.has(describe(el))) return true;
    if (el.disabled || el.getAttribute("aria-disabled") === "true") return true;
    if (el.closest("[inert]")) return true;
    if (el.tagName === "INPUT" && el.type === "radio" && el.name) {
      const form = el.form ?? document;
      return [...form.querySelectorAll(`input[type=radio][name="${CSS.escape(el.name)}"]`)].some((r) => seen.has(r.dataset.auditId));
    }
    const group = el.closest(ROVING);
    if (group && (seen.has(group.dataset.auditId) || [...group.querySelectorAll("[data-audit-id]")].some((m) => seen.has(m.dataset.auditId)))) return true;
    // a listbox an input owns (aria-activedescendant): reached from its input
    const list = el.closest("[role=listbox]");
    if (list?.id && [...document.querySelectorAll(`[aria-controls="${list.id}"]`)].some((m) => seen.has(m.dataset?.auditId))) return true;
    return false;
  };
  const problems = [];
  for (const el of candidates) {
    aid(el);
    if (!reached(el)) problems.push(`not reached by Tab: ${describe(el)}`);
    if (!nameOf(el) && !el.closest("[aria-hidden=true]")) problems.push(`no accessible name: ${describe(el)}`);
  }
  return { count: candidates.length, problems };
}
