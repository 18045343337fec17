import { test } from "node:test";
import assert from "node:assert/strict";
import { mentionsOf } from "../../webui/js/state/automation-calls.js";

test("an automation's @path mentions become its runs' attachments, once each, in order", () => {
  assert.deepEqual(mentionsOf("look at @tests/test_a.py and @src/a.py, then @tests/test_a.py again."), ["tests/test_a.py", "src/a.py"]);
  assert.deepEqual(mentionsOf("@README.md first"), ["README.md"]);
});

test("an address or a lone @ is not a mention", () => {
  assert.deepEqual(mentionsOf("mail me@example.com or use @ alone"), []);
  assert.deepEqual(mentionsOf(""), []);
  assert.deepEqual(mentionsOf(undefined), []);
});

test("at most twenty mentions (the wire's limit)", () => {
  const text = Array.from({ length: 25 }, (_, i) => `@f${i}.txt`).join(" ");
  assert.equal(mentionsOf(text).length, 20);
});
