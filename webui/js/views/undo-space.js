// Settings → Undo: the disk the snapshots take (they make shell commands revertable), per folder
// and against the budget, with "Free space" (docs/architecture.md, "Snapshots").

import { h, clear } from "./dom.js";
import { confirm } from "./confirm.js";
import { number, t } from "../i18n/i18n.js";

const MIB = 1 << 20;
const one = { minimumFractionDigits: 1, maximumFractionDigits: 1 };
export const size = (n) => (n >= 1 << 30 ? `${number(n / (1 << 30), one)} GB` : n >= MIB ? `${number(n / MIB, one)} MB` : `${number(Math.ceil(n / 1024))} KB`);

/** A block that loads `files.spaceUsed` and offers to free it; `ctx`: {call, say}. */
export function spaceBlock(ctx) {
  const el = h("div", { class: "undo-space", testid: "undo-space" }, h("p", { class: "hint" }, t("undoSpace.measuring")));
  const load = async () => {
    const r = await ctx.call("files.spaceUsed", {});
    clear(el);
    if (!r.ok) return el.append(h("p", { class: "hint" }, t("undoSpace.unavailable")));
    const v = r.value;
    if (v.unavailable) el.append(h("p", { class: "hint", role: "note" }, t("undoSpace.noUndo", { reason: v.unavailable })));
    el.append(h("p", { testid: "undo-space-total" }, t("undoSpace.total", { used: size(v.totalBytes), budget: size(v.totalBudgetBytes) }), v.folders.length ? t("undoSpace.inFolders", { count: v.folders.length }) : ""));
    if (v.folders.length) {
      el.append(h("ul", { class: "file-list", testid: "undo-space-folders" }, v.folders.map((f) => h("li", {}, h("span", { translate: "no" }, f.path), " — ", f.note ? h("span", { translate: "no" }, f.note) : t("undoSpace.folder", { size: size(f.bytes), count: f.turns })))));
    }
    const free = h("button", { type: "button", class: "btn", testid: "undo-free-space", disabled: !v.totalBytes }, t("undoSpace.free"));
    free.addEventListener("click", async () => {
      const choice = await confirm({
        title: t("undoSpace.freeTitle"),
        body: [t("undoSpace.freeBody")],
        testid: "undo-free-dialog",
        actions: [{ label: t("undoSpace.free"), value: "free", tone: "danger", testid: "undo-free-confirm" }],
      });
      if (choice !== "free") return;
      free.disabled = true;
      const done = await ctx.call("files.freeSpace", {});
      ctx.say(done.ok ? t("undoSpace.freed", { size: size(done.value.freedBytes) }) : t("undoSpace.freeFailed"), done.ok ? "ok" : "error");
      await load();
    });
    el.append(h("div", { class: "row-actions" }, free));
  };
  load();
  return el;
}
