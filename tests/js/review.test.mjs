import { test } from "node:test";
import assert from "node:assert/strict";
import { ReviewState, hunkRows } from "../../webui/js/state/review.js";
import { parseUnifiedDiff } from "../../webui/js/state/unified-diff.js";

const hunk = (header, body) => ({ id: header, header, diff: `${header}\n${body}`, added: 1, removed: 1 });

test("review rows: each hunk's lines with their numbers, the unchanged lines between runs collapsed", () => {
  const rows = hunkRows([hunk("@@ -3 +3 @@", "-line 3\n+line three"), hunk("@@ -5 +5 @@", "-line 5\n+line five"), hunk("@@ -9,2 +8,0 @@", "-line 9\n-line 10")], parseUnifiedDiff);
  assert.deepEqual(
    rows.map((r) => (r.kind === "line" ? `${r.row.kind}${r.row.oldNo ?? r.row.newNo}` : r.kind === "gap" ? `gap${r.count}` : "hunk")),
    ["hunk", "del3", "add3", "gap1", "hunk", "del5", "add5", "gap3", "hunk", "del9", "del10"],
  );
});

test("review state: the tray becomes review-comment parts; a discard keeps its undo id; stale refused", async () => {
  const calls = [];
  const client = {
    async call(method, payload) {
      calls.push([method, payload]);
      if (method === "git.status") return { ok: true, value: { scope: payload.scope, files: [] } };
      if (method === "git.discard") return { ok: true, value: { paths: ["a.txt"], undoId: "u1" } };
      if (method === "git.undoDiscard") return { ok: false, error: { code: "stale-diff", message: "m", details: {} } };
      return { ok: true, value: { paths: [] } };
    },
  };
  const s = new ReviewState({ client });
  s.set("s1");
  s.addComment({ path: "a.txt", startLine: 2, endLine: 4, side: "new", body: "no", excerpt: "+x" });
  assert.deepEqual(s.commentParts(), [{ type: "review-comment", path: "a.txt", startLine: 2, endLine: 4, side: "new", body: "no", excerpt: "+x" }]);
  const r = await s.discard({ hunkIds: ["h"] });
  assert.equal(r.ok, true);
  assert.equal(s.undo.undoId, "u1");
  assert.deepEqual(calls[0], ["git.discard", { sessionId: "s1", hunkIds: ["h"] }]);
  const back = await s.undoDiscard();
  assert.equal(back.ok, false);
  assert.equal(s.undo, null);
  assert.deepEqual(calls.at(-1), ["git.status", { sessionId: "s1", scope: "session" }]);
});
