// What an `ask_user` tool card shows: each question and the answer it got, as text. PURE.
//
// The questions come from the call's arguments; the answers from the tool result, which the
// host writes as "The user answered:" then, per question in order, "- <header or id>:
// <question>" and "  → <answer>" (host/engine/tools/interact.py, format_answers). A result of
// another shape (an error, a cancelled question) is shown as its text.

import { parseArgs } from "./diff.js";

const ANSWERED = "The user answered:";

/**
 * @returns {{questions: {id, header, question, options: string[], answer: string|null}[], note: string|null}}
 *   `answer` is null while unanswered; `note` is a result that is not an answer list.
 */
export function askUserView(rawArgs, result) {
  const args = parseArgs(rawArgs);
  const list = Array.isArray(args?.questions) ? args.questions : [];
  const questions = list
    .filter((q) => q && typeof q.question === "string")
    .map((q) => ({
      id: typeof q.id === "string" ? q.id : "",
      header: typeof q.header === "string" ? q.header : null,
      question: q.question,
      options: Array.isArray(q.options) ? q.options.map((o) => o?.label).filter((l) => typeof l === "string") : [],
      answer: null,
    }));
  if (!result) return { questions, note: null };
  const text = result.content ?? "";
  const answers = result.isError ? null : parseAnswers(text, questions);
  if (!answers) return { questions, note: text || null };
  questions.forEach((q, i) => (q.answer = answers[i]));
  return { questions, note: null };
}

/** Each question's answer, read from the host's text by the lines it writes for them (null
 * when the text is not that list). */
export function parseAnswers(text, questions) {
  if (typeof text !== "string" || !text.startsWith(ANSWERED) || questions.length === 0) return null;
  const heads = questions.map((q) => `\n- ${q.header || q.id}: ${q.question}\n  → `);
  const out = [];
  let at = ANSWERED.length;
  for (let i = 0; i < heads.length; i++) {
    if (!text.startsWith(heads[i], at)) return null;
    const from = at + heads[i].length;
    const next = i + 1 < heads.length ? text.indexOf(heads[i + 1], from) : text.length;
    if (next < 0) return null;
    out.push(text.slice(from, next));
    at = next;
  }
  return out;
}
