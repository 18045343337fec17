// The Terminal and Files panes' pure state (docs/decisions.md, "Terminal and files"): output
// frames drawn once each in seq order around a (re)attach, acknowledgements, quoting a selection,
// paste pieces; the tree's filter, languages and which folders a change re-reads.

import { test } from "node:test";
import assert from "node:assert/strict";
import { TerminalsState, decodeBase64, pieces, quoteBlock } from "../../webui/js/state/terminals.js";
import { FileTreeState, filterEntries, languageOf, parentOf } from "../../webui/js/state/file-tree.js";

const b64 = (text) => Buffer.from(text).toString("base64");

function fakeClient(answers = {}) {
  const calls = [];
  return {
    calls,
    async call(method, payload) {
      calls.push([method, payload]);
      const answer = answers[method];
      return typeof answer === "function" ? answer(payload) : answer ?? { ok: true, value: {} };
    },
  };
}

function sink() {
  const s = { text: "", resets: 0, ends: [], done: [] };
  s.write = (bytes, done) => {
    s.text += Buffer.from(bytes).toString();
    s.done.push(done);
  };
  s.reset = () => {
    s.text = "";
    s.resets++;
  };
  s.ended = (code, gone) => s.ends.push([code, gone]);
  return s;
}

test("attach replays the scrollback, then frames after its seq, each once and in order", async () => {
  let release;
  const client = fakeClient({
    "terminal.attach": () => new Promise((r) => (release = () => r({ ok: true, value: { scrollback: b64("hello "), seq: 6, alive: true, cols: 80, rows: 24 } }))),
  });
  const state = new TerminalsState({ client });
  const out = sink();
  const attaching = state.attach("t-1", "s", out);
  // frames that arrive while the answer is on its way: one the scrollback holds, one after it
  state.handleFrame({ type: "terminal/output", terminalId: "t-1", sessionId: "s", seq: 6, data: b64("hello ") });
  state.handleFrame({ type: "terminal/output", terminalId: "t-1", sessionId: "s", seq: 12, data: b64("world!") });
  release();
  await attaching;
  assert.equal(out.text, "hello world!");
  state.handleFrame({ type: "terminal/output", terminalId: "t-1", sessionId: "s", seq: 12, data: b64("world!") }); // again
  state.handleFrame({ type: "terminal/output", terminalId: "t-1", sessionId: "s", seq: 13, data: b64("\n") });
  assert.equal(out.text, "hello world!\n");
  assert.equal(client.calls[0][1].viewer, state.viewer);
});

test("what is drawn is acknowledged; a gap attaches again; an ended shell says so", async () => {
  const client = fakeClient({ "terminal.attach": { ok: true, value: { scrollback: "", seq: 0, alive: true, cols: 80, rows: 24 } } });
  const state = new TerminalsState({ client });
  const out = sink();
  await state.attach("t-1", "s", out);
  const big = "x".repeat(200 * 1024);
  state.handleFrame({ type: "terminal/output", terminalId: "t-1", sessionId: "s", seq: big.length, data: b64(big) });
  out.done.at(-1)(); // xterm drew it
  const acks = client.calls.filter(([m]) => m === "terminal.ack");
  assert.deepEqual(acks.at(-1)[1], { terminalId: "t-1", viewer: state.viewer, seq: big.length });
  state.handleFrame({ type: "terminal/output", terminalId: "t-1", sessionId: "s", seq: big.length + 10, data: b64("a") }); // 9 bytes missing
  assert.equal(client.calls.filter(([m]) => m === "terminal.attach").length, 2);
  state.handleFrame({ type: "terminal/closed", terminalId: "t-1", sessionId: "s", exitCode: 2 });
  assert.deepEqual(out.ends.at(-1), [2, false]);
});

test("output of a terminal this page does not show asks for the session's list", () => {
  const state = new TerminalsState({ client: fakeClient() });
  const seen = [];
  state.on("unknown", (sid) => seen.push(sid));
  assert.equal(state.handleFrame({ type: "terminal/output", terminalId: "t-9", sessionId: "s-2", seq: 1, data: b64("a") }), true);
  assert.deepEqual(seen, ["s-2"]);
  assert.equal(state.handleFrame({ type: "session/queue" }), false);
});

test("a selection is quoted line by line; a paste goes in pieces; base64 decodes to bytes", () => {
  assert.equal(quoteBlock("\nFAILED test_x   \r\n\nassert 1 == 2\n\n"), "> FAILED test_x\n>\n> assert 1 == 2\n\n");
  assert.equal(quoteBlock("   \n"), "");
  assert.deepEqual(pieces("abcdefg", 3), ["abc", "def", "g"]);
  assert.deepEqual([...decodeBase64(b64("\u00e9"))], [0xc3, 0xa9]);
});

test("the tree: parents, languages, the name filter keeps the folders on the way", () => {
  assert.equal(parentOf("a/b/c.py"), "a/b");
  assert.equal(parentOf("c.py"), "");
  assert.equal(languageOf("src/App.TSX"), "typescript");
  assert.equal(languageOf("Makefile"), "bash");
  assert.equal(languageOf("notes.unknown"), null);
  const levels = new Map([
    ["", [{ path: "src" }, { path: "README.md" }]],
    ["src", [{ path: "src/main.py" }, { path: "src/util.py" }]],
  ]);
  assert.deepEqual([...filterEntries(levels, "MAIN")].sort(), ["src", "src/main.py"]);
  assert.equal(filterEntries(levels, "  "), null);
});

test("files/changed re-reads the open folders above a changed path, and the file shown", async () => {
  const client = fakeClient({ "files.tree": (p) => ({ ok: true, value: { entries: [], repo: false } }), "files.read": { ok: true, value: { text: "x", startLine: 1, lines: 1, totalLines: 1, truncated: false, binary: false } } });
  const state = new FileTreeState({ client });
  state.set("s");
  await state.load("");
  state.open.add("src");
  await state.load("src");
  await state.read("src/a.py");
  client.calls.length = 0;
  state.changed(["src/a.py"]);
  await new Promise((r) => setTimeout(r, 0));
  const asked = client.calls.map(([m, p]) => `${m}:${p.path}`);
  assert.deepEqual(asked.sort(), ["files.read:src/a.py", "files.tree:", "files.tree:src"]); // the folders above: their marks
  client.calls.length = 0;
  state.changed(["docs/x.md"]); // a folder that is not open: only the top (its entry's marks)
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(client.calls.map(([m, p]) => `${m}:${p.path}`), ["files.tree:"]);
  client.calls.length = 0;
  state.changed([""]);
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(client.calls.map(([m, p]) => `${m}:${p.path}`).sort(), ["files.read:src/a.py", "files.tree:", "files.tree:src"]);
});

test("typed text goes out in order, one call in flight, what came meanwhile gathered", async () => {
  const calls = [];
  const gates = [];
  const client = {
    call(method, payload) {
      calls.push(payload.data);
      return new Promise((resolve) => gates.push(() => resolve({ ok: true, value: { done: true } })));
    },
  };
  const state = new TerminalsState({ client });
  const first = state.input("t1", "a");
  state.input("t1", "f");
  const last = state.input("t1", "ter");
  assert.deepEqual(calls, ["a"]); // the rest waits for the first answer
  gates.shift()();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(calls, ["a", "fter"]);
  gates.shift()();
  assert.deepEqual(await last, { ok: true, value: { done: true } });
  assert.equal(first, last);
  assert.equal(state.outgoing.size, 0);
  assert.deepEqual(pieces("ab\u{1F600}", 3), ["ab", "\u{1F600}"]); // a pair stays whole
});
