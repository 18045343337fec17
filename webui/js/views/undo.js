// Undoing the agent's file changes (docs/architecture.md, "Checkpoints and undo"): the line under a
// turn that changed files ("Changed 2 files · Revert"), the confirmation before a revert, the row a
// revert or a fork's restore leaves in the conversation, and the fork dialog that offers to restore
// the files to that point.

import { h, icon } from "./dom.js";
import { confirm } from "./confirm.js";
import { describeError } from "../state/problems.js";
import { fileChangeView } from "./diff.js";
import { t } from "../i18n/i18n.js";


/** The first three paths, each a link into the Changes view when there is one. */
function fileLinks(files, ctx) {
  const out = [];
  files.slice(0, 3).forEach((p, i) => {
    if (i) out.push(", ");
    if (!ctx.openChanges) return out.push(h("span", { translate: "no" }, p));
    const a = h("button", { type: "button", class: "link-button", testid: "turn-file-link", dataset: { path: p }, title: t("undo.fileTitle"), translate: "no" }, p);
    a.addEventListener("click", () => ctx.openChanges(p));
    out.push(a);
  });
  if (files.length > 3) {
    if (!ctx.openChanges) out.push(" ", t("undo.andMore", { count: files.length - 3 }));
    else {
      const more = h("button", { type: "button", class: "link-button", testid: "turn-file-link" }, t("undo.andMore", { count: files.length - 3 }));
      more.addEventListener("click", () => ctx.openChanges(null));
      out.push(" ", more);
    }
  }
  return out;
}

/** Under a turn-end: which files the turn changed, and Revert (null when it changed none). */
export function turnFilesLine(item, ctx) {
  const files = item.files ?? [];
  if (!files.length) return null;
  const shown = fileLinks(files, ctx);
  const line = h(
    "div",
    { class: ["turn-files", item.reverted && "is-reverted"], testid: "turn-files" },
    icon("file"),
    h("span", {}, item.reverted ? t("undo.revertedLine", { count: files.length }) : t("undo.changedLine", { count: files.length })),
    item.reverted ? null : h("span", { class: "files-list" }, shown),
  );
  if (!item.reverted && ctx.onRevert) {
    const btn = h("button", { type: "button", class: "btn btn-ghost btn-small", testid: "revert-turn", title: t("undo.revertTitle") }, icon("retry"), h("span", {}, t("undo.revert")));
    btn.addEventListener("click", () => ctx.onRevert(item, btn));
    line.append(btn);
  }
  return line;
}

/** Under a turn-end whose step ran without snapshots: what was not recorded, and why (null when all was). */
export function unrecordedLine(item) {
  const why = item.unrecorded ?? [];
  if (!why.length || item.reverted) return null;
  return h(
    "p",
    { class: "turn-unrecorded", role: "note", testid: "turn-unrecorded" },
    icon("info"),
    h("span", {}, t("undo.unrecorded", { why: why.join("; ") })),
  );
}

const ACTIONS = new Set(["restored", "removed", "unchanged"]);

const CAUSE_TEXT = { "revert-file": "undo.cause.revertFile", "revert-hunk": "undo.cause.revertHunk" };

/** The row of a `files/restored` event. */
export function restoredRow(item) {
  const what = t(CAUSE_TEXT[item.cause] ?? (item.cause === "fork" ? (item.forkSessionId ? "undo.cause.forkAt" : "undo.cause.fork") : "undo.cause.turn"));
  const el = h("div", { class: "row restored-row", testid: "restored-row", dataset: { cause: item.cause } }, h("strong", {}, what));
  el.append(h("ul", {}, item.files.map((f) => h("li", { dataset: { action: f.action } }, h("span", { translate: "no" }, f.path), " — ", ACTIONS.has(f.action) ? t(`undo.action.${f.action}`) : f.action))));
  if (item.error) el.append(h("p", { class: "restored-error", role: "alert" }, t("undo.stoppedEarly", { reason: item.error })));
  return el;
}

/** Confirm, then `files.revertTurn`; a refusal becomes a toast that says which files and why. */
export async function revertTurn(app, item, btn) {
  const s = app.manager.active;
  if (!s) return;
  const changes = item.changes ?? [];
  const body = [
    t("undo.revertBody"),
    h(
      "ul",
      { class: "file-list revert-files", testid: "revert-files" },
      item.files.map((p) => h("li", { dataset: { path: p } }, changes.filter((c) => c.path === p).map((c) => fileChangeView(c, { testid: "revert-diff", foldRows: 12 })).concat(changes.some((c) => c.path === p) ? [] : [h("span", { translate: "no" }, p)]))),
    ),
  ];
  if (item.unrecorded?.length) body.push(h("p", { class: "dialog-hint", testid: "revert-unrecorded" }, t("undo.notPutBack", { why: item.unrecorded.join("; ") })));
  const choice = await confirm({
    title: t("undo.revertDialog"),
    body,
    testid: "revert-dialog",
    actions: [{ label: t("undo.revertFiles", { count: item.files.length }), value: "revert", tone: "danger", testid: "revert-confirm" }],
  });
  if (choice !== "revert") return;
  btn.disabled = true;
  const r = await app.turns.revertTurn(s.sessionId, item.turn);
  btn.disabled = false;
  if (!r.ok) return app.status.toast(describeError(r.error));
  const changed = r.value.files.filter((f) => f.action !== "unchanged").length;
  app.status.toast(t("undo.reverted", { count: changed }), "info");
}

/** Fork at a turn; when later turns changed files, offer to restore them to that point too. */
/** @returns {Promise<boolean>} whether the fork was made (and is now open) */
export async function forkFrom(app, atSeq, btn) {
  const s = app.manager.active;
  if (!s) return false;
  btn.disabled = true;
  try {
    const preview = await app.turns.restorePreview(s.sessionId, atSeq);
    let restoreFiles = false;
    if (preview.ok && (preview.value.files.length || preview.value.conflicts.length)) {
      const choice = await confirm(forkDialog(preview.value));
      if (choice === null) return false;
      restoreFiles = choice === "restore";
    }
    const forking = app.manager.fork(s.sessionId, atSeq, { restoreFiles });
    app.making(forking.then((r) => (r.ok ? app.manager.active : null), () => null)); // a message sent meanwhile goes to the fork
    const r = await forking;
    if (!r.ok) app.status.toast(describeError(r.error));
    return r.ok;
  } finally {
    btn.disabled = false;
  }
}

function forkDialog({ files, conflicts }) {
  const blocked = conflicts.length > 0;
  const items = [
    ...files.map((f) => h("li", {}, h("span", { translate: "no" }, f.path), " — ", f.action === "removed" ? t("undo.fork.removed") : t("undo.action.restored"))),
    ...conflicts.map((c) => h("li", { class: "conflict" }, h("span", { translate: "no" }, c.path), " — ", c.reason === "not-saved" ? t("undo.fork.noCopy") : t("undo.fork.changedOutside"))),
  ];
  // keeping the files is the default (last, focused): restoring rewrites files, so it is asked for
  const actions = blocked ? [] : [{ label: t("undo.fork.restore"), value: "restore", testid: "fork-restore-files" }];
  actions.push({ label: t("undo.fork.keep"), value: "keep", testid: "fork-keep-files", tone: "primary" });
  return {
    title: t("undo.fork.title"),
    testid: "fork-dialog",
    body: [
      t("undo.fork.body", { count: files.length + conflicts.length }),
      h("ul", { class: "file-list", testid: "fork-files" }, items),
      blocked ? h("p", { class: "dialog-hint" }, t("undo.fork.blocked")) : null,
    ].filter(Boolean),
    actions,
  };
}
