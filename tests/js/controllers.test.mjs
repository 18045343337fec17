// The state controllers views call instead of the client (docs/architecture.md, "Clients"), and
// the rule that views never reach the client themselves.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TurnCalls } from "../../webui/js/state/turn-calls.js";
import { ConfigCalls } from "../../webui/js/state/config-calls.js";
import { HostCalls } from "../../webui/js/state/host-calls.js";
import { WorktreeCalls, GIT_WRITE_MS } from "../../webui/js/state/worktree-calls.js";
import { METHODS } from "../../webui/js/contract.gen.js";

const VIEWS = new URL("../../webui/js/views/", import.meta.url).pathname;

/** A client that records calls and answers from `answers(method, payload)`. */
function recorder(answers = () => ({ ok: true, value: {} }), extra = {}) {
  const calls = [];
  return { calls, kind: "web", ...extra, async call(method, payload) { calls.push([method, payload]); return answers(method, payload); } };
}

test("views never call the client: no client import, no .call/.respond/.stream on a client", () => {
  const offenders = [];
  for (const name of readdirSync(VIEWS).filter((n) => n.endsWith(".js"))) {
    const text = readFileSync(join(VIEWS, name), "utf8");
    if (/from "\.\.\/client\//.test(text)) offenders.push(`${name}: imports webui/js/client`);
    if (/client\s*\.\s*(call|respond|stream|fetchExport|exportUrl)\b/.test(text)) offenders.push(`${name}: calls the client`);
    if (/\.catch\(transportFailure\)/.test(text)) offenders.push(`${name}: catches a transport failure`);
  }
  assert.deepEqual(offenders, []);
});

test("views name a wire method only where a controller checks it (goal bar, settings dialog panels)", () => {
  const dialog = new Set(["settings", "credentials", "llm", "host", "files", "lsp"]);
  const allowed = {
    "goal-bar.js": (key) => key.startsWith("goal."), // TurnCalls.goal
    "settings-dialog.js": (key) => dialog.has(key.split(".")[0]), // ConfigCalls.dialog
    "model-library.js": (key) => dialog.has(key.split(".")[0]),
    "provider-cards.js": (key) => dialog.has(key.split(".")[0]),
    "undo-space.js": (key) => dialog.has(key.split(".")[0]),
    "settings-reach.js": (key) => dialog.has(key.split(".")[0]),
  };
  const found = [];
  for (const name of readdirSync(VIEWS).filter((n) => n.endsWith(".js"))) {
    const text = readFileSync(join(VIEWS, name), "utf8");
    for (const key of Object.keys(METHODS)) {
      if (text.includes(JSON.stringify(key)) && !(allowed[name]?.(key) ?? false)) found.push(`${name}: ${key}`);
    }
  }
  assert.deepEqual(found, []);
});

test("TurnCalls.prompt sends the window's time zone, and again without it when the host refuses the zone", async () => {
  const refused = { ok: false, error: { code: "invalid-time-zone", message: "no", details: {} } };
  const c = recorder((m, p) => (p.clientTimeZone ? refused : { ok: true, value: { accepted: true } }));
  const r = await new TurnCalls(c).prompt({ sessionId: "s", mode: "queue", content: [] });
  assert.deepEqual(r, { ok: true, value: { accepted: true } });
  assert.equal(c.calls.length, 2);
  assert.equal(typeof c.calls[0][1].clientTimeZone, "string");
  assert.deepEqual(c.calls[1], ["session.prompt", { sessionId: "s", mode: "queue", content: [] }]);
  const once = recorder();
  await new TurnCalls(once).prompt({ sessionId: "s", mode: "queue", content: [] });
  assert.equal(once.calls.length, 1, "a zone the host takes is sent once");
});

test("TurnCalls: payloads as the contract names them; goal() takes goal methods only", async () => {
  const c = recorder();
  const t = new TurnCalls(c);
  await t.stopJob("s", "j1");
  await t.search("x".repeat(600));
  await t.executeCommand("s", "/compact");
  await t.goal("goal.pause", { sessionId: "s", ref: { id: "g" } });
  assert.deepEqual(c.calls[0], ["job.stop", { sessionId: "s", jobId: "j1" }]);
  assert.deepEqual(c.calls[1], ["session.search", { query: "x".repeat(500) }]);
  assert.deepEqual(c.calls[2], ["command.execute", { sessionId: "s", line: "/compact" }]);
  assert.equal(c.calls[3][0], "goal.pause");
  assert.throws(() => t.goal("session.delete", { sessionId: "s" }), /not a goal method/);
});

test("ConfigCalls.dialog passes the settings dialog's methods and refuses any other domain", async () => {
  const c = recorder();
  const cfg = new ConfigCalls(c);
  await cfg.dialog("llm.localModels", {});
  await cfg.dialog("files.spaceUsed", {});
  assert.deepEqual(c.calls.map(([m]) => m), ["llm.localModels", "files.spaceUsed"]);
  assert.throws(() => cfg.dialog("session.delete", { sessionId: "s" }), /not a settings-dialog method/);
});

test("HostCalls.exportSession: the desktop's save dialog when the bridge has one, else the fetched ZIP", async () => {
  const downloads = [];
  const answers = [{ ok: true, status: 200, path: "/home/me/s1.zip", bytes: 9 }, { ok: false, cancelled: true }, { ok: false, status: 404 }];
  const bridge = recorder(undefined, { kind: "bridge", bridge: { download: async (url) => (downloads.push(url), answers.shift()) }, exportUrl: (id) => `/api/session.export?sessionId=${id}` });
  // the desktop answers where it wrote the file (the page says so), or that the dialog was cancelled
  assert.deepEqual(await new HostCalls(bridge).exportSession("s1"), { saved: true, path: "/home/me/s1.zip" });
  assert.deepEqual(await new HostCalls(bridge).exportSession("s1"), { saved: false, cancelled: true });
  await assert.rejects(new HostCalls(bridge).exportSession("s1"), /HTTP 404/);
  assert.deepEqual(downloads, ["/api/session.export?sessionId=s1", "/api/session.export?sessionId=s1", "/api/session.export?sessionId=s1"]);
  const zip = new Response("PK");
  const web = recorder(undefined, { fetchExport: async (id, all) => (id === "s1" && all ? zip : null) });
  assert.equal((await new HostCalls(web).exportSession("s1")).response, zip);
  assert.equal(new HostCalls(bridge).carrier, "bridge");
  assert.deepEqual(await new HostCalls(web).listDirectory(), { ok: true, value: {} });
  assert.deepEqual(web.calls.at(-1), ["host.listDirectory", {}]);
});

test("WorktreeCalls: the wire names the issue gives, and every call git writes for waits out the host's 300 s bound", async () => {
  const calls = [];
  const c = { async call(method, payload, opts) { calls.push([method, payload, opts?.timeoutMs]); return { ok: true, value: {} }; } };
  const w = new WorktreeCalls(c);
  await w.createSession("w1", { branch: "fix-a", base: "main" });
  await w.apply("s");
  await w.merge("s");
  await w.remove("s", true);
  await w.adopt("s");
  await w.list("w1");
  assert.deepEqual(calls.map(([m, p]) => [m, p]), [
    ["session.create", { workspaceId: "w1", worktree: { branch: "fix-a", base: "main" } }],
    ["worktree.apply", { sessionId: "s" }],
    ["worktree.merge", { sessionId: "s" }],
    ["worktree.remove", { sessionId: "s", keepBranch: true, force: false }],
    ["worktree.adopt", { sessionId: "s" }],
    ["worktree.list", { workspaceId: "w1" }],
  ]);
  assert.ok(GIT_WRITE_MS > 300_000);
  assert.deepEqual(calls.map(([, , timeout]) => timeout), [GIT_WRITE_MS, GIT_WRITE_MS, GIT_WRITE_MS, GIT_WRITE_MS, GIT_WRITE_MS, undefined]);
});
