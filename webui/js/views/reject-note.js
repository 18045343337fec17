// Reject with a note (issue 18): under an approval card's buttons, "Add a note for the agent"
// opens a text field; Reject then sends the note, and the agent reads it in the tool result.
// Reject stays one click when no note is written. Ctrl/⌘+Enter in the field rejects.

import { h } from "./dom.js";
import { t } from "../i18n/i18n.js";

/**
 * @param {HTMLButtonElement} rejectButton relabelled "Reject with note" while the note has text
 * @param {() => void} reject sends the rejection (reads `value()`)
 */
export function rejectNote(rejectButton, reject) {
  const labelNode = rejectButton.firstChild; // the label's text (its hotkey hint follows it)

  const id = `reject-note-${Math.random().toString(36).slice(2)}`;
  const field = h("textarea", { id, testid: "approval-note", rows: 2, maxlength: 4000, placeholder: t("reject.placeholder") });
  const box = h("div", { class: "reject-note", hidden: true }, h("label", { for: id }, t("reject.label")), field);
  const toggle = h("button", { type: "button", class: "btn btn-ghost btn-small", testid: "approval-note-toggle", "aria-expanded": "false" }, t("reject.toggle"));
  toggle.addEventListener("click", () => {
    box.hidden = false;
    toggle.hidden = true;
    toggle.setAttribute("aria-expanded", "true");
    field.focus();
  });
  field.addEventListener("input", () => {
    labelNode.textContent = field.value.trim() ? t("reject.withNote") : t("cards.reject");
  });
  field.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      reject();
    }
  });
  return {
    el: h("div", { class: "reject-note-wrap" }, toggle, box),
    value: () => field.value.trim() || null,
    setDisabled: (disabled) => {
      field.disabled = disabled;
      toggle.disabled = disabled;
    },
  };
}
