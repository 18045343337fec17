// A file change (FileChange: the host's unified diff of a write_file / edit_file) as a card block:
// the path with +/− counts, then the hunks with old and new line numbers. Long diffs start folded
// (a fixed height with a "Show all" toggle); a change without a diff says why (binary, too large).
// Used by the tool card (the applied change) and the approval card (what the call would write).
// Also `diffView`: a line diff of two texts, for a call whose change the host has not diffed yet.

import { h, icon } from "./dom.js";
import { lineDiff, withContext } from "../state/diff.js";
import { changeSummary, parseUnifiedDiff } from "../state/unified-diff.js";
import { hostNote } from "../state/host-words.js";
import { t } from "../i18n/i18n.js";

const FOLD_ROWS = 24;

/** @param {object} change a FileChange @param {{testid?: string, foldRows?: number}} opts */
export function fileChangeView(change, { testid = "file-change", foldRows = FOLD_ROWS } = {}) {
  const { created, stat } = changeSummary(change);
  const head = h(
    "div",
    { class: "diff-path" },
    icon("file"),
    h("span", { class: "diff-file", testid: "diff-file", translate: "no" }, change.path),
    created ? h("span", { class: "badge diff-badge", testid: "diff-new" }, t("diff.newFile")) : null,
    change.afterKind ? h("span", { class: "badge diff-badge", testid: "diff-replaced" }, t(`diff.replaced.${REPLACED.has(change.afterKind) ? change.afterKind : "other"}`)) : null,
    stat ? h("span", { class: "diff-stat", testid: "diff-stat", "aria-label": t("diff.stat", { added: change.added ?? 0, removed: change.removed ?? 0 }) }, statNodes(change)) : null,
  );
  const rows = parseUnifiedDiff(change.diff);
  const table = rows.length ? h("div", { class: "diff udiff", role: "table", "aria-label": t("diff.changesTo", { path: change.path }) }, rows.map(row)) : null;
  const note = change.diffNote ? h("p", { class: "diff-note", testid: "diff-note" }, noteText(change)) : null;
  const wrap = h("div", { class: "diff-wrap file-change", testid, dataset: { path: change.path } }, head, table, note);
  if (table && rows.length > foldRows) wrap.append(foldToggle(table, rows.length));
  return wrap;
}

/** The rows of one unified diff (or a single hunk of one) as a table; null when it has none. */
export function diffTable(text, label) {
  const rows = parseUnifiedDiff(text);
  return rows.length ? h("div", { class: "diff udiff", role: "table", "aria-label": label }, rows.map(row)) : null;
}

export function statNodes(change) {
  return [
    change.added ? h("span", { class: "stat-add" }, `+${change.added}`) : null,
    change.removed ? h("span", { class: "stat-del" }, `−${change.removed}`) : null,
  ];
}

const REPLACED = new Set(["symlink", "directory"]);

function noteText(change) {
  const note = hostNote(change.diffNote);
  if (change.afterKind) return t("diff.noteReplaced", { note });
  if (change.diff) return t("diff.noteCut", { note }); // cut: the start is shown
  return t("diff.noteNone", { note });
}

const KIND_CLASS = { add: "diff-add", del: "diff-del", ctx: "diff-ctx" };
const KIND_OP = { add: "+", del: "−", ctx: " " };

function row(r) {
  if (r.kind === "hunk") return h("div", { class: "diff-line diff-hunk", role: "row", translate: "no" }, h("span", { class: "diff-text" }, r.text));
  if (r.kind === "meta") return h("div", { class: "diff-line diff-skip", role: "row", translate: "no" }, r.text);
  return h(
    "div",
    { class: `diff-line ${KIND_CLASS[r.kind]}`, role: "row" },
    h("span", { class: "diff-no", "aria-hidden": "true" }, r.oldNo ?? ""),
    h("span", { class: "diff-no", "aria-hidden": "true" }, r.newNo ?? ""),
    h("span", { class: "diff-op", "aria-hidden": "true" }, KIND_OP[r.kind]),
    h("span", { class: "diff-text", translate: "no" }, r.text || " "),
  );
}

function foldToggle(table, count) {
  table.classList.add("is-folded");
  const more = t("diff.showAll", { count });
  const btn = h("button", { type: "button", class: "btn btn-small diff-toggle", testid: "diff-toggle", "aria-expanded": "false" }, more);
  btn.addEventListener("click", () => {
    const folded = table.classList.toggle("is-folded");
    btn.setAttribute("aria-expanded", String(!folded));
    btn.textContent = folded ? t("diff.showAll", { count }) : t("diff.showLess");
  });
  return btn;
}

/** A line diff of d.old → d.new under d.path (the tool card, the host's tool views and the approval card). */
export function diffView(d, testid = "tool-diff") {
  const lines = withContext(lineDiff(d.old, d.new), 3);
  const table = h("div", { class: "diff", testid, role: "table", "aria-label": d.path ? t("diff.changesTo", { path: d.path }) : t("diff.changesToFile") });
  for (const l of lines) {
    if (l.op === "…") {
      table.append(h("div", { class: "diff-line diff-skip", role: "row" }, t("diff.unchanged", { count: l.count })));
      continue;
    }
    const cls = l.op === "+" ? "diff-add" : l.op === "-" ? "diff-del" : "diff-ctx";
    table.append(h("div", { class: `diff-line ${cls}`, role: "row" }, h("span", { class: "diff-op", "aria-hidden": "true" }, l.op), h("span", { class: "diff-text", translate: "no" }, l.text || " ")));
  }
  if (lines.length === 0) table.append(h("div", { class: "diff-line diff-skip" }, t("diff.noChanges")));
  return h("div", { class: "diff-wrap" }, d.path ? h("div", { class: "diff-path", translate: "no" }, d.path) : null, table);
}
