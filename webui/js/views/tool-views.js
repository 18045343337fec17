// Tool cards drawn from the host's views (docs/architecture.md, "Tool views"): every client
// shows the same card for a call. A view decorates the card; the events stay the source of
// truth. A card kind, or data, this client does not know returns null: the caller draws its
// default card from the raw arguments and result.

import { h } from "./dom.js";
import { diffView } from "./diff.js";
import { t } from "../i18n/i18n.js";

const CALL_CARDS = new Set(["terminal", "generic", "diff"]);

/** The parts of a card built from `item.callView` / `item.resultView`, or null (fall back). */
export function viewParts(item) {
  const call = item.callView;
  if (!call || typeof call !== "object" || !CALL_CARDS.has(call.card) || typeof call.title !== "string") return null;
  const result = knownResult(item.resultView);
  try {
    if (call.card === "terminal") return [terminalFromView(call, result, item)];
    if (call.card === "diff") return diffFromView(call, item);
    return genericFromView(call, result, item);
  } catch {
    return null; // malformed card data: the default card
  }
}

function knownResult(view) {
  if (!view || typeof view !== "object") return null;
  return ["terminal", "generic"].includes(view.card) ? view : null;
}

function terminalFromView(call, result, item) {
  const pre = h("pre", { class: "terminal", testid: "tool-terminal", translate: "no" });
  pre.append(h("span", { class: "term-prompt" }, "$ "), h("span", { class: "term-cmd" }, call.title), "\n");
  let exit = null;
  if (result?.card === "terminal" && typeof result.output === "string") {
    const failed = (Number.isInteger(result.exitCode) && result.exitCode !== 0) || typeof result.signal === "string";
    pre.append(output(failed ? "term-out term-err" : "term-out", result.output, "tool.noOutput"));
    if (Number.isInteger(result.exitCode) && result.exitCode !== 0) exit = t("tool.exitCode", { code: String(result.exitCode) });
    if (typeof result.signal === "string") exit = t("tool.killed", { signal: result.signal });
  } else if (item.result) {
    pre.append(output(item.result.isError ? "term-out term-err" : "term-out", item.result.content, "tool.noOutput"));
  } else if (item.status === "running") {
    pre.append(h("span", { class: "term-cursor", "aria-label": t("sessionItem.running"), translate: "yes" }, "▍"));
  }
  return h(
    "div",
    { class: "terminal-wrap" },
    call.description ? h("p", { class: "tool-view-description", translate: "no" }, call.description) : null,
    pre,
    exit ? h("p", { class: "tool-exit-code", testid: "tool-exit-code" }, exit) : null,
  );
}

function diffFromView(call, item) {
  if (!Array.isArray(call.diffs)) return null;
  const parts = call.diffs.map((d) => diffView({ path: d.path, old: d.oldText ?? "", new: String(d.newText ?? "") }));
  if (item.result) parts.push(result(item.result.isError, item.result.content));
  return parts;
}

function genericFromView(call, result, item) {
  const parts = [h("p", { class: "tool-view-title", testid: "tool-view-title", translate: "no" }, call.title)];
  if (call.rawInput !== undefined) {
    const raw = typeof call.rawInput === "string" ? call.rawInput : JSON.stringify(call.rawInput, null, 2);
    parts.push(h("pre", { class: "tool-args", testid: "tool-args", translate: "no" }, raw));
  }
  const text = result?.card === "generic" && Array.isArray(result.content)
    ? result.content.filter((b) => b?.type === "text").map((b) => b.text).join("\n")
    : item.result?.content;
  if (item.result) parts.push(result(item.result.isError, text));
  return parts;
}

/** Output text (the tool\'s words: not translated), or the catalogue\'s "(no output)". */
function output(cls, text, empty) {
  return text ? h("span", { class: cls, testid: "tool-result" }, text) : h("span", { class: cls, testid: "tool-result", translate: "yes" }, t(empty));
}

function result(isError, text) {
  return text ? h("pre", { class: isError ? "tool-result is-error" : "tool-result", testid: "tool-result", translate: "no" }, text) : h("pre", { class: "tool-result", testid: "tool-result" }, t("tool.emptyResult"));
}
