import { test } from "node:test";
import assert from "node:assert/strict";
import { SessionFold } from "../../webui/js/state/fold.js";
import { goalRoundLabel, goalRoundOf } from "../../webui/js/state/fold-goals.js";

let seq = 0;
const at = (type, data) => ({ type, seq: seq++, time: 1000 + seq, data });

test("a vetoed prompt folds to a blocked row with its reason, after the hook row that blocked it", () => {
  seq = 0;
  const f = new SessionFold();
  f.apply(at("turn/start", { turn: 0, trigger: "user" }));
  f.apply(at("hook/invoked", { turn: 0, point: "UserPromptSubmit", dialect: "claude", handlerId: "claude:UserPromptSubmit:1" }));
  f.apply(at("hook/result", { turn: 0, point: "UserPromptSubmit", handlerId: "claude:UserPromptSubmit:1", decision: "block", exitCode: 2, durationMs: 5 }));
  const content = [{ type: "text", text: "rm -rf the build dir" }];
  f.apply(at("prompt/blocked", { content, source: { kind: "user", rpcId: "r" }, reason: "Destructive requests need a ticket number." }));
  f.apply(at("turn/end", { turn: 0, reason: { kind: "blocked" } }));
  assert.deepEqual(f.items.map((i) => i.kind), ["hook", "blocked", "turn-end"]);
  assert.equal(f.items[0].decision, "block");
  assert.equal(f.items[1].reason, "Destructive requests need a ticket number.");
  assert.deepEqual(f.items[1].content, content);
  assert.equal(f.items[2].reason.kind, "blocked");
});

test("a goal round is a context row labelled with its round; goal/change renders nothing", () => {
  seq = 0;
  const f = new SessionFold();
  f.apply(at("goal/change", { kind: "goal/change", version: 1, operation: "create" }));
  f.apply(at("turn/start", { turn: 0, trigger: "user" }));
  const text = '<goal_round>\nObjective: "Port the parser"\nRound: 3/10\nKeep working.\n</goal_round>';
  f.apply(at("user/message", { id: "m1", role: "user", content: [{ type: "text", text }], source: { kind: "goal", goalId: "goal-1", revision: 2, round: 3 } }));
  assert.deepEqual(f.items.map((i) => i.kind), ["context"]);
  assert.deepEqual(f.items[0].goalRound, { round: 3, max: 10 });
  assert.equal(goalRoundLabel(f.items[0].goalRound), "Working toward the goal — round 3 of 10");
  assert.equal(goalRoundOf({ kind: "user" }, text), null);
});

test("tool views ride on the tool row; an unknown card falls back to the default card", async () => {
  const { viewParts } = await import("../../webui/js/views/tool-views.js");
  seq = 0;
  const f = new SessionFold();
  f.apply(at("turn/start", { turn: 0, trigger: "user" }));
  const callEv = at("tool/call", { turn: 0, step: 0, callId: "c1", name: "bash", arguments: '{"command":"ls"}' });
  f.apply({ ...callEv, view: { for: "call", view: { card: "unknown-x", title: "ls", extra: [1] } } });
  const tool = f.items.find((i) => i.kind === "tool");
  assert.deepEqual(tool.callView, { card: "unknown-x", title: "ls", extra: [1] });
  assert.equal(viewParts(tool), null); // the generic default, no error
  assert.equal(viewParts({ ...tool, callView: { card: "terminal" } }), null); // malformed: no title
  assert.equal(viewParts({ ...tool, callView: undefined }), null);
});
