// The arguments of a tool call waiting for approval, readable: write_file → the path and the
// content as real lines; edit_file → the path and a diff of old → new; bash → the command in a
// terminal block; any other tool → pretty JSON with string values verbatim. Arguments a
// tool-specific view does not show follow as pretty JSON. Long blocks start collapsed.

import { h, icon } from "./dom.js";
import { ARG_NAMES, describeTool, parseArgs } from "../state/diff.js";
import { lineCount, otherArgs, prettyText, prettyTokens } from "../state/args-format.js";
import { diffView, fileChangeView } from "./diff.js";
import { t } from "../i18n/i18n.js";

const COLLAPSE_LINES = 14;
const COLLAPSE_CHARS = 1500;

/** @returns {HTMLElement|null} the `approval-args` block; `preview` is the host's FileChange of a
 * file tool: over an existing file its unified diff against the file as it is now is shown
 * instead of the raw content (a new file shows its content as lines). */
export function renderApprovalArgs(toolName, raw, preview = null) {
  if (raw === undefined || raw === null || raw === "") return null;
  const args = typeof raw === "object" || typeof raw === "string" ? parseArgs(raw) : null;
  const parts = args === null ? [plain(typeof raw === "string" ? raw : JSON.stringify(raw))] : preview?.before ? previewParts(args, preview) : toolParts(toolName, args);
  if (parts.length === 0) return null;
  return h("div", { class: "card-args", testid: "approval-args" }, parts);
}

function toolParts(toolName, args) {
  const d = describeTool(toolName, args);
  if (toolName === "write_file" && d.path !== undefined && hasAny(args, ARG_NAMES.content)) {
    return [fileView(d.path, d.new), ...rest(args, ARG_NAMES.path, ARG_NAMES.content)];
  }
  if (toolName === "edit_file" && d.path !== undefined && hasAny(args, ARG_NAMES.old, ARG_NAMES.new)) {
    const diff = diffView(d, "approval-diff");
    diff.classList.add("args-file");
    diff.querySelector(".diff-path")?.prepend(icon("file"));
    return [collapsible(diff, diff.querySelector(".diff"), diff.querySelectorAll(".diff-line").length, 0), ...rest(args, ARG_NAMES.path, ARG_NAMES.old, ARG_NAMES.new)];
  }
  if (toolName === "bash" && hasAny(args, ARG_NAMES.command)) {
    return [commandView(d.summary), ...rest(args, ARG_NAMES.command)];
  }
  return Object.keys(args).length ? [jsonView(args)] : [];
}

function previewParts(args, preview) {
  return [fileChangeView(preview, { testid: "approval-diff", foldRows: 14 }), ...rest(args, ARG_NAMES.path, ARG_NAMES.content, ARG_NAMES.old, ARG_NAMES.new)];
}

function hasAny(args, ...lists) {
  return lists.flat().some((k) => typeof args[k] === "string");
}

/** The arguments not shown by the tool-specific view, as pretty JSON (nothing when none). */
function rest(args, ...lists) {
  const others = otherArgs(args, lists.flat());
  return Object.keys(others).length ? [jsonView(others, t("args.other"))] : [];
}

function fileView(path, content) {
  const pre = h("pre", { class: "args-content", testid: "approval-content", translate: content === "" ? undefined : "no" }, content === "" ? h("span", { class: "args-empty" }, t("args.emptyFile")) : content);
  const wrap = h(
    "div",
    { class: "diff-wrap args-file" },
    h("div", { class: "diff-path" }, icon("file"), h("span", { testid: "approval-path", translate: "no" }, path)),
    pre,
  );
  return collapsible(wrap, pre, lineCount(content), content.length);
}

function commandView(command) {
  const pre = h("pre", { class: "terminal", testid: "approval-command", translate: "no" }, h("span", { class: "term-prompt" }, "$ "), h("span", { class: "term-cmd" }, command));
  return collapsible(pre, pre, lineCount(command), command.length);
}

const TOKEN_CLASS = { key: "hljs-attr", string: "hljs-string", literal: "hljs-number", block: "args-block" };

function jsonView(value, label = null) {
  const pre = h(
    "pre",
    { class: "args-json", testid: "approval-json", translate: "no" },
    prettyTokens(value).map((t) => (t.kind === "punct" ? t.text : h("span", { class: TOKEN_CLASS[t.kind] }, t.text))),
  );
  const text = prettyText(value);
  const block = collapsible(pre, pre, lineCount(text), text.length);
  return label ? h("div", { class: "args-other" }, h("p", { class: "args-label" }, label), block) : block;
}

function plain(text) {
  const pre = h("pre", { class: "args-json", testid: "approval-json", translate: "no" }, text);
  return collapsible(pre, pre, lineCount(text), text.length);
}

/**
 * Long blocks start collapsed (the `scroller` gets `is-collapsed`, a fixed height with a fade)
 * with a "Show all" toggle under them. Returns the element to insert.
 */
function collapsible(el, scroller, lines, chars) {
  if (lines <= COLLAPSE_LINES && chars <= COLLAPSE_CHARS) return el;
  scroller.classList.add("is-collapsed");
  const more = t("diff.showAll", { count: lines });
  const btn = h("button", { type: "button", class: "btn btn-small args-toggle", testid: "approval-args-toggle", "aria-expanded": "false" }, more);
  btn.addEventListener("click", () => {
    const collapsed = scroller.classList.toggle("is-collapsed");
    btn.setAttribute("aria-expanded", String(!collapsed));
    btn.textContent = collapsed ? t("diff.showAll", { count: lines }) : t("diff.showLess");
  });
  return h("div", { class: "args-collapsible" }, el, btn);
}
