import { test } from "node:test";
import assert from "node:assert/strict";
import { WorkspaceState, groupSessions, dropTarget, blankMember, recentWorkspaces } from "../../webui/js/state/workspaces.js";
import { flattenTree } from "../../webui/js/state/session-list.js";

const S = (id, updatedAt, extra = {}) => ({ sessionId: id, updatedAt, running: false, blank: false, ...extra });
const W = (id, sessionIds, extra = {}) => ({ workspaceId: id, path: `/p/${id}`, title: id, sessionIds, createdAt: "t", updatedAt: "t", ...extra });
const ids = (roots) => flattenTree(roots).map((n) => `${n.summary.sessionId}${n.depth}`);

test("groups: workspaces in registry order with manual order inside, forks nested, then Ungrouped", () => {
  const summaries = [S("a", 1), S("b", 50), S("c", 20, { parentSessionId: "a" }), S("u1", 5), S("u2", 9), S("z", 99, { blank: true })];
  const { groups, archived } = groupSessions(summaries, [W("w2", ["c", "a"]), W("w1", ["b", "gone"])], []);
  assert.deepEqual(groups.map((g) => g.workspace?.workspaceId ?? "ungrouped"), ["w2", "w1", "ungrouped"]);
  assert.deepEqual(ids(groups[0].roots), ["a0", "c1"]); // manual order, the fork under its parent
  assert.deepEqual(ids(groups[1].roots), ["b0"]); // an id the list does not know is skipped
  assert.deepEqual(ids(groups[2].roots), ["u20", "u10"]); // newest first; the blank one hidden
  assert.deepEqual(archived, []);
});

test("groups: archived sessions leave their group and are listed in archive order", () => {
  const summaries = [S("a", 1), S("b", 2), S("u", 3)];
  const { groups, archived } = groupSessions(summaries, [W("w", ["a", "b"])], ["u", "a", "deleted"]);
  assert.deepEqual(groups.map((g) => ids(g.roots)), [["b0"]]); // no Ungrouped group when it is empty
  assert.deepEqual(archived.map((s) => s.sessionId), ["u", "a"]);
  const kept = groupSessions([S("z", 1, { blank: true })], [W("w", ["z"])], [], { keepId: "z" });
  assert.deepEqual(ids(kept.groups[0].roots), ["z0"]);
});

test("drop target: before the row under the pointer, after it in its lower half, nothing for no-ops", () => {
  const roots = ["a", "b", "c", "d"];
  assert.equal(dropTarget(roots, "d", "b", false), "b");
  assert.equal(dropTarget(roots, "a", "c", true), "d");
  assert.equal(dropTarget(roots, "a", "d", true), null); // to the end
  assert.equal(dropTarget(roots, "b", "c", false), undefined); // already there
  assert.equal(dropTarget(roots, "b", "a", true), undefined);
  assert.equal(dropTarget(roots, "b", "b", true), undefined);
  assert.equal(dropTarget(roots, "x", "b", true), undefined);
});

test("blank member and recent workspaces", () => {
  const summaries = [S("a", 10), S("b", 5, { blank: true }), S("c", 7, { blank: true, running: true }), S("d", 30)];
  assert.equal(blankMember(W("w", ["a", "c", "b"]), summaries, [])?.sessionId, "b");
  assert.equal(blankMember(W("w", ["a", "b"]), summaries, ["b"]), null);
  assert.equal(blankMember(null, summaries, []), null);
  const recent = recentWorkspaces([W("old", ["a"]), W("new", ["d"]), W("empty", [])], summaries, 2);
  assert.deepEqual(recent.map((w) => w.workspaceId), ["new", "old"]);
});

test("workspace state follows the host frames", async () => {
  const client = {
    async call(method) {
      assert.equal(method, "workspace.list");
      return { ok: true, value: { items: [W("w1", [])], archivedSessionIds: ["s1"] } };
    },
  };
  const state = new WorkspaceState({ client });
  let changes = 0;
  state.on("change", () => changes++);
  await state.load();
  assert.ok(state.handleHost({ type: "host/workspace-changed", workspace: W("w2", ["s2"]) }));
  assert.deepEqual(state.items.map((w) => w.workspaceId), ["w2", "w1"]); // a new one is prepended
  state.handleHost({ type: "host/workspace-changed", workspace: W("w1", ["s3"], { title: "renamed" }) });
  assert.deepEqual(state.items.map((w) => w.title), ["w2", "renamed"]); // in place
  assert.equal(state.of("s3")?.workspaceId, "w1");
  state.handleHost({ type: "host/workspace-removed", workspaceId: "w2" });
  assert.equal(state.of("s2"), null);
  state.handleHost({ type: "host/archived-sessions-changed", archivedSessionIds: ["s3"] });
  assert.ok(state.isArchived("s3") && !state.isArchived("s1"));
  assert.equal(state.handleHost({ type: "host/session-added", sessionId: "x" }), false);
  assert.equal(changes, 5);
});

test("tool-card paths: absolute ones as they are, relative ones under the session's folder", async () => {
  const { absolutePath } = await import("../../webui/js/views/tool-card.js");
  assert.equal(absolutePath("/etc/hosts", "/home/me/p"), "/etc/hosts");
  assert.equal(absolutePath("src/app.py", "/home/me/p/"), "/home/me/p/src/app.py");
  assert.equal(absolutePath("./README.md", "/home/me/p"), "/home/me/p/README.md");
  assert.equal(absolutePath("src\\app.py", "C:\\work\\p"), "C:\\work\\p\\src\\app.py");
  assert.equal(absolutePath("C:\\x.txt", null), "C:\\x.txt");
  assert.equal(absolutePath("rel.txt", null), null);
  assert.equal(absolutePath(undefined, "/p"), null);
});
