// Tool cards drawn from the host's views (docs/architecture.md, "Tool views"): every client
// shows the same card for a call. A view decorates the card; the events stay the source of
// truth. A card kind, or data, this client does not know returns null: the caller draws its
// default card from the raw arguments and result.

import { h } from "./dom.js";
import { diffView } from "./diff.js";

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
  const pre = h("pre", { class: "terminal", testid: "tool-terminal" });
  pre.append(h("span", { class: "term-prompt" }, "$ "), h("span", { class: "term-cmd" }, call.title), "\n");
  let exit = null;
  if (result?.card === "terminal" && typeof result.output === "string") {
    const failed = (Number.isInteger(result.exitCode) && result.exitCode !== 0) || typeof result.signal === "string";
    pre.append(h("span", { class: failed ? "term-out term-err" : "term-out", testid: "tool-result" }, result.output || "(no output)"));
    if (Number.isInteger(result.exitCode) && result.exitCode !== 0) exit = `exit code ${result.exitCode}`;
    if (typeof result.signal === "string") exit = `killed by signal ${result.signal}`;
  } else if (item.result) {
    pre.append(h("span", { class: item.result.isError ? "term-out term-err" : "term-out", testid: "tool-result" }, item.result.content || "(no output)"));
  } else if (item.status === "running") {
    pre.append(h("span", { class: "term-cursor", "aria-label": "running" }, "▍"));
  }
  return h(
    "div",
    { class: "terminal-wrap" },
    call.description ? h("p", { class: "tool-view-description" }, call.description) : null,
    pre,
    exit ? h("p", { class: "tool-exit-code", testid: "tool-exit-code" }, exit) : null,
  );
}

function diffFromView(call, item) {
  if (!Array.isArray(call.diffs)) return null;
  const parts = call.diffs.map((d) => diffView({ path: d.path, old: d.oldText ?? "", new: String(d.newText ?? "") }));
  if (item.result) parts.push(h("pre", { class: item.result.isError ? "tool-result is-error" : "tool-result", testid: "tool-result" }, item.result.content || "(empty result)"));
  return parts;
}

function genericFromView(call, result, item) {
  const parts = [h("p", { class: "tool-view-title", testid: "tool-view-title" }, call.title)];
  if (call.rawInput !== undefined) {
    const raw = typeof call.rawInput === "string" ? call.rawInput : JSON.stringify(call.rawInput, null, 2);
    parts.push(h("pre", { class: "tool-args", testid: "tool-args" }, raw));
  }
  const text = result?.card === "generic" && Array.isArray(result.content)
    ? result.content.filter((b) => b?.type === "text").map((b) => b.text).join("\n")
    : item.result?.content;
  if (item.result) parts.push(h("pre", { class: item.result.isError ? "tool-result is-error" : "tool-result", testid: "tool-result" }, text || "(empty result)"));
  return parts;
}
