// The body of an `ask_user` tool card: each question and its answer as text (never the call's
// JSON); while unanswered, "Waiting for your answer"; a dismissed question says so.

import { h } from "./dom.js";
import { askUserView } from "../state/ask-user.js";
import { t } from "../i18n/i18n.js";

export function askUserBody(item) {
  const v = askUserView(item.arguments, item.result);
  const waiting = !item.result && !["cancelled", "error"].includes(item.status);
  const list = h(
    "dl",
    { class: "tool-qa", testid: "tool-qa" },
    v.questions.map((q) =>
      h(
        "div",
        { class: "qa" },
        h("dt", { testid: "qa-question", translate: "no" }, q.header ? h("span", { class: "q-header" }, q.header) : null, q.question),
        h(
          "dd",
          { class: q.answer === null ? "qa-answer is-empty" : "qa-answer", testid: "qa-answer", translate: q.answer === null ? undefined : "no" },
          q.answer ?? (waiting ? t("qa.waiting") : t("qa.none")),
        ),
      ),
    ),
  );
  const note = v.note ? h("p", { class: item.result?.isError ? "tool-note is-error" : "tool-note", testid: "tool-result", translate: "no" }, v.note) : null;
  return h("div", { class: "tool-qa-wrap" }, v.questions.length ? list : null, note);
}

/** The card's one-line summary: the first question. */
export function askUserSummary(item) {
  return askUserView(item.arguments, null).questions[0]?.question ?? "";
}
