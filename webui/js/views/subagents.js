// Subagents in the web UI (docs/architecture.md, "Subagents"). A subagent is a session its
// parent's `task` call started: read like any session, messaged only through its parent
// (`subagent.prompt`, `subagent.interrupt`), nested under the parent in the sidebar. Its
// approvals and questions are answered in the parent, labelled with it.

import { h, icon, tNodes } from "./dom.js";
import { displayTitle } from "../state/session-list.js";
import { describeError } from "../state/problems.js";
import { modelWords } from "../state/model-words.js";
import { t } from "../i18n/i18n.js";

/** The session's summary when it is a subagent, else null. */
export function subagentOf(manager, sessionId) {
  const s = sessionId ? manager.summaries.get(sessionId) : null;
  return s?.origin === "subagent" && s.parentSessionId ? s : null;
}

function childRef(summary) {
  return { parentSessionId: summary.parentSessionId, childSessionId: summary.sessionId, mode: "continuable" };
}

/** The composer of a subagent's conversation: its answer reaches the parent as context. */
export async function messageSubagent(turns, summary, content, toast, attach = []) {
  const payload = { ...childRef(summary), content };
  if (attach.length) payload.attach = attach; // files and folders chosen with `@`, as session.prompt
  const r = await turns.messageSubagent(payload);
  if (!r.ok) toast(describeError(r.error));
  return r.ok;
}

/** Stop in a subagent's conversation: its running turn ends (what waits stays). */
export async function interruptSubagent(turns, summary, toast) {
  const r = await turns.interruptSubagent(childRef(summary));
  if (!r.ok) toast(describeError(r.error));
}

function openButton(testid, label, sessionId, open) {
  const b = h("button", { type: "button", class: "btn btn-small", testid, dataset: { sessionId } }, icon("subagent"), h("span", { class: "btn-label" }, label));
  b.addEventListener("click", () => open(sessionId));
  return b;
}

/** On a `task` tool card: the child it started, with a way into its conversation. */
export function taskChildRow(item, ctx) {
  const child = item.subagent;
  if (!child || !ctx.openSession) return null;
  return h(
    "div",
    { class: "task-child", testid: "task-child" },
    h("span", { class: "task-child-label" }, tNodes("subagent.label", { label: quotedLabel(child.label) }), child.agentPreset ? h("span", { class: "muted", translate: "no" }, ` · ${child.agentPreset}`) : null),
    openButton("task-open-child", t("subagent.openConversation"), child.sessionId, ctx.openSession),
  );
}

/** The label in its place: after "Subagent:", quoted, marked as the model's words — never where
 * the app names who is asking (a label "Your own terminal (trusted)" stays a quotation). */
function quotedLabel(label) {
  return h("q", { class: "model-words", testid: "subagent-label", title: t("subagent.labelTitle"), translate: "no" }, modelWords(label));
}

/** On an approval or question card that a subagent asked: which one, and a way to look at it. */
export function askedByLine(frame, open) {
  const by = frame.subagent;
  if (!by) return null;
  return h(
    "p",
    { class: "card-asked-by", testid: "pending-subagent", dataset: { sessionId: by.sessionId } },
    icon("subagent"),
    h("span", { class: "asked-by-kind" }, t("subagent.kind")),
    quotedLabel(by.label),
    h("span", { class: "muted" }, t("subagent.modelWords")),
    open ? openButton("pending-subagent-open", t("tool.open"), by.sessionId, open) : null,
  );
}

/** Under a subagent's title: whose it is (a link to the parent) and how it is messaged. */
export function parentLine(manager, summary, open) {
  const parent = manager.summaries.get(summary.parentSessionId);
  const link = h("button", { type: "button", class: "link", testid: "subagent-parent-link", translate: parent?.title || parent?.provisionalTitle ? "no" : undefined }, displayTitle(parent ?? {}));
  link.addEventListener("click", () => open(summary.parentSessionId));
  return h("span", { class: "heading-subagent", testid: "subagent-of", title: t("subagent.ofTitle") }, icon("subagent"), tNodes("subagent.of", { parent: link }));
}
