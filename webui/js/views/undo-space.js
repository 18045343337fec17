// Settings → Undo: the disk the snapshots take (they make shell commands revertable), per folder
// and against the budget, with "Free space" (docs/architecture.md, "Snapshots").

import { h, clear } from "./dom.js";
import { confirm } from "./confirm.js";

const MIB = 1 << 20;
export const size = (n) => (n >= 1 << 30 ? `${(n / (1 << 30)).toFixed(1)} GB` : n >= MIB ? `${(n / MIB).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`);

const TEXT = {
  worktrees: (n, bytes) => `Worktrees: ${size(bytes)} in ${n === 1 ? "1 worktree" : `${n} worktrees`}`,
  none: "Worktrees: none.",
  theirs: "yours: never removed by HarnessDesk",
  hint: "A session's worktree goes when you delete the session or remove the worktree from its header's worktree menu.",
};

/** The worktrees sessions work in, and the disk each takes (docs/decisions.md, "Worktree sessions"). */
async function worktreeSpace(ctx) {
  const r = await ctx.worktreeSpace();
  if (!r.ok) return h("p", { class: "hint" }, TEXT.none);
  const v = r.value;
  if (!v.items.length) return h("p", { testid: "undo-worktrees-total" }, TEXT.none);
  return h(
    "div",
    { class: "undo-worktrees", testid: "undo-worktrees" },
    h("p", { testid: "undo-worktrees-total" }, TEXT.worktrees(v.items.length, v.totalBytes)),
    h("ul", { class: "file-list", testid: "undo-worktree-list" }, v.items.map((w) => h("li", {}, `${w.path} (${w.branch}) — ${size(w.bytes)}${w.owned ? "" : `, ${TEXT.theirs}`}`))),
    h("p", { class: "hint" }, TEXT.hint),
  );
}

/** A block that loads `files.spaceUsed` and offers to free it, and lists the worktrees' disk use;
 * `ctx`: {call, say, worktreeSpace() (WorktreeCalls.spaceUsed)}. */
export function spaceBlock(ctx) {
  const el = h("div", { class: "undo-space", testid: "undo-space" }, h("p", { class: "hint" }, "Measuring the space used…"));
  const load = async () => {
    const r = await ctx.call("files.spaceUsed", {});
    clear(el);
    if (!r.ok) return el.append(h("p", { class: "hint" }, "The space used is not available here."));
    const v = r.value;
    if (v.unavailable) el.append(h("p", { class: "hint", role: "note" }, `Shell commands cannot be undone on this computer: ${v.unavailable}.`));
    el.append(h("p", { testid: "undo-space-total" }, `Space used: ${size(v.totalBytes)} of ${size(v.totalBudgetBytes)}`, v.folders.length ? ` in ${v.folders.length === 1 ? "1 folder" : `${v.folders.length} folders`}` : ""));
    if (v.folders.length) {
      el.append(h("ul", { class: "file-list", testid: "undo-space-folders" }, v.folders.map((f) => h("li", {}, f.note ? `${f.path} — ${f.note}` : `${f.path} — ${size(f.bytes)}, ${f.turns === 1 ? "1 turn" : `${f.turns} turns`} revertable`))));
    }
    const free = h("button", { type: "button", class: "btn", testid: "undo-free-space", disabled: !v.totalBytes }, "Free space");
    free.addEventListener("click", async () => {
      const choice = await confirm({
        title: "Free the space used by undo?",
        body: ["Earlier turns' shell changes can no longer be reverted afterwards. Files the agent wrote with its file tools stay revertable."],
        testid: "undo-free-dialog",
        actions: [{ label: "Free space", value: "free", tone: "danger", testid: "undo-free-confirm" }],
      });
      if (choice !== "free") return;
      free.disabled = true;
      const done = await ctx.call("files.freeSpace", {});
      ctx.say(done.ok ? `Freed ${size(done.value.freedBytes)}.` : "Could not free the space.", done.ok ? "ok" : "error");
      await load();
    });
    el.append(h("div", { class: "row-actions" }, free));
    el.append(await worktreeSpace(ctx));
  };
  load();
  return el;
}
