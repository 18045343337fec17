// Trojan Source: bidi controls split out of displayed text (the DOM part runs in the browser test).
import test from "node:test";
import assert from "node:assert/strict";
import { codePoint, hasBidi, splitBidi } from "../../webui/js/views/bidi.js";

test("every listed bidi control is found and named by its code point", () => {
  const controls = ["\u061C", "\u200E", "\u200F", "\u202A", "\u202B", "\u202C", "\u202D", "\u202E", "\u2066", "\u2067", "\u2068", "\u2069"];
  for (const ch of controls) assert.ok(hasBidi(`a${ch}b`), codePoint(ch));
  assert.ok(!hasBidi("plain text, عربى, עברית, 😀"));
  assert.equal(codePoint("\u202E"), "U+202E");
});

test("splitBidi keeps the text around each control", () => {
  assert.deepEqual(splitBidi("echo \u202Eolleh\u202C; touch x"), [
    { text: "echo " },
    { mark: "\u202E" },
    { text: "olleh" },
    { mark: "\u202C" },
    { text: "; touch x" },
  ]);
  assert.deepEqual(splitBidi("plain"), [{ text: "plain" }]);
});
