import { test } from "node:test";
import assert from "node:assert/strict";
import { parseUnifiedDiff, changeSummary } from "../../webui/js/state/unified-diff.js";
import { SessionFold } from "../../webui/js/state/fold.js";
import { ev } from "./helpers.mjs";

test("a unified diff becomes rows with old and new line numbers; the header is skipped", () => {
  const diff = ["--- a/x.py", "+++ b/x.py", "@@ -3,4 +3,4 @@", " keep", "-old", "+new", "+more", " end", "\\ No newline at end of file"].join("\n");
  assert.deepEqual(parseUnifiedDiff(diff), [
    { kind: "hunk", text: "@@ -3,4 +3,4 @@" },
    { kind: "ctx", text: "keep", oldNo: 3, newNo: 3 },
    { kind: "del", text: "old", oldNo: 4, newNo: null },
    { kind: "add", text: "new", oldNo: null, newNo: 4 },
    { kind: "add", text: "more", oldNo: null, newNo: 5 },
    { kind: "ctx", text: "end", oldNo: 5, newNo: 6 },
    { kind: "meta", text: "\\ No newline at end of file" },
  ]);
  assert.deepEqual(parseUnifiedDiff(null), []);
  assert.deepEqual(parseUnifiedDiff("@@ -0,0 +1 @@\n+only"), [
    { kind: "hunk", text: "@@ -0,0 +1 @@" },
    { kind: "add", text: "only", oldNo: null, newNo: 1 },
  ]);
});

test("a change's summary: counts with a minus sign, and whether it created the file", () => {
  assert.deepEqual(changeSummary({ path: "a", before: null, added: 2, removed: 0 }), { created: true, stat: "+2" });
  assert.deepEqual(changeSummary({ path: "a", before: { sha256: "x", size: 1 }, added: 1, removed: 3 }), { created: false, stat: "+1 −3" });
});

const change = (path) => ({ path, before: null, after: { sha256: "0".repeat(64), size: 1 }, diff: `@@ -0,0 +1 @@\n+x`, added: 1 });
const result = (seq, turn, callId, chg) =>
  ev(seq, "tool/result", { turn, step: 0, message: { id: `m${seq}`, role: "tool", content: [{ type: "tool-result", toolCallId: callId, content: "ok" }], source: { kind: "tool", callId } }, change: chg });

test("a turn-end lists the files its tools changed; a revert marks it and adds a row", () => {
  const log = [
    ev(0, "turn/start", { turn: 0, trigger: "user" }),
    ev(1, "tool/call", { turn: 0, step: 0, callId: "c1", name: "write_file", arguments: "{}" }),
    result(2, 0, "c1", change("a.txt")),
    ev(3, "tool/call", { turn: 0, step: 0, callId: "c2", name: "bash", arguments: "{}" }),
    result(4, 0, "c2", undefined),
    ev(5, "tool/call", { turn: 0, step: 0, callId: "c3", name: "edit_file", arguments: "{}" }),
    result(6, 0, "c3", change("a.txt")),
    ev(7, "turn/end", { turn: 0, reason: { kind: "completed" } }),
  ];
  const fold = new SessionFold().applyAll(log);
  const end = fold.items.find((i) => i.kind === "turn-end");
  assert.deepEqual([end.files, end.ranBash, end.reverted], [["a.txt"], true, false]);
  assert.equal(fold.items.find((i) => i.kind === "tool").result.change.path, "a.txt");
  fold.takeOps();
  fold.apply(ev(8, "files/restored", { cause: "revert", turn: 0, files: [{ path: "a.txt", action: "removed" }] }));
  assert.equal(end.reverted, true);
  assert.deepEqual(fold.takeOps().map((o) => o.op), ["add", "update"]);
  const row = fold.items.at(-1);
  assert.deepEqual([row.kind, row.cause, row.files.length], ["restored", "revert", 1]);
  // a revert that stopped early does not mark the turn (it can be tried again)
  const again = new SessionFold().applyAll([...log, ev(8, "files/restored", { cause: "revert", turn: 0, files: [], error: "disk full" })]);
  assert.equal(again.items.find((i) => i.kind === "turn-end").reverted, false);
  // a revert in the Changes view is a row of its own and never marks the turn reverted
  for (const cause of ["revert-file", "revert-hunk"]) {
    const viewed = new SessionFold().applyAll([...log, ev(8, "files/restored", { cause, turn: 0, files: [{ path: "a.txt", action: "restored" }] })]);
    assert.equal(viewed.items.find((i) => i.kind === "turn-end").reverted, false);
    assert.deepEqual([viewed.items.at(-1).kind, viewed.items.at(-1).cause], ["restored", cause]);
  }
});

test("a shell command's changes (found by the snapshots) count for its turn, each with its diff", () => {
  const shell = (seq, changes) => ev(seq, "tool/result", { turn: 0, step: 0, message: { id: `m${seq}`, role: "tool", content: [{ type: "tool-result", toolCallId: "b1", content: "ok" }], source: { kind: "tool", callId: "b1" } }, changes });
  const fold = new SessionFold().applyAll([
    ev(0, "turn/start", { turn: 0, trigger: "user" }),
    ev(1, "tool/call", { turn: 0, step: 0, callId: "w1", name: "write_file", arguments: "{}" }),
    result(2, 0, "w1", change("a.txt")),
    ev(3, "tool/call", { turn: 0, step: 0, callId: "b1", name: "bash", arguments: "{}" }),
    shell(4, [change("notes.txt"), { path: "old.txt", before: { sha256: "1".repeat(64), size: 3 }, diff: "@@ -1 +0,0 @@\n-old", removed: 1 }]),
    ev(5, "turn/end", { turn: 0, reason: { kind: "completed" } }),
  ]);
  const end = fold.items.find((i) => i.kind === "turn-end");
  assert.deepEqual(end.files, ["a.txt", "notes.txt", "old.txt"]);
  assert.deepEqual(end.changes.map((c) => [c.path, c.diff.split("\n")[1]]), [["a.txt", "+x"], ["notes.txt", "+x"], ["old.txt", "-old"]]);
});

test("a step whose snapshots failed: its turn-end says why, a replaced file is a change like the others", () => {
  const bashResult = (seq, callId, extra) =>
    ev(seq, "tool/result", { turn: 0, step: 0, message: { id: `m${seq}`, role: "tool", content: [{ type: "tool-result", toolCallId: callId, content: "ok" }], source: { kind: "tool", callId } }, ...extra });
  const why = "the disk holding /d/snapshots is full (0 bytes free)";
  const linked = { path: "notes.txt", before: { sha256: "1".repeat(64), size: 7 }, diff: "@@ -1 +0,0 @@\n-colour", removed: 1, afterKind: "symlink", afterLink: "/etc/x", diffNote: "replaced by a symlink to /etc/x" };
  const log = [
    ev(0, "turn/start", { turn: 0, trigger: "user" }),
    ev(1, "tool/call", { turn: 0, step: 0, callId: "b1", name: "bash", arguments: "{}" }),
    bashResult(2, "b1", { snapshotError: why }),
    ev(3, "tool/call", { turn: 0, step: 0, callId: "b2", name: "bash", arguments: "{}" }),
    bashResult(4, "b2", { snapshotError: why }),
    ev(5, "tool/call", { turn: 0, step: 0, callId: "b3", name: "bash", arguments: "{}" }),
    bashResult(6, "b3", { changes: [linked] }),
    ev(7, "turn/end", { turn: 0, reason: { kind: "completed" } }),
  ];
  const end = new SessionFold().applyAll(log).items.find((i) => i.kind === "turn-end");
  assert.deepEqual([end.files, end.unrecorded], [["notes.txt"], [why]]); // once, however many steps said it
  assert.equal(end.changes[0].afterKind, "symlink");
  const quiet = new SessionFold().applyAll([...log.slice(0, 3), ev(3, "turn/end", { turn: 0, reason: { kind: "completed" } })]);
  const bare = quiet.items.find((i) => i.kind === "turn-end");
  assert.deepEqual([bare.files, bare.unrecorded], [[], [why]]);
});
