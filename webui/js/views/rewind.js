// "Rewind to here" on a person's earlier message (docs/decisions.md, "Rewind in place"): the same
// session goes on from before that message — it and what followed leave what the agent is sent and
// stay in the conversation, folded under a "Rewound" row — with the files put back as they were
// before it if the person asks, and the message back in the composer to edit.

import { h, icon } from "./dom.js";
import { confirm } from "./confirm.js";
import { describeError } from "../state/problems.js";
import { t } from "../i18n/i18n.js";

/** The button on a user row (ctx.onRewind(item, button)). */
export function rewindButton(item, ctx) {
  const b = h("button", { type: "button", class: "btn btn-ghost btn-icon btn-small rewind-here", testid: "rewind-here", "aria-label": t("rewind.label"), title: t("rewind.title") }, icon("retry"));
  b.addEventListener("click", () => ctx.onRewind(item, b));
  return b;
}

/** Ask, then `session.rewind`; the text goes back to the composer. */
export async function rewindTo(app, item, button) {
  const s = app.manager.active;
  if (!s) return;
  const choice = await confirm({
    title: t("rewind.dialogTitle"),
    testid: "rewind-dialog",
    body: [t("rewind.dialogBody")],
    actions: [
      { label: t("rewind.keepFiles"), value: "keep", testid: "rewind-keep-files" },
      { label: t("rewind.restoreFiles"), value: "restore", testid: "rewind-restore-files", tone: "primary" },
    ],
  });
  if (choice === null) return;
  button.disabled = true;
  try {
    const r = await app.turns.rewind(s.sessionId, item.seq, choice === "restore");
    if (!r.ok) return app.status.toast(describeError(r.error));
    const { text, restoredFiles, conflicts } = r.value;
    app.composer.setDraft(text, [], []);
    if (conflicts.length) app.status.toast(t("rewind.conflicts", { files: conflicts.map((c) => c.path).join(", ") }));
    else if (restoredFiles.length) app.status.toast(t("rewind.restored", { count: restoredFiles.length }));
  } finally {
    button.disabled = false;
  }
}

/** The row a `session/rewound` leaves: how much was rewound, the files put back, Show/Hide, and
 * "Restore as a new session": a fork through the last rewound turn, so the rewound turns come
 * back (with their files if the person asks) while this session goes on from the rewind. */
export function rewoundRow(item, ctx) {
  const toggle = h("button", { type: "button", class: "btn btn-ghost btn-small", testid: "rewound-toggle", "aria-expanded": "false" }, t("rewind.show"));
  const restore =
    item.lastSeq !== null && ctx?.onFork
      ? h("button", { type: "button", class: "btn btn-ghost btn-small", testid: "rewound-restore", title: t("rewind.restoreTurnsTitle") }, t("rewind.restoreTurns"))
      : null;
  restore?.addEventListener("click", () => ctx.onFork(item.lastSeq, restore));
  const el = h(
    "div",
    { class: "row rewound-row", testid: "rewound-row" },
    icon("retry"),
    h("span", {}, t("rewind.row", { count: item.count })),
    item.files.length ? h("span", { class: "muted" }, " · ", t("rewind.rowFiles", { count: item.files.length })) : null,
    toggle,
    restore,
  );
  toggle.addEventListener("click", () => {
    const shown = document.body.classList.toggle("show-rewound");
    toggle.textContent = shown ? t("rewind.hide") : t("rewind.show");
    toggle.setAttribute("aria-expanded", String(shown));
  });
  return el;
}
