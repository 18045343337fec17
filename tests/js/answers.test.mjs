import { test } from "node:test";
import assert from "node:assert/strict";
import { emptyForm, chooseOption, setCustom, buildAnswerSet, buildQuestionValue, answerProblems } from "../../webui/js/state/answers.js";

const QS = [
  { id: "color", question: "Which colour?", options: [{ label: "red" }, { label: "blue" }] },
  { id: "langs", question: "Which languages?", multiSelect: true, options: [{ label: "py" }, { label: "js" }, { label: "go" }] },
  { id: "name", question: "Your name?" },
];

test("an empty form does not validate; a filled one does", () => {
  let form = emptyForm(QS);
  assert.ok(answerProblems(QS, buildAnswerSet(QS, form)).length >= 3);
  form = chooseOption(form, QS[0], "blue");
  form = chooseOption(form, QS[1], "py");
  form = chooseOption(form, QS[1], "go");
  form = setCustom(form, QS[2], "  Ada  ");
  const set = buildAnswerSet(QS, form);
  assert.deepEqual(set, {
    answers: [
      { id: "color", selected: ["blue"] },
      { id: "langs", selected: ["py", "go"] },
      { id: "name", selected: [], custom: "Ada" },
    ],
  });
  assert.deepEqual(answerProblems(QS, set), []);
});

test("the respond value wraps the answer set with the sessionId", () => {
  let form = emptyForm(QS.slice(0, 1));
  form = chooseOption(form, QS[0], "red");
  assert.deepEqual(buildQuestionValue("s1", QS.slice(0, 1), form), { sessionId: "s1", answer: { answers: [{ id: "color", selected: ["red"] }] } });
});

test("single-select: choosing replaces, custom text clears the option and vice versa", () => {
  const q = QS[0];
  let form = emptyForm([q]);
  form = chooseOption(form, q, "red");
  form = chooseOption(form, q, "blue");
  assert.deepEqual(form.color.selected, ["blue"]);
  form = setCustom(form, q, "green");
  assert.deepEqual(buildAnswerSet([q], form).answers[0], { id: "color", selected: [], custom: "green" });
  assert.deepEqual(answerProblems([q], buildAnswerSet([q], form)), []);
  form = chooseOption(form, q, "red");
  assert.deepEqual(buildAnswerSet([q], form).answers[0], { id: "color", selected: ["red"] });
});

test("multi-select toggles and may add custom text alongside", () => {
  const q = QS[1];
  let form = emptyForm([q]);
  form = chooseOption(form, q, "js");
  form = chooseOption(form, q, "js");
  assert.deepEqual(form.langs.selected, []);
  assert.deepEqual(answerProblems([q], buildAnswerSet([q], form)), ["langs: nothing selected"]);
  form = chooseOption(form, q, "js");
  form = setCustom(form, q, "zig");
  assert.deepEqual(buildAnswerSet([q], form).answers[0], { id: "langs", selected: ["js"], custom: "zig" });
});

test("blank custom text is left out; unknown labels are dropped by the builder", () => {
  const q = QS[0];
  const set = buildAnswerSet([q], { color: { selected: ["purple", "red", "red"], custom: "   " } });
  assert.deepEqual(set.answers[0], { id: "color", selected: ["red"] });
});

test("answerProblems mirrors the host's rules", () => {
  assert.match(answerProblems(QS, { answers: [] })[0], /expected 3 answers/);
  const q = [QS[0]];
  assert.match(answerProblems(q, { answers: [{ id: "zzz", selected: [] }] })[0], /does not match/);
  assert.match(answerProblems(q, { answers: [{ id: "color", selected: ["red", "red"] }] }).join(), /duplicate/);
  assert.match(answerProblems(q, { answers: [{ id: "color", selected: ["pink"] }] }).join(), /unknown labels/);
  assert.match(answerProblems(q, { answers: [{ id: "color", selected: [], custom: " " }] }).join(), /blank/);
  assert.match(answerProblems(q, { answers: [{ id: "color", selected: ["red"], custom: "x" }] }).join(), /single-select/);
});
