// Undoing the agent's file changes (docs/architecture.md, "Checkpoints and undo"): the line under a
// turn that changed files ("Changed 2 files · Revert"), the confirmation before a revert, the row a
// revert or a fork's restore leaves in the conversation, and the fork dialog that offers to restore
// the files to that point.

import { h, icon } from "./dom.js";
import { confirm } from "./confirm.js";
import { describeError } from "../state/problems.js";
import { fileChangeView } from "./diff.js";

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The first three paths, each a link into the Changes view when there is one. */
function fileLinks(files, ctx) {
  const out = [];
  files.slice(0, 3).forEach((p, i) => {
    if (i) out.push(", ");
    if (!ctx.openChanges) return out.push(p);
    const a = h("button", { type: "button", class: "link-button", testid: "turn-file-link", dataset: { path: p }, title: "Show this file's changes since the session started" }, p);
    a.addEventListener("click", () => ctx.openChanges(p));
    out.push(a);
  });
  if (files.length > 3) {
    if (!ctx.openChanges) out.push(` and ${files.length - 3} more`);
    else {
      const more = h("button", { type: "button", class: "link-button", testid: "turn-file-link" }, `and ${files.length - 3} more`);
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
    h("span", {}, item.reverted ? `Reverted: ${plural(files.length, "file")} put back` : `Changed ${plural(files.length, "file")}:`),
    item.reverted ? null : h("span", { class: "files-list" }, shown),
  );
  if (!item.reverted && ctx.onRevert) {
    const btn = h("button", { type: "button", class: "btn btn-ghost btn-small", testid: "revert-turn", title: "Put these files back as they were before this turn" }, icon("retry"), h("span", {}, "Revert"));
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
    h("span", {}, `Not recorded: ${why.join("; ")}. What this turn's shell commands changed cannot be reverted.`),
  );
}

const ACTION_TEXT = { restored: "restored", removed: "removed (it did not exist before)", unchanged: "already as it was" };

const CAUSE_TEXT = { "revert-file": "Reverted a file in the Changes view", "revert-hunk": "Undid one change in the Changes view" };

/** The row of a `files/restored` event. */
export function restoredRow(item) {
  const what = CAUSE_TEXT[item.cause] ?? (item.cause === "fork" ? (item.forkSessionId ? "Files restored for a fork at this point" : "Files restored to this point") : "Reverted this turn's file changes");
  const el = h("div", { class: "row restored-row", testid: "restored-row", dataset: { cause: item.cause } }, h("strong", {}, what));
  el.append(h("ul", {}, item.files.map((f) => h("li", { dataset: { action: f.action } }, `${f.path} — ${ACTION_TEXT[f.action] ?? f.action}`))));
  if (item.error) el.append(h("p", { class: "restored-error", role: "alert" }, `Stopped early: ${item.error}`));
  return el;
}

/** Confirm, then `files.revertTurn`; a refusal becomes a toast that says which files and why. */
export async function revertTurn(app, item, btn) {
  const s = app.manager.active;
  if (!s) return;
  const changes = item.changes ?? [];
  const body = [
    "These files will be put back as they were before this turn (what its file tools and shell commands changed):",
    h(
      "ul",
      { class: "file-list revert-files", testid: "revert-files" },
      item.files.map((p) => h("li", { dataset: { path: p } }, changes.filter((c) => c.path === p).map((c) => fileChangeView(c, { testid: "revert-diff", foldRows: 12 })).concat(changes.some((c) => c.path === p) ? [] : [p]))),
    ),
  ];
  if (item.unrecorded?.length) body.push(h("p", { class: "dialog-hint", testid: "revert-unrecorded" }, `Not put back: ${item.unrecorded.join("; ")}, so what some of its shell commands changed was not recorded.`));
  const choice = await confirm({
    title: "Revert this turn's changes?",
    body,
    testid: "revert-dialog",
    actions: [{ label: `Revert ${plural(item.files.length, "file")}`, value: "revert", tone: "danger", testid: "revert-confirm" }],
  });
  if (choice !== "revert") return;
  btn.disabled = true;
  const r = await app.turns.revertTurn(s.sessionId, item.turn);
  btn.disabled = false;
  if (!r.ok) return app.status.toast(describeError(r.error));
  const changed = r.value.files.filter((f) => f.action !== "unchanged").length;
  app.status.toast(`Reverted: ${plural(changed, "file")} put back.`, "info");
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
    const r = await app.manager.fork(s.sessionId, atSeq, { restoreFiles });
    if (!r.ok) app.status.toast(describeError(r.error));
    return r.ok;
  } finally {
    btn.disabled = false;
  }
}

function forkDialog({ files, conflicts }) {
  const blocked = conflicts.length > 0;
  const items = [
    ...files.map((f) => h("li", {}, `${f.path} — ${f.action === "removed" ? "removed (created later)" : "restored"}`)),
    ...conflicts.map((c) => h("li", { class: "conflict" }, `${c.path} — ${c.reason === "not-saved" ? "no saved copy" : "changed outside HarnessDesk since"}`)),
  ];
  // keeping the files is the default (last, focused): restoring rewrites files, so it is asked for
  const actions = blocked ? [] : [{ label: "Fork and restore files", value: "restore", testid: "fork-restore-files" }];
  actions.push({ label: "Fork, keep files as they are", value: "keep", testid: "fork-keep-files", tone: "primary" });
  return {
    title: "Fork from here",
    testid: "fork-dialog",
    body: [
      `Later turns changed ${plural(files.length + conflicts.length, "file")} in this folder. The fork keeps them as they are unless you ask to restore them to how they were at this point.`,
      h("ul", { class: "file-list", testid: "fork-files" }, items),
      blocked ? h("p", { class: "dialog-hint" }, "Files changed outside HarnessDesk cannot be restored; fork without restoring, or undo those edits first.") : null,
    ].filter(Boolean),
    actions,
  };
}
