// The question-answer builder (docs/architecture.md, "Approvals and questions"). Pure.
//
// Form state per question: {selected: string[] (labels), custom: string}. The built value is
//   {sessionId, answer: {answers: [{id, selected: [labels], custom?}]}}
// Rules mirrored from contract/questions.py answer_problems(): one answer per question, labels
// exist and are unique, single-select takes exactly one selection OR custom text, custom text is
// non-blank, multi-select takes at least one of either.

/** Empty form state for a list of questions. */
export function emptyForm(questions) {
  const form = {};
  for (const q of questions) form[q.id] = { selected: [], custom: "" };
  return form;
}

/** Toggle/choose an option label in the form (single-select replaces, multi toggles). */
export function chooseOption(form, question, label) {
  const cur = form[question.id] ?? { selected: [], custom: "" };
  let selected;
  let custom = cur.custom;
  if (question.multiSelect) {
    selected = cur.selected.includes(label) ? cur.selected.filter((l) => l !== label) : [...cur.selected, label];
  } else {
    selected = [label];
    custom = ""; // single-select: an option or custom text, not both
  }
  return { ...form, [question.id]: { selected, custom } };
}

/** Set the free text; for single-select, typing text clears the chosen option. */
export function setCustom(form, question, text) {
  const cur = form[question.id] ?? { selected: [], custom: "" };
  const selected = !question.multiSelect && text.trim() ? [] : cur.selected;
  return { ...form, [question.id]: { selected, custom: text } };
}

/** The AnswerSet {answers:[...]} for the form (custom left out when blank). */
export function buildAnswerSet(questions, form) {
  return {
    answers: questions.map((q) => {
      const st = form[q.id] ?? { selected: [], custom: "" };
      const labels = new Set((q.options ?? []).map((o) => o.label));
      const selected = [...new Set(st.selected)].filter((l) => labels.has(l));
      const item = { id: q.id, selected };
      const custom = (st.custom ?? "").trim();
      if (custom) item.custom = custom;
      return item;
    }),
  };
}

/** The respond value for `question/requested`. */
export function buildQuestionValue(sessionId, questions, form) {
  return { sessionId, answer: buildAnswerSet(questions, form) };
}

/** Why an AnswerSet does not fit its questions ([] when it fits). */
export function answerProblems(questions, answerSet) {
  const answers = answerSet?.answers ?? [];
  if (answers.length !== questions.length) return [`expected ${questions.length} answers, got ${answers.length}`];
  const byId = new Map(questions.map((q) => [q.id, q]));
  const seen = new Set();
  const problems = [];
  for (const item of answers) {
    const q = byId.get(item.id);
    if (!q || seen.has(item.id)) {
      problems.push(`answer id ${JSON.stringify(item.id)} does not match a question`);
      continue;
    }
    seen.add(item.id);
    const labels = new Set((q.options ?? []).map((o) => o.label));
    if (new Set(item.selected).size !== item.selected.length) problems.push(`${item.id}: duplicate selections`);
    const unknown = item.selected.filter((s) => !labels.has(s));
    if (unknown.length) problems.push(`${item.id}: unknown labels ${JSON.stringify(unknown)}`);
    const custom = item.custom;
    if (custom !== undefined && custom !== null && !custom.trim()) problems.push(`${item.id}: custom text is blank`);
    const given = item.selected.length + (custom !== undefined && custom !== null ? 1 : 0);
    if (!q.multiSelect && given !== 1) problems.push(`${item.id}: single-select takes one selection or custom text`);
    if (q.multiSelect && given === 0) problems.push(`${item.id}: nothing selected`);
  }
  return problems;
}
