// The `@` finder's pure parts (webui/js/state/finder.js): the token at the caret, what choosing
// leaves in the text, chips and their notes, highlighting.

import test from "node:test";
import assert from "node:assert/strict";
import { addChip, atToken, attachOf, attachedOf, chipFor, chipNote, chipOfAttached, highlightRuns, ownText, problemsNote, removeToken } from "../../webui/js/state/finder.js";

test("@ opens at the start or after a space, never inside a word", () => {
  assert.deepEqual(atToken("@src", 4), { start: 0, end: 4, query: "src" });
  assert.deepEqual(atToken("look at @comp please", 13), { start: 8, end: 13, query: "comp" });
  assert.deepEqual(atToken("look at @comp please", 10), { start: 8, end: 13, query: "comp" }); // caret inside
  assert.deepEqual(atToken("x @", 3), { start: 2, end: 3, query: "" });
  assert.equal(atToken("mail me@example.com", 19), null);
  assert.equal(atToken("@a b", 4), null); // the caret is past the token
  assert.equal(atToken("plain", 5), null);
});

test("choosing removes the token and keeps one space between words", () => {
  assert.deepEqual(removeToken("explain @cmp", atToken("explain @cmp", 12)), { text: "explain ", caret: 8 });
  const text = "see @abc and this";
  assert.deepEqual(removeToken(text, atToken(text, 8)), { text: "see and this", caret: 4 });
  assert.deepEqual(removeToken("@abc", atToken("@abc", 4)), { text: "", caret: 0 });
});

test("chips: one per path, a file over the cap is marked cut", () => {
  const big = chipFor({ path: "a.log", kind: "file", size: 100_000 }, 65_536);
  const small = chipFor({ path: "b.txt", kind: "file", size: 10 }, 65_536);
  const folder = chipFor({ path: "src", kind: "folder", size: null }, 65_536);
  assert.equal(big.cut, true);
  assert.equal(small.cut, false);
  assert.equal(folder.cut, false);
  assert.equal(addChip([small], { ...small }).length, 1);
  assert.equal(addChip([small], big).length, 2);
  assert.equal(chipNote(big, 65_536), "cut to the first 64 KB of 98 KB");
  assert.equal(chipNote(small, 65_536), "");
  assert.equal(chipNote({ kind: "file", path: "x.bin", size: 5, binary: true }, 65_536), "binary: only its name and size are sent");
});

test("a logged message: its own words and its attached parts apart", () => {
  const content = [
    { type: "text", text: "hi" },
    { type: "text", text: "Contents of `a`:", attached: { kind: "file", path: "a", size: 1, truncated: false } },
  ];
  assert.deepEqual(ownText(content), ["hi"]);
  assert.deepEqual(attachedOf(content), [{ kind: "file", path: "a", size: 1, truncated: false }]);
});

test("highlighting marks the matched letters in runs", () => {
  assert.deepEqual(highlightRuns("src/app.js", [4, 5, 6]), [
    { text: "src/", hit: false },
    { text: "app", hit: true },
    { text: ".js", hit: false },
  ]);
  assert.deepEqual(highlightRuns("ab", []), [{ text: "ab", hit: false }]);
});

test("resources: chips keyed by server and uri, attach names them, a logged part becomes a chip again", () => {
  const match = { path: "docs:guide", kind: "resource", size: 100_000, hits: [], resource: { server: "docs", uri: "demo://guide", name: "guide", mimeType: "text/markdown" } };
  const chip = chipFor(match, 65_536);
  assert.deepEqual(chip, { path: "docs:guide", kind: "resource", size: 100_000, cut: true, server: "docs", uri: "demo://guide", mimeType: "text/markdown" });
  assert.deepEqual(attachOf(chip), { server: "docs", uri: "demo://guide" });
  assert.deepEqual(attachOf(chipFor({ path: "a.txt", kind: "file", size: 1 }, 10)), { path: "a.txt" });
  const same = chipFor({ ...match, path: "docs:guide (again)" }, 65_536);
  assert.equal(addChip([chip], same).length, 1); // the same uri of the same server once
  const other = chipFor({ ...match, resource: { ...match.resource, server: "other" } }, 65_536);
  assert.equal(addChip([chip], other).length, 2);
  const file = chipFor({ path: "docs:guide", kind: "file", size: 3 }, 65_536);
  assert.equal(addChip([chip], file).length, 2); // a file named like a label is another chip
  const logged = { kind: "resource", path: "docs:guide", size: 5, truncated: false, binary: true, server: "docs", uri: "demo://pic", mimeType: "image/png" };
  assert.deepEqual(chipOfAttached(logged), { path: "docs:guide", kind: "resource", size: 5, cut: false, server: "docs", uri: "demo://pic", mimeType: "image/png" });
  assert.deepEqual(attachOf(logged), { server: "docs", uri: "demo://pic" });
  assert.deepEqual(chipOfAttached({ kind: "file", path: "a", size: 1, truncated: true }), { path: "a", kind: "file", size: 1, cut: true });
  assert.equal(chipNote({ ...logged }, 65_536), "binary: only its name and size are sent");
});

test("the menu's note on servers whose resources could not be listed", () => {
  assert.equal(problemsNote([]), "");
  assert.equal(problemsNote(undefined), "");
  assert.equal(problemsNote(["stuck: listing its resources took longer than 5 s"]), "stuck: resources unavailable");
  assert.equal(problemsNote(["a: x", "b: y"]), "2 MCP servers: resources unavailable");
});
