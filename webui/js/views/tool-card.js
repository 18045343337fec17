// Tool cards: call arguments, live status and result. bash → a terminal block; edit_file /
// write_file → the host's unified diff against the file (views/diff.js), or before the host has
// one a diff of the arguments; anything else → pretty JSON arguments and the result text.

import { h, icon, setChildren, tNodes } from "./dom.js";
import { approvalReason } from "../state/host-words.js";
import { outcomeWords } from "../state/fold.js";
import { describeTool } from "../state/diff.js";
import { guardCard } from "./bidi.js";
import { diffView, fileChangeView } from "./diff.js";
import { taskChildRow } from "./subagents.js";
import { askUserBody, askUserSummary } from "./ask-user-card.js";
import { viewParts } from "./tool-views.js";
import { t } from "../i18n/i18n.js";

const STATUS_LABEL = new Set(["streaming", "pending", "running", "awaiting-approval", "done", "error", "rejected", "cancelled"]);

const COLLAPSED_BY_DEFAULT = new Set(["read_file", "list_dir", "glob", "grep", "todo_write"]);
const MAX_OUTPUT = 20_000;
const PATH_TOOLS = new Set(["read_file", "list_dir", "write_file", "edit_file"]);

export function renderToolCard(item, ctx = {}) {
  const details = h("details", { class: "tool-details" });
  details.open = !COLLAPSED_BY_DEFAULT.has(item.name);
  const summary = h("summary", { class: "tool-summary-row", testid: "tool-toggle" });
  const body = h("div", { class: "tool-body" });
  details.append(summary, body);
  const el = h("article", { class: "row tool-card", testid: "tool-card", dataset: { callId: item.callId } }, details);
  el._parts = { details, summary, body };
  updateToolCard(el, item, ctx);
  return el;
}

/** The absolute path a tool argument names (relative ones are relative to the session's cwd). */
export function absolutePath(path, cwd) {
  if (!path || typeof path !== "string") return null;
  if (path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\")) return path;
  if (!cwd) return null;
  const sep = cwd.includes("\\") && !cwd.includes("/") ? "\\" : "/";
  return `${cwd.replace(/[\\/]+$/, "")}${sep}${path.replace(/^\.[\\/]/, "")}`;
}

/** "Open" beside a file path, when the host can hand paths to the desktop. */
function openRow(item, d, ctx) {
  if (!ctx.canOpenPath?.() || !ctx.openPath) return null;
  const named = d.path ?? (PATH_TOOLS.has(item.name) ? d.summary : null);
  const target = absolutePath(named, ctx.cwdOf?.(ctx.sessionId));
  if (!target) return null;
  const btn = h("button", { type: "button", class: "btn btn-small", testid: "tool-open-path", title: t("tool.openTitle", { path: target }) }, icon("reveal"), h("span", { class: "btn-label" }, t("tool.open")));
  btn.addEventListener("click", () => ctx.openPath(target));
  return h("div", { class: "tool-open-row" }, h("code", { class: "tool-open-path", translate: "no" }, target), btn);
}

export function updateToolCard(el, item, ctx = {}) {
  const { summary, body } = el._parts;
  const d = describeTool(item.name, item.arguments);
  el.dataset.toolName = item.name;
  el.dataset.status = item.status;
  el.className = `row tool-card status-${item.status}`;
  const kindIcon = d.kind === "bash" ? "terminal" : d.kind === "diff" ? "file" : d.kind === "task" ? "subagent" : "tool";
  setChildren(
    summary,
    icon("chevron", "icon chevron"),
    icon(kindIcon),
    h("span", { class: "tool-name", translate: "no" }, item.name || "tool"),
    item.name === "ask_user" ? h("span", { class: "tool-arg-summary tool-question", translate: "no" }, oneLine(askUserSummary(item))) : null,
    d.summary ? h("code", { class: "tool-arg-summary", translate: "no" }, oneLine(d.summary)) : null,
    h("span", { class: `status-chip status-${item.status}`, testid: "tool-status" }, item.name === "ask_user" && item.status === "done" ? t("tool.answered") : STATUS_LABEL.has(item.status) ? t(`tool.status.${item.status}`) : item.status),
  );
  const parts = [openRow(item, d, ctx), taskChildRow(item, ctx)];
  // While the approval is open its card shows the reason; the tool card only says so in its
  // status chip, and keeps the reason with the outcome once decided.
  // A rejection is stated once: the status chip (the tool result and the reason would repeat it).
  const rejected = item.status === "rejected";
  // A command that ran and failed (say, blocked by the sandbox) before the person refused to run
  // it again outside keeps its output: only a refusal that stopped the call hides the result.
  const shown = rejected && item.result?.errorCode === "REJECTED" ? null : item.result;
  if (item.approval?.reason && item.approval.outcome && !rejected) {
    parts.push(h("p", { class: "tool-reason" }, t("tool.approvalOutcome", { reason: approvalReason(item.approval), outcome: outcomeWords(item.approval.outcome) })));
  }
  if (item.approval?.note) parts.push(h("p", { class: "tool-reject-note", testid: "tool-reject-note" }, tNodes("tool.rejectNote", { note: h("span", { translate: "no" }, item.approval.note) })));
  const change = item.result?.change ?? item.approval?.preview ?? null; // the host's diff, when known
  const viewed = item.name !== "ask_user" && !rejected && !change ? viewParts(item) : null; // tool-views.js
  el.dataset.card = viewed ? item.callView.card : "default";
  if (item.name === "ask_user") parts.push(askUserBody(item));
  else if (viewed) parts.push(...viewed);
  else if (d.kind === "bash") parts.push(terminal(d.summary, { ...item, result: shown }));
  else if (change) {
    parts.push(fileChangeView(change, { testid: "tool-diff" }));
    if (shown) parts.push(resultBlock(item));
  } else if (d.kind === "diff" && (d.old || d.new)) {
    parts.push(diffView(d));
    if (shown) parts.push(resultBlock(item));
  } else {
    parts.push(argsBlock(item.arguments, d.args));
    if (shown) parts.push(resultBlock(item));
  }
  setChildren(body, parts);
  el.classList.toggle("has-bidi", guardCard(el._parts.details, body)); // Trojan Source
}

function oneLine(s) {
  const line = String(s).split("\n")[0];
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
}

function clip(text) {
  if (text.length <= MAX_OUTPUT) return { text, clipped: 0 };
  return { text: text.slice(0, MAX_OUTPUT), clipped: text.length - MAX_OUTPUT };
}

function showMore(pre, full) {
  const btn = h("button", { type: "button", class: "btn btn-small", testid: "tool-show-all" }, t("tool.showAll"));
  btn.addEventListener("click", () => {
    pre.textContent = full;
    btn.remove();
  });
  return btn;
}

function terminal(command, item) {
  const pre = h("pre", { class: "terminal", testid: "tool-terminal", translate: "no" });
  pre.append(h("span", { class: "term-prompt" }, "$ "), h("span", { class: "term-cmd" }, command || "…"), "\n");
  let more = null;
  if (item.result) {
    const { text, clipped } = clip(item.result.content ?? "");
    pre.append(text ? h("span", { class: item.result.isError ? "term-out term-err" : "term-out", testid: "tool-result" }, text) : h("span", { class: "term-out", testid: "tool-result", translate: "yes" }, t("tool.noOutput")));
    if (clipped) more = showMore(pre, `$ ${command}\n${item.result.content}`);
  } else if (item.status === "running") {
    pre.append(h("span", { class: "term-cursor", "aria-label": t("sessionItem.running"), translate: "yes" }, "▍"));
  }
  return h("div", { class: "terminal-wrap" }, pre, more, errorCode(item));
}

function argsBlock(raw, parsed) {
  let text = raw ?? "";
  if (parsed && Object.keys(parsed).length) text = JSON.stringify(parsed, null, 2);
  if (!text) return null;
  return h("pre", { class: "tool-args", testid: "tool-args", translate: "no" }, text);
}

function resultBlock(item) {
  const { text, clipped } = clip(item.result.content ?? "");
  const pre = text ? h("pre", { class: item.result.isError ? "tool-result is-error" : "tool-result", testid: "tool-result", translate: "no" }, text) : h("pre", { class: "tool-result", testid: "tool-result" }, t("tool.emptyResult"));
  return h("div", { class: "tool-result-wrap" }, pre, clipped ? showMore(pre, item.result.content) : null, errorCode(item));
}

function errorCode(item) {
  if (!item.result?.errorCode) return null;
  const explain = {
    TOOL_OUTCOME_UNKNOWN: "tool.outcomeUnknown",
    TOOL_NOT_STARTED: "tool.notStarted",
  }[item.result.errorCode];
  return h("p", { class: "tool-error-code" }, explain ? t(explain) : t("tool.errorCode", { code: item.result.errorCode }));
}
