// Shared test helpers: event builders, a history pager that follows the paging rule
// of docs/architecture.md ("History paging"),
// fake timers, and a controllable async stream. Not a test file itself.

export function ev(seq, type, data = {}, extra = {}) {
  return { type, seq, time: 1_700_000_000_000 + seq, data, ...extra };
}

/**
 * A scripted conversation: turn 0 = user asks, assistant streams text + reasoning + a tool call,
 * tool result, second step answers; turn 1 = interrupted by a crash repair.
 */
export function sampleLog() {
  const L = [];
  const push = (type, data, extra) => L.push(ev(L.length, type, data, extra));
  push("turn/start", { turn: 0, trigger: "user" });
  push("user/message", { id: "m1", role: "user", content: [{ type: "text", text: "List files" }], source: { kind: "user", rpcId: "r1" } });
  push("step/start", { turn: 0, step: 0 });
  push("request/header", { provider: "local", model: "smol" });
  const c0 = L.length;
  push("assistant/chunk", { turn: 0, step: 0, chunk: { type: "block-start", index: 0, blockType: "reasoning" } });
  push("assistant/chunk", { turn: 0, step: 0, chunk: { type: "reasoning-delta", index: 0, text: "I should " } });
  push("assistant/chunk", { turn: 0, step: 0, chunk: { type: "reasoning-delta", index: 0, text: "look." } });
  push("assistant/chunk", { turn: 0, step: 0, chunk: { type: "block-end", index: 0, block: { type: "reasoning", text: "I should look." } } });
  push("assistant/chunk", { turn: 0, step: 0, chunk: { type: "text-delta", index: 1, text: "Sure, " } });
  push("assistant/chunk", { turn: 0, step: 0, chunk: { type: "text-delta", index: 1, text: "listing." } });
  push("assistant/chunk", { turn: 0, step: 0, chunk: { type: "tool-call-delta", index: 2, id: "call1", name: "bash", argumentsDelta: '{"comm' } });
  push("assistant/chunk", { turn: 0, step: 0, chunk: { type: "tool-call-delta", index: 2, id: "call1", argumentsDelta: 'and":"ls"}' } });
  push("assistant/chunk", { turn: 0, step: 0, chunk: { type: "usage", usage: { inputTokens: 10, outputTokens: 5 } } });
  const chunkSeqs = [];
  for (let s = c0; s < L.length; s++) chunkSeqs.push(s);
  push(
    "assistant/message",
    {
      turn: 0,
      step: 0,
      message: {
        id: "m2",
        role: "assistant",
        content: [
          { type: "reasoning", text: "I should look." },
          { type: "text", text: "Sure, listing." },
          { type: "tool-call", id: "call1", name: "bash", arguments: '{"command":"ls"}' },
        ],
        source: { kind: "model" },
      },
      usage: { inputTokens: 10, outputTokens: 5 },
    },
    { sourceEventSeqs: chunkSeqs },
  );
  push("tool/call", { turn: 0, step: 0, callId: "call1", name: "bash", arguments: '{"command":"ls"}' });
  push("approval/asked", { id: "ap1", toolName: "bash", callId: "call1", reason: "runs a command" });
  push("approval/decided", { id: "ap1", outcome: "allowed-once" });
  push("tool/result", {
    turn: 0,
    step: 0,
    message: { id: "m3", role: "tool", content: [{ type: "tool-result", toolCallId: "call1", content: "a.txt\nb.txt" }], source: { kind: "tool", callId: "call1" } },
  });
  push("step/end", { turn: 0, step: 0 });
  push("step/start", { turn: 0, step: 1 });
  push("assistant/chunk", { turn: 0, step: 1, chunk: { type: "text-delta", index: 0, text: "Two files." } });
  push("assistant/message", { turn: 0, step: 1, message: { id: "m4", role: "assistant", content: [{ type: "text", text: "Two files." }], source: { kind: "model" } }, usage: { inputTokens: 20, outputTokens: 3 } }, { sourceEventSeqs: [L.length - 1] });
  push("todo/write", { todos: [{ content: "a", status: "completed" }] });
  push("todo/write", { todos: [{ content: "b", status: "in_progress" }] });
  push("step/end", { turn: 0, step: 1 });
  push("turn/end", { turn: 0, reason: { kind: "completed" } });
  push("turn/start", { turn: 1, trigger: "queue" });
  push("user/message", { id: "m5", role: "user", content: [{ type: "text", text: "Again" }], source: { kind: "user", rpcId: "r2" } });
  push("assistant/chunk", { turn: 1, step: 0, chunk: { type: "text-delta", index: 0, text: "Work" } });
  push("future/thing", { anything: 1 });
  push("tool/result", {
    turn: 1,
    step: 0,
    message: { id: "m6", role: "tool", content: [{ type: "tool-result", toolCallId: "call9", content: "unknown", isError: true }], source: { kind: "tool", callId: "call9" } },
    error: { name: "bash", code: "TOOL_NOT_STARTED" },
  });
  push("turn/end", { turn: 1, reason: { kind: "interrupted" } });
  return L;
}

/** session.history over a full log, following the paging rule of docs/architecture.md. */
export function historyPage(log, { beforeSeq, maxMessages = 50 } = {}) {
  const end = beforeSeq === undefined ? log.length : Math.min(beforeSeq, log.length);
  let counted = 0;
  let cut = null;
  for (let i = end - 1; i >= 0; i--) {
    const e = log[i];
    const isMsg = (e.type === "user/message" || e.type === "assistant/message") && (!e.surfaceOp || e.surfaceOp === "append");
    if (!isMsg) continue;
    counted++;
    if (counted === maxMessages) {
      cut = Math.min(e.seq, ...(e.sourceEventSeqs ?? []));
      break;
    }
  }
  const entries = (events) => events.map((event) => ({ event }));
  if (cut === null) return { events: entries(log.slice(0, end)), hasMore: false };
  return { events: entries(log.slice(cut, end)), hasMore: cut > 0 };
}

/** Fake timers with a manual clock. */
export function fakeTimers(start = 0) {
  let now = start;
  let nextId = 1;
  const tasks = new Map(); // id → {at, fn, every}
  const t = {
    now: () => now,
    setTimeout(fn, ms) {
      const id = nextId++;
      tasks.set(id, { at: now + ms, fn, every: null });
      return id;
    },
    clearTimeout(id) {
      tasks.delete(id);
    },
    setInterval(fn, ms) {
      const id = nextId++;
      tasks.set(id, { at: now + ms, fn, every: ms });
      return id;
    },
    clearInterval(id) {
      tasks.delete(id);
    },
    pendingDelays() {
      return [...tasks.values()].filter((x) => x.every === null).map((x) => x.at - now);
    },
    /** Advance the clock, running due tasks in time order. */
    advance(ms) {
      const target = now + ms;
      for (;;) {
        let best = null;
        for (const [id, task] of tasks) if (task.at <= target && (!best || task.at < best[1].at)) best = [id, task];
        if (!best) break;
        const [id, task] = best;
        now = task.at;
        if (task.every) task.at += task.every;
        else tasks.delete(id);
        task.fn();
      }
      now = target;
    },
  };
  return t;
}

/** Let pending promise callbacks run. */
export async function flush(rounds = 10) {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}

/** A controllable async stream of messages: push(), end(), fail(). */
export function controlledStream() {
  const queue = [];
  let waiter = null;
  let closed = false;
  const wake = () => {
    if (waiter) {
      const w = waiter;
      waiter = null;
      w();
    }
  };
  return {
    closedByClient: false,
    push(msg) {
      queue.push({ msg });
      wake();
    },
    end() {
      queue.push({ end: true });
      wake();
    },
    fail(err) {
      queue.push({ err });
      wake();
    },
    close() {
      this.closedByClient = true;
      closed = true;
      wake();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (closed) return;
        if (queue.length === 0) await new Promise((r) => (waiter = r));
        if (closed) return;
        const item = queue.shift();
        if (!item) continue;
        if (item.end) return;
        if (item.err) throw item.err;
        yield item.msg;
      }
    },
  };
}
