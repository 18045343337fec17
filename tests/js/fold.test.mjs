import { test } from "node:test";
import assert from "node:assert/strict";
import { SessionFold } from "../../webui/js/state/fold.js";
import { ev, sampleLog, historyPage } from "./helpers.mjs";

const foldAll = (events) => new SessionFold().applyAll(events);

test("history and live fold to the same tree, at every split point", () => {
  const log = sampleLog();
  const whole = foldAll(log).snapshot();
  for (let i = 0; i <= log.length; i++) {
    const f = new SessionFold();
    f.applyAll(log.slice(0, i)); // "history"
    f.takeOps();
    for (const e of log.slice(i)) {
      f.apply(e); // "live", one by one
      f.takeOps();
    }
    assert.deepEqual(f.snapshot(), whole, `split at ${i}`);
  }
});

test("duplicates (seq already folded) are ignored", () => {
  const log = sampleLog();
  const f = new SessionFold();
  f.applyAll(log);
  f.applyAll(log.slice(5, 12));
  assert.deepEqual(f.snapshot(), foldAll(log).snapshot());
});

test("the tree has the expected rows", () => {
  const s = foldAll(sampleLog()).snapshot();
  assert.deepEqual(
    s.items.map((i) => i.kind),
    ["user", "assistant", "tool", "assistant", "turn-end", "user", "assistant", "raw", "tool", "turn-end"],
  );
  const [user, a0, tool, a1, end0] = s.items;
  assert.equal(user.content[0].text, "List files");
  assert.equal(a0.partial, false);
  assert.deepEqual(a0.blocks.map((b) => [b.type, b.text]), [["reasoning", "I should look."], ["text", "Sure, listing."]]);
  assert.equal(tool.callId, "call1");
  assert.equal(tool.name, "bash");
  assert.equal(tool.arguments, '{"command":"ls"}');
  assert.equal(tool.status, "done");
  assert.equal(tool.result.content, "a.txt\nb.txt");
  assert.equal(tool.approval.outcome, "allowed-once");
  assert.equal(a1.blocks[0].text, "Two files.");
  assert.deepEqual(end0.reason, { kind: "completed" });
  assert.deepEqual(end0.usage, { inputTokens: 30, outputTokens: 8 });
  assert.equal(end0.userItemId, user.id);
  assert.deepEqual(s.todos, [{ content: "b", status: "in_progress" }], "last todo/write wins");
  assert.deepEqual(s.model, { provider: "local", model: "smol" });
  assert.equal(s.activeTurn, null);
});

test("chunks accumulate by block index, interleaved", () => {
  const f = foldAll([
    ev(0, "assistant/chunk", { turn: 0, step: 0, chunk: { type: "text-delta", index: 1, text: "B1" } }),
    ev(1, "assistant/chunk", { turn: 0, step: 0, chunk: { type: "reasoning-delta", index: 0, text: "R1" } }),
    ev(2, "assistant/chunk", { turn: 0, step: 0, chunk: { type: "text-delta", index: 1, text: "B2" } }),
    ev(3, "assistant/chunk", { turn: 0, step: 0, chunk: { type: "reasoning-delta", index: 0, text: "R2" } }),
    ev(4, "assistant/chunk", { turn: 0, step: 0, chunk: { type: "tool-call-delta", index: 2, id: "c", name: "grep", argumentsDelta: '{"pat' } }),
    ev(5, "assistant/chunk", { turn: 0, step: 0, chunk: { type: "tool-call-delta", index: 2, id: "c", argumentsDelta: 'tern":"x"}' } }),
  ]);
  const [a, t] = f.snapshot().items;
  assert.equal(a.partial, true);
  assert.deepEqual(a.blocks.map((b) => [b.index, b.type, b.text, b.partial]), [[0, "reasoning", "R1R2", true], [1, "text", "B1B2", true]]);
  assert.equal(t.kind, "tool");
  assert.equal(t.status, "streaming");
  assert.equal(t.arguments, '{"pattern":"x"}');
});

test("block-end replaces one partial block; assistant/message replaces the whole partial", () => {
  const f = foldAll([
    ev(0, "assistant/chunk", { turn: 0, step: 0, chunk: { type: "text-delta", index: 0, text: "Hel" } }),
    ev(1, "assistant/chunk", { turn: 0, step: 0, chunk: { type: "block-end", index: 0, block: { type: "text", text: "Hello!" } } }),
    ev(2, "assistant/chunk", { turn: 0, step: 0, chunk: { type: "text-delta", index: 1, text: "partial tail" } }),
  ]);
  let a = f.snapshot().items[0];
  assert.deepEqual(a.blocks.map((b) => [b.text, b.partial]), [["Hello!", false], ["partial tail", true]]);
  const id = a.id;
  f.takeOps();
  f.apply(ev(3, "assistant/message", { turn: 0, step: 0, message: { id: "m", role: "assistant", content: [{ type: "text", text: "Final." }], source: { kind: "model" } } }));
  assert.deepEqual(f.takeOps(), [{ op: "update", id }], "the same row is updated in place");
  a = f.snapshot().items[0];
  assert.equal(a.partial, false);
  assert.deepEqual(a.blocks.map((b) => b.text), ["Final."]);
  assert.equal(f.snapshot().items.length, 1);
});

test("tool results pair with calls by callId, even out of order", () => {
  const f = foldAll([
    ev(0, "tool/call", { turn: 0, step: 0, callId: "x", name: "read_file", arguments: "{}" }),
    ev(1, "tool/call", { turn: 0, step: 0, callId: "y", name: "bash", arguments: "{}" }),
    ev(2, "tool/result", { turn: 0, step: 0, message: { id: "r", role: "tool", content: [{ type: "tool-result", toolCallId: "y", content: "Y!" }], source: { kind: "tool", callId: "y" } } }),
    ev(3, "tool/result", { turn: 0, step: 0, message: { id: "s", role: "tool", content: [{ type: "tool-result", toolCallId: "x", content: "boom", isError: true }], source: { kind: "tool", callId: "x" } }, error: { name: "read_file", code: "NOT_FOUND" } }),
  ]);
  const [x, y] = f.snapshot().items;
  assert.equal(x.result.content, "boom");
  assert.equal(x.status, "error");
  assert.equal(x.result.errorCode, "NOT_FOUND");
  assert.equal(y.result.content, "Y!");
  assert.equal(y.status, "done");
});

test("turn/end reasons: interrupted marks the turn, aborted cancels running tools, error keeps the error", () => {
  const s = foldAll([
    ev(0, "turn/start", { turn: 0, trigger: "user" }),
    ev(1, "user/message", { id: "u", role: "user", content: [{ type: "text", text: "go" }], source: { kind: "user" } }),
    ev(2, "assistant/chunk", { turn: 0, step: 0, chunk: { type: "text-delta", index: 0, text: "Wor" } }),
    ev(3, "turn/end", { turn: 0, reason: { kind: "interrupted" } }),
    ev(4, "turn/start", { turn: 1, trigger: "user" }),
    ev(5, "tool/call", { turn: 1, step: 0, callId: "k", name: "bash", arguments: "{}" }),
    ev(6, "turn/end", { turn: 1, reason: { kind: "aborted", by: "user" } }),
    ev(7, "turn/start", { turn: 2, trigger: "user" }),
    ev(8, "turn/end", { turn: 2, reason: { kind: "error", error: { code: "model-unavailable", message: "no" } } }),
  ]).snapshot();
  const a = s.items.find((i) => i.kind === "assistant");
  assert.equal(a.interrupted, true);
  assert.equal(a.partial, false);
  const ends = s.items.filter((i) => i.kind === "turn-end").map((i) => i.reason.kind);
  assert.deepEqual(ends, ["interrupted", "aborted", "error"]);
  assert.equal(s.items.find((i) => i.kind === "tool").status, "cancelled");
  assert.equal(s.items.at(-1).reason.error.code, "model-unavailable");
  assert.equal(s.activeTurn, null);
});

test("unknown event types become raw rows; known silent ones do not", () => {
  const s = foldAll([ev(0, "step/start", { turn: 0, step: 0 }), ev(1, "x/new", { a: 1 }), ev(2, "session/title", { title: "T", source: { kind: "auto" } })]).snapshot();
  assert.deepEqual(s.items, [{ id: "r:1", kind: "raw", seq: 1, type: "x/new", data: { a: 1 } }]);
  assert.equal(s.title, "T");
});

test("steering messages are user rows marked steering; approvals without a call are notices", () => {
  const s = foldAll([
    ev(0, "steering/message", { id: "s", role: "user", content: [{ type: "text", text: "faster" }], source: { kind: "user" } }),
    ev(1, "approval/asked", { id: "a", toolName: "bash", reason: "why" }),
    ev(2, "approval/decided", { id: "a", outcome: "rejected" }),
  ]).snapshot();
  assert.equal(s.items[0].steering, true);
  assert.equal(s.items[1].kind, "notice");
  assert.match(s.items[1].text, /rejected/);
});

test("a tail page folds to the end of the full fold (same last rows)", () => {
  const log = sampleLog();
  const page = historyPage(log, { maxMessages: 2 });
  assert.equal(page.hasMore, true);
  const tail = foldAll(page.events.map((entry) => entry.event)).snapshot();
  const full = foldAll(log).snapshot();
  assert.deepEqual(tail.items.slice(-3), full.items.slice(-3));
});

test("ops: add then update of the growing row only", () => {
  const f = new SessionFold();
  f.apply(ev(0, "user/message", { id: "u", role: "user", content: [], source: { kind: "user" } }));
  assert.deepEqual(f.takeOps(), [{ op: "add", id: "u:0" }]);
  f.apply(ev(1, "assistant/chunk", { turn: 0, step: 0, chunk: { type: "text-delta", index: 0, text: "a" } }));
  assert.deepEqual(f.takeOps(), [{ op: "add", id: "a:0:0" }]);
  f.apply(ev(2, "assistant/chunk", { turn: 0, step: 0, chunk: { type: "text-delta", index: 0, text: "b" } }));
  f.apply(ev(3, "assistant/chunk", { turn: 0, step: 0, chunk: { type: "text-delta", index: 0, text: "c" } }));
  assert.deepEqual(f.takeOps(), [{ op: "update", id: "a:0:0" }]);
});

const userEv = (seq, text, source = { kind: "user" }, extra = {}) => ev(seq, "user/message", { id: `u${seq}`, role: "user", content: [{ type: "text", text }], source }, extra);
const answerEv = (seq, turn, text, calls = []) =>
  ev(seq, "assistant/message", { turn, step: 0, message: { id: `a${seq}`, role: "assistant", content: [{ type: "text", text }, ...calls], source: { kind: "model" } } });

function compactedLog() {
  return [
    ev(0, "turn/start", { turn: 0, trigger: "user" }),
    userEv(1, "one"),
    answerEv(2, 0, "two", [{ type: "tool-call", id: "c1", name: "bash", arguments: "{}" }]),
    ev(3, "tool/call", { turn: 0, step: 0, callId: "c1", name: "bash", arguments: "{}" }),
    ev(4, "tool/result", { turn: 0, step: 0, message: { id: "r4", role: "tool", content: [{ type: "tool-result", toolCallId: "c1", content: "ok" }], source: { kind: "tool", callId: "c1" } } }),
    ev(5, "turn/end", { turn: 0, reason: { kind: "completed" } }),
    ev(6, "agent/inbox/spliced", { target: "next-turn", start: 0, inserted: [] }),
    ev(7, "turn/start", { turn: 1, trigger: "user" }),
    userEv(8, "three"),
    ev(9, "compact/start", { compactionId: "k", turn: 1 }),
    ev(10, "compact/summary", { compactionId: "k", summary: [{ type: "text", text: "- one, two" }], shadowedRange: { start: 1, end: 4 }, shadowedSeqs: [1, 2, 4], shadowedTokenCount: 12, provider: "p", model: "m" }),
    userEv(11, "Summary of the earlier conversation: - one, two", { kind: "plugin", plugin: "compact", compactionId: "k" }, { surfaceOp: { op: "replace", start: 0, end: 2 }, sourceEventSeqs: [1, 2, 4] }),
    ev(12, "compact/end", { compactionId: "k", turn: 1 }),
    answerEv(13, 1, "four"),
    ev(14, "turn/end", { turn: 1, reason: { kind: "completed" } }),
  ];
}

test("a compaction's summary row sits after the rows it covers, which stay, out of context", () => {
  const f = foldAll(compactedLog());
  assert.deepEqual(f.takeOps(), [{ op: "reset" }]);
  const items = f.snapshot().items;
  assert.deepEqual(items.map((i) => i.kind), ["user", "assistant", "tool", "turn-end", "summary", "user", "assistant", "turn-end"]);
  assert.deepEqual(items.map((i) => !!i.outOfContext), [true, true, true, true, false, false, false, false]);
  const summary = items[4];
  assert.equal(summary.seq, 11);
  assert.equal(summary.count, 3);
  assert.equal(summary.tokens, 12);
  assert.equal(summary.text, "- one, two");
  assert.deepEqual(summary.shadowed, items.slice(0, 4).map((i) => i.id));
  assert.equal(f.compacting, null);
  assert.ok(!items.some((i) => i.kind === "raw"), "splices and compact/* render no raw rows");
});

test("a compaction folds the same from history and live, and from a page without the shadowed rows", () => {
  const log = compactedLog();
  const whole = foldAll(log).snapshot();
  for (let i = 0; i <= log.length; i++) {
    const f = new SessionFold();
    f.applyAll(log.slice(0, i));
    for (const e of log.slice(i)) f.apply(e);
    assert.deepEqual(f.snapshot(), whole, `split at ${i}`);
  }
  const tail = foldAll(log.slice(7)).snapshot().items; // the shadowed rows are on an older page
  assert.deepEqual(tail.map((i) => i.kind), ["summary", "user", "assistant", "turn-end"]);
  assert.deepEqual(tail[0].shadowed, []);
});

test("the summarizing state, a failed compaction's notice, and injected context rows", () => {
  const f = new SessionFold();
  f.apply(ev(0, "compact/start", { compactionId: "k", turn: null }));
  assert.deepEqual(f.compacting, { turn: null, compactionId: "k" });
  f.apply(ev(1, "compact/end", { compactionId: "k", turn: null, error: "summary: boom" }));
  assert.equal(f.compacting, null);
  f.apply(userEv(2, "Background job bash-1 ended: completed", { kind: "plugin", plugin: "jobs", meta: { jobId: "bash-1" } }));
  const [notice, context] = f.snapshot().items;
  assert.equal(notice.kind, "notice");
  assert.equal(notice.tone, "warn");
  assert.match(notice.text, /could not be summarized \(summary: boom\)/);
  assert.deepEqual([context.kind, context.plugin, context.text], ["context", "jobs", "Background job bash-1 ended: completed"]);
});

test("crash repair's interrupted compaction and command, and a lost job, fold to notices, never a spinner", () => {
  const f = foldAll([
    ev(0, "command/run", { commandId: "c", name: "compact", source: { kind: "user" } }),
    ev(1, "compact/start", { compactionId: "k", sourceCommandId: "c", turn: null }),
  ]);
  assert.ok(f.compacting, "a compaction that is still open shows as running");
  f.applyAll([
    ev(2, "compact/end", { compactionId: "k", sourceCommandId: "c", turn: null, error: "interrupted: the app closed before the summary was saved", interrupted: true }),
    ev(3, "command/done", { commandId: "c", kind: "interrupted", text: "Interrupted: the app closed before the command finished." }),
    ev(4, "job/lost", { jobId: "bash-1", label: "sleep 9", startedAt: 5, detail: "stopped: the app closed" }),
  ]);
  assert.equal(f.compacting, null);
  const notices = f.items.filter((i) => i.kind === "notice").map((i) => i.text);
  assert.deepEqual(notices, [
    "Compaction interrupted: the app closed before the summary was saved; nothing was changed.",
    "Background job bash-1 (sleep 9): stopped: the app closed",
  ]);
  const command = f.items.find((i) => i.kind === "command");
  assert.equal(command.status, "interrupted");
  assert.ok(!f.items.some((i) => i.kind === "raw"));
});
