import { test } from "node:test";
import assert from "node:assert/strict";
import { SessionFold } from "../../webui/js/state/fold.js";

let seq = 0;
const at = (type, data) => ({ type, seq: seq++, time: 1000 + seq, data });
const msg = (text, source) => ({ id: `m${seq}`, role: "user", content: [{ type: "text", text }], source });

test("commands fold to one row: running, then the result", () => {
  seq = 0;
  const f = new SessionFold();
  f.apply(at("command/run", { commandId: "cmd-a-1", name: "plan", args: " off", source: { kind: "user" } }));
  assert.deepEqual(f.items.map((i) => [i.kind, i.status, i.name, i.args]), [["command", "running", "plan", " off"]]);
  f.takeOps();
  f.apply(at("plan/mode", { active: false }));
  f.apply(at("command/done", { commandId: "cmd-a-1", kind: "success", text: "Plan mode off now." }));
  assert.deepEqual(f.takeOps(), [{ op: "update", id: "c:cmd-a-1" }]);
  assert.equal(f.items.length, 1);
  assert.equal(f.items[0].status, "success");
  assert.equal(f.items[0].text, "Plan mode off now.");
  f.apply(at("command/done", { commandId: "cmd-a-9", kind: "error", text: "Failed" })); // its run is on an older page
  assert.deepEqual(f.items.map((i) => [i.kind, i.status]), [["command", "success"], ["command", "error"]]);
});

test("skills show as a compact row; model-only context is hidden; the preset is tracked", () => {
  seq = 0;
  const f = new SessionFold();
  f.apply(at("agent-preset/selected", { agentPreset: "read-only" }));
  f.apply(at("turn/start", { turn: 0, trigger: "user" }));
  f.apply(at("user/message", msg("please /pdf this", { kind: "user", rpcId: "r" })));
  f.apply(at("user/message", msg("<system-reminder>skills</system-reminder>", { kind: "plugin", plugin: "skills", reminder: "catalogue" })));
  f.apply(at("user/message", msg("<system-reminder>plan</system-reminder>", { kind: "plugin", plugin: "plan-mode" })));
  f.apply(at("user/message", msg('<skill_content name="pdf">…</skill_content>', { kind: "skill-invocation", name: "pdf", form: "instructions" })));
  f.apply(at("user/message", msg("a notice", { kind: "plugin", meta: { what: "other" } })));
  assert.equal(f.preset, "read-only");
  // another plugin's notice is context the host gave the agent (a small row), not the person's words
  assert.deepEqual(f.items.map((i) => i.kind), ["user", "skill", "context"]);
  assert.equal(f.items[1].name, "pdf");
  assert.match(f.items[1].text, /skill_content/);
  assert.equal(f.turns.get(0).userItemId, f.items[0].id); // retry still finds the person's words
});
