// "Edit and resend" on a user message: fork the session just before that message (after the
// previous turn, offering to restore the files later turns changed, views/undo.js; a message of
// the first turn starts a new session in the same folder) and put its text and images in the
// composer, so the person edits and sends it there.

import { h, icon } from "./dom.js";
import { contentToPromptInput } from "./attachments.js";
import { base64ToBytes } from "../state/attachments.js";
import { forkPointBefore } from "../state/recall.js";
import { attachedOf, chipOfAttached } from "../state/finder.js";
import { forkFrom } from "./undo.js";
import { t } from "../i18n/i18n.js";

const MAX_PAGES = 200; // older pages read to find the turn before a message

/** The button on a user row (ctx.onEditResend(item, button)). */
export function editResendButton(item, ctx) {
  const b = h("button", { type: "button", class: "btn btn-ghost btn-icon btn-small edit-resend", testid: "edit-resend", "aria-label": t("edit.label"), title: t("edit.title") }, icon("pencil"));
  b.addEventListener("click", () => ctx.onEditResend(item, b));
  return b;
}

/** @param app the App (manager, composer, newSession, status) @param item a user row */
export async function editAndResend(app, item, button) {
  const s = app.manager.active;
  if (!s) return;
  button.disabled = true;
  try {
    let point = forkPointBefore(s.events, item.seq, s.hasMore);
    for (let i = 0; point.more && i < MAX_PAGES; i++) {
      if (!(await s.loadOlder()) && s.error) break;
      point = forkPointBefore(s.events, item.seq, s.hasMore);
    }
    if (point.more) throw new Error(t("edit.notLoaded"));
    const content = await contentToPromptInput(app.turns, s.sessionId, item.content.filter((b) => !b.attached));
    const chips = attachedOf(item.content).map(chipOfAttached);
    const text = content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
    if (point.at === null) {
      if (!(await app.newSession())) throw new Error(t("edit.noSession"));
    } else if (!(await forkFrom(app, point.at, button))) {
      return; // cancelled in the restore-files dialog, or refused (it said why)
    }
    const images = content.filter((b) => b.type === "image").map((input) => ({ input, url: URL.createObjectURL(new Blob([base64ToBytes(input.data)], { type: input.mediaType })) }));
    app.composer.setDraft(text, images, chips); // attached files are read again when it is sent
  } catch (e) {
    app.status.toast(t("edit.failed", { reason: e.message }));
  } finally {
    button.disabled = false;
  }
}
