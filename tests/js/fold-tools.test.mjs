import { test } from "node:test";
import assert from "node:assert/strict";
import { SessionFold } from "../../webui/js/state/fold.js";
import { ev } from "./helpers.mjs";

// Tool rows are keyed by (turn, step, position), never by the provider's call id.

const result = (turn, step, callId, text) => ({
  turn,
  step,
  message: { id: `r-${text}`, role: "tool", content: [{ type: "tool-result", toolCallId: callId, content: text }], source: { kind: "tool", callId } },
});
const call = (id, name = "bash") => ({ type: "tool-call", id, name, arguments: `{"command":"${name}"}` });
const answer = (turn, step, calls) => ({ turn, step, message: { id: `a${turn}${step}`, role: "assistant", content: calls, source: { kind: "model" } } });

/** Two steps whose provider answers `call_0` every time, and a step with one id for two calls. */
function reusedLog() {
  const L = [];
  const push = (type, data) => L.push(ev(L.length, type, data));
  push("turn/start", { turn: 0, trigger: "user" });
  push("user/message", { id: "u", role: "user", content: [{ type: "text", text: "go" }], source: { kind: "user" } });
  for (const step of [0, 1]) {
    push("assistant/chunk", { turn: 0, step, chunk: { type: "tool-call-delta", index: 0, id: "call_0", name: "bash", argumentsDelta: "{}" } });
    push("assistant/message", answer(0, step, [call("call_0")]));
    push("tool/call", { turn: 0, step, callId: "call_0", name: "bash", arguments: "{}" });
    push("approval/asked", { id: `ap${step}`, toolName: "bash", callId: "call_0", reason: "why" });
    push("approval/decided", { id: `ap${step}`, outcome: step === 0 ? "allowed-once" : "rejected" });
    push("tool/result", result(0, step, "call_0", `out-${step}`));
  }
  push("assistant/chunk", { turn: 0, step: 2, chunk: { type: "tool-call-delta", index: 1, id: "dup", name: "read_file", argumentsDelta: "{" } });
  push("assistant/chunk", { turn: 0, step: 2, chunk: { type: "tool-call-delta", index: 2, id: "dup", name: "grep", argumentsDelta: "{" } });
  push("assistant/message", answer(0, 2, [{ type: "text", text: "two" }, call("dup", "read_file"), call("dup", "grep")]));
  push("tool/call", { turn: 0, step: 2, callId: "dup", name: "read_file", arguments: "{}" });
  push("tool/result", result(0, 2, "dup", "first"));
  push("tool/call", { turn: 0, step: 2, callId: "dup", name: "grep", arguments: "{}" });
  push("tool/result", result(0, 2, "dup", "second"));
  push("turn/end", { turn: 0, reason: { kind: "completed" } });
  return L;
}

const tools = (f) => f.snapshot().items.filter((i) => i.kind === "tool");

test("a reused call id across steps gets a card per step, each with its own output and approval", () => {
  const rows = tools(new SessionFold().applyAll(reusedLog()));
  assert.deepEqual(
    rows.map((t) => [t.id, t.name, t.result?.content, t.status, t.approval?.outcome ?? null]),
    [
      ["t:0:0:0", "bash", "out-0", "done", "allowed-once"],
      ["t:0:1:0", "bash", "out-1", "rejected", "rejected"],
      ["t:0:2:0", "read_file", "first", "done", null],
      ["t:0:2:1", "grep", "second", "done", null],
    ],
  );
});

test("reused ids fold the same way live and from history, at every split point", () => {
  const log = reusedLog();
  const whole = new SessionFold().applyAll(log).snapshot();
  for (let i = 0; i <= log.length; i++) {
    const f = new SessionFold().applyAll(log.slice(0, i));
    for (const e of log.slice(i)) f.apply(e);
    assert.deepEqual(f.snapshot(), whole, `split at ${i}`);
  }
});

test("calls without ids stream into cards by position, and pair with the ids the host gave them", () => {
  const f = new SessionFold().applyAll([
    ev(0, "assistant/chunk", { turn: 3, step: 0, chunk: { type: "tool-call-delta", index: 0, name: "glob", argumentsDelta: '{"pattern":' } }),
    ev(1, "assistant/chunk", { turn: 3, step: 0, chunk: { type: "tool-call-delta", index: 0, argumentsDelta: '"*.py"}' } }),
    ev(2, "assistant/chunk", { turn: 3, step: 0, chunk: { type: "tool-call-delta", index: 1, name: "grep", argumentsDelta: "{}" } }),
    ev(3, "assistant/chunk", { turn: 3, step: 0, chunk: { type: "block-end", index: 0, block: { type: "tool-call", id: "tc-1", name: "glob", arguments: '{"pattern":"*.py"}' } } }),
    ev(4, "assistant/chunk", { turn: 3, step: 0, chunk: { type: "block-end", index: 1, block: { type: "tool-call", id: "tc-2", name: "grep", arguments: "{}" } } }),
    ev(5, "tool/call", { turn: 3, step: 0, callId: "tc-2", name: "grep", arguments: "{}" }),
    ev(6, "tool/result", result(3, 0, "tc-2", "g")),
  ]);
  const [glob, grep] = tools(f);
  assert.equal(glob.arguments, '{"pattern":"*.py"}');
  assert.deepEqual([glob.callId, glob.status, glob.result], ["tc-1", "pending", null]);
  assert.deepEqual([grep.callId, grep.status, grep.result.content], ["tc-2", "done", "g"]);
});

test("a page that starts after the answer still makes one card per call", () => {
  const f = new SessionFold().applyAll([
    ev(40, "tool/result", result(2, 1, "call_0", "early")),
    ev(41, "tool/call", { turn: 2, step: 2, callId: "call_0", name: "bash", arguments: "{}" }),
    ev(42, "tool/result", result(2, 2, "call_0", "late")),
  ]);
  assert.deepEqual(tools(f).map((t) => [t.id, t.result.content]), [["t:2:1:0", "early"], ["t:2:2:0", "late"]]);
});
