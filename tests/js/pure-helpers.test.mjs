import { test } from "node:test";
import assert from "node:assert/strict";
import { buildTree, flattenTree, reusableBlank, shortenPath, highlightRuns } from "../../webui/js/state/session-list.js";
import { lineDiff, withContext, describeTool, parseArgs } from "../../webui/js/state/diff.js";

const S = (id, updatedAt, extra = {}) => ({ sessionId: id, updatedAt, running: false, blank: false, ...extra });

test("session tree: newest first, children nested, blank hidden (unless kept), orphans at top", () => {
  const list = [
    S("a", 10),
    S("b", 30),
    S("c", 20, { parentSessionId: "a" }),
    S("d", 25, { parentSessionId: "a" }),
    S("e", 99, { blank: true }),
    S("f", 5, { parentSessionId: "gone" }),
    S("g", 1, { parentSessionId: "d" }),
  ];
  const flat = flattenTree(buildTree(list)).map((n) => `${n.summary.sessionId}${n.depth}`);
  assert.deepEqual(flat, ["b0", "a0", "d1", "g2", "c1", "f0"]);
  assert.ok(flattenTree(buildTree(list, { keepId: "e" })).some((n) => n.summary.sessionId === "e"));
});

test("session tree survives a parent cycle", () => {
  const flat = flattenTree(buildTree([S("x", 1, { parentSessionId: "y" }), S("y", 2, { parentSessionId: "x" })]));
  assert.equal(flat.length, 2);
});

test("reusable blank: newest blank, not running, not a child", () => {
  assert.equal(reusableBlank([S("a", 1, { blank: true }), S("b", 3, { blank: true }), S("c", 9, { blank: true, running: true })]).sessionId, "b");
  assert.equal(reusableBlank([S("a", 1)]), null);
});

test("path shortening and snippet highlighting", () => {
  assert.equal(shortenPath("/home/u/p", "/home/u"), "~/p");
  assert.equal(shortenPath("/home/user2/p", "/home/u"), "/home/user2/p");
  assert.deepEqual(highlightRuns("Fix the Parser now", "parser fix"), [
    { text: "Fix", match: true },
    { text: " the ", match: false },
    { text: "Parser", match: true },
    { text: " now", match: false },
  ]);
});

test("line diff: changes, context collapsing, write_file as all additions", () => {
  const d = lineDiff("a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nD\ne\nf\ng\nh\n");
  assert.deepEqual(d.filter((x) => x.op !== " "), [{ op: "-", text: "d" }, { op: "+", text: "D" }]);
  const ctx = withContext(d, 1);
  assert.deepEqual(ctx.map((x) => x.op), ["…", " ", "-", "+", " ", "…"]);
  assert.deepEqual(lineDiff("", "x\ny"), [{ op: "+", text: "x" }, { op: "+", text: "y" }]);
});

test("tool descriptions read several argument spellings; bad JSON is null", () => {
  assert.equal(describeTool("bash", '{"command":"ls -la"}').summary, "ls -la");
  const e = describeTool("edit_file", JSON.stringify({ path: "x.py", old_string: "a", new_string: "b" }));
  assert.deepEqual([e.kind, e.path, e.old, e.new], ["diff", "x.py", "a", "b"]);
  assert.equal(describeTool("edit_file", JSON.stringify({ filePath: "y", oldString: "1", newString: "2" })).new, "2");
  assert.equal(parseArgs('{"a":'), null);
  assert.deepEqual(parseArgs(""), {});
});

test("provisional title: whitespace collapsed, cut near 60 chars at a word boundary, host title wins", async () => {
  const { provisionalTitle, displayTitle, contentText } = await import("../../webui/js/state/session-list.js");
  assert.equal(provisionalTitle("  Fix   the\n\tparser  "), "Fix the parser");
  assert.equal(provisionalTitle(" \n\u0007 "), null);
  const long = "Please move every build option from setup.cfg into pyproject.toml and then run the tests";
  const t = provisionalTitle(long);
  assert.equal(t, "Please move every build option from setup.cfg into…");
  assert.ok(Array.from(t).length <= 60);
  assert.equal(Array.from(provisionalTitle("x".repeat(200))).length, 60);
  assert.equal(contentText([{ type: "text", text: "a" }, { type: "image", data: "…" }, { type: "text", text: "b" }]), "a b");
  assert.equal(displayTitle({ provisionalTitle: "From the message" }), "From the message");
  assert.equal(displayTitle({ title: "Host title", provisionalTitle: "From the message" }), "Host title");
  assert.equal(displayTitle({}), "Untitled session");
  // a fork's auto title ("… (fork)", the host's English) in the page's language; not a root's
  const fork = { title: "Fix the parser (fork)", parentSessionId: "s-1" };
  assert.equal(displayTitle(fork), "Fix the parser (fork)");
  assert.equal(displayTitle({ title: "Notes (fork)" }), "Notes (fork)");
  const { setLanguage } = await import("../../webui/js/i18n/i18n.js");
  setLanguage("zh-CN", { remember: false });
  try {
    assert.equal(displayTitle(fork), "Fix the parser（分叉）");
    assert.equal(displayTitle({ title: "Notes (fork)" }), "Notes (fork)");
  } finally {
    setLanguage("en", { remember: false });
  }
});

test("approval arguments: pretty JSON with strings verbatim, multi-line strings as indented lines", async () => {
  const { prettyText, prettyTokens, otherArgs, lineCount } = await import("../../webui/js/state/args-format.js");
  const args = { path: "a.txt", content: '[project]\nname = "demo"\n', n: 3, flags: [true, null], nested: { q: 'say "hi"' }, empty: {} };
  assert.equal(
    prettyText(args),
    [
      "{",
      '  "path": "a.txt",',
      '  "content":',
      "    [project]",
      '    name = "demo"',
      '  "n": 3,',
      '  "flags": [',
      "    true,",
      "    null",
      "  ],",
      '  "nested": {',
      '    "q": "say "hi""',
      "  },",
      '  "empty": {}',
      "}",
    ].join("\n"),
  );
  assert.ok(!prettyText(args).includes("\\"), "nothing escaped");
  // without line breaks or quotes inside strings it is exactly JSON.stringify(v, null, 2)
  const simple = { a: 1, b: ["x", { c: false }], d: "plain" };
  assert.equal(prettyText(simple), JSON.stringify(simple, null, 2));
  assert.deepEqual(
    prettyTokens({ k: "v" }).map((t) => t.kind),
    ["punct", "punct", "key", "punct", "string", "punct", "punct"],
  );
  assert.deepEqual(otherArgs({ path: "p", content: "c", mode: "x" }, ["path", "content"]), { mode: "x" });
  assert.deepEqual([lineCount(""), lineCount("a"), lineCount("a\n"), lineCount("a\nb\r\nc")], [0, 1, 1, 3]);
});

test("rowIndexForSeq: the row showing an event, else the last row before it", async () => {
  const { rowIndexForSeq } = await import("../../webui/js/state/find-row.js");
  const items = [
    { kind: "user", seq: 1 },
    { kind: "assistant", seq: 3, msgSeq: 9 },
    { kind: "user", seq: 12, outOfContext: true },
    { kind: "summary", seq: 20, shadowed: [] },
    { kind: "tool", seq: 22, result: { seq: 25 } },
  ];
  assert.equal(rowIndexForSeq(items, 1), 0);
  assert.equal(rowIndexForSeq(items, 9), 1, "an assistant message finalised at seq 9");
  assert.equal(rowIndexForSeq(items, 12), 2, "a message a summary replaced stays in place");
  assert.equal(rowIndexForSeq(items, 25), 4);
  assert.equal(rowIndexForSeq(items, 15), 2, "no row shows it: the last one before");
  assert.equal(rowIndexForSeq(items, 0), -1);
});
