// Actions on the open session's turns: send a prompt, stop the running turn, retry a failed one.

import { classifyProblem, describeError } from "../state/problems.js";
import { contentToPromptInput } from "./attachments.js";
import { attachOf, attachedOf } from "../state/finder.js";
import { interruptSubagent, messageSubagent, subagentOf } from "./subagents.js";
import { t } from "../i18n/i18n.js";

export async function sendPrompt(app, mode, content, attach = []) {
  // New session or Fork was clicked and the session is still being made: the message is its
  // first; when it could not be made, the message stays in the box
  const making = app.creating;
  let s = making ? await making : app.manager.active;
  if (making && !s) return false;
  if (!s) {
    s = await app.newSession(); // a folder the person chose (docs/decisions.md)
    if (!s) return false;
  }
  app.conversation.jumpToLatest(); // sending always shows the newest message
  app.notifier.requestPermission();
  const child = subagentOf(app.manager, s.sessionId);
  if (child) return messageSubagent(app.turns, child, content, (m) => app.status.toast(m), attach);
  if (app.worktreePanel.wants(s.sessionId)) {
    // "In a new worktree": the session is made now, named after this first prompt (worktree-panel.js)
    const text = content.filter((c) => c.type === "text").map((c) => c.text).join(" ");
    const made = await app.worktreePanel.start(s.sessionId, text);
    if (!made) return false;
    s = app.open(made);
  }
  const payload = { sessionId: s.sessionId, mode, content };
  if (attach.length) payload.attach = attach; // files and folders chosen with `@`
  const r = await app.turns.prompt(payload);
  if (!r.ok) {
    app.status.toast(describeError(r.error));
    const kind = classifyProblem(r.error);
    if (kind) app.status.setProblem(kind, true, r.error.details?.model ? `${r.error.details.provider}/${r.error.details.model}` : "");
    return false;
  }
  app.manager.patchSummary(s.sessionId, { blank: false });
  return true;
}

/**
 * Stop the running turn. What waits (queued messages, steering) stays and the next item starts;
 * `clearQueue` (the queue's "Stop all", the toast's action, or Esc pressed again within 3 s)
 * drops it too.
 */
export async function stopTurn(app, { clearQueue = false, escape = false } = {}) {
  const s = app.manager.active;
  if (!s) return;
  const sid = s.sessionId;
  const child = subagentOf(app.manager, sid);
  if (child) return interruptSubagent(app.turns, child, (m) => app.status.toast(m));
  const again = escape && app.lastStop.sessionId === sid && Date.now() - app.lastStop.at < 3000;
  const clear = clearQueue || again;
  const waiting = app.manager.visibleQueue(sid).length;
  app.lastStop = { at: clear ? 0 : Date.now(), sessionId: sid };
  const payload = clear ? { sessionId: sid, clearQueue: true } : { sessionId: sid };
  const r = await app.turns.cancel(payload);
  if (!r.ok) {
    app.status.toast(describeError(r.error));
    return;
  }
  if (clear) app.status.toast(t("turn.stoppedCleared"), "info");
  else if (waiting) {
    app.status.toast(t("turn.stoppedNext", { count: waiting }), "info", { label: t("queue.stopAll"), testid: "toast-stop-all", run: () => stopTurn(app, { clearQueue: true }) });
  }
}

export async function retryTurn(app, turnEnd, btn) {
  const s = app.manager.active;
  const user = s?.fold.get(turnEnd.userItemId);
  if (!user) return;
  btn.disabled = true;
  try {
    // attached files and resources are named again (read as they are now), not resent as plain text
    const content = await contentToPromptInput(app.turns, s.sessionId, user.content.filter((b) => !b.attached));
    const attach = attachedOf(user.content).map(attachOf);
    if (!content.length && attach.length) content.push({ type: "text", text: "" });
    if (content.length) await sendPrompt(app, "queue", content, attach);
  } catch (e) {
    app.status.toast(t("turn.retryFailed", { reason: e.message }));
  } finally {
    btn.disabled = false;
  }
}
