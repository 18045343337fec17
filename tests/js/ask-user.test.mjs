import { test } from "node:test";
import assert from "node:assert/strict";
import { askUserView } from "../../webui/js/state/ask-user.js";

const args = JSON.stringify({
  questions: [
    { id: "fmt", header: "Format", question: "Which backend?", options: [{ label: "setuptools" }, { label: "hatchling" }] },
    { id: "why", question: "Anything else?\nTake your time." },
  ],
});

test("questions and the host's answers become text, multi-line answers kept whole", () => {
  const content = "The user answered:\n- Format: Which backend?\n  → setuptools; \"fast\"\n- why: Anything else?\nTake your time.\n  → line one\nline two";
  const v = askUserView(args, { content, isError: false });
  assert.equal(v.note, null);
  assert.deepEqual(
    v.questions.map((q) => [q.header, q.question, q.options, q.answer]),
    [
      ["Format", "Which backend?", ["setuptools", "hatchling"], 'setuptools; "fast"'],
      [null, "Anything else?\nTake your time.", [], "line one\nline two"],
    ],
  );
});

test("unanswered, dismissed and malformed: questions stay, the result is a plain note", () => {
  assert.deepEqual(askUserView(args, null).questions.map((q) => q.answer), [null, null]);
  const dismissed = askUserView(args, { content: "The question was cancelled.", isError: true });
  assert.equal(dismissed.note, "The question was cancelled.");
  assert.deepEqual(dismissed.questions.map((q) => q.answer), [null, null]);
  const other = askUserView(args, { content: "The user answered:\n- Other: ?\n  → x", isError: false });
  assert.equal(other.note, "The user answered:\n- Other: ?\n  → x");
  assert.deepEqual(askUserView("{not json", null).questions, []);
});
