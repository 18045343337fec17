// Approval hotkeys (docs/decisions.md, "UX pass"): Y allows once, A allows always, N rejects,
// shown on the buttons and active while the focus is in the card. A new approval card of the
// open session takes the focus, unless the person is typing somewhere: a letter meant for the
// message box must never answer an approval.

import { h } from "./dom.js";

export const APPROVAL_KEYS = { "allowed-once": "y", "allowed-always": "a", rejected: "n" };

/** The key's label inside a button. */
export function keyHint(outcome) {
  const key = APPROVAL_KEYS[outcome];
  return key ? h("kbd", { class: "key-hint", "aria-hidden": "true" }, key.toUpperCase()) : null;
}

/** Answer by key while the focus is in `card` (never from a text field inside it); each
 * button names its outcome in `data-outcome`. */
export function installApprovalKeys(card, buttons) {
  card.tabIndex = -1;
  const byKey = new Map();
  for (const button of buttons) {
    const key = APPROVAL_KEYS[button.dataset.outcome];
    if (!key) continue;
    byKey.set(key, button);
    button.setAttribute("aria-keyshortcuts", key.toUpperCase());
  }
  card.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing || editable(e.target)) return;
    const button = byKey.get(e.key.toLowerCase());
    if (!button || button.disabled) return;
    e.preventDefault();
    button.click();
  });
}

function editable(el) {
  return !!el && (el.isContentEditable || el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && !["radio", "checkbox", "button", "submit"].includes(el.type)));
}

/** Whether the message box holds unsent text (then cards never take the focus from it). */
export function hasDraft() {
  const box = document.getElementById("composer-input");
  return !!box?.value.trim() && !box.dataset.sending;
}

/** Whether a new card may take the focus: nothing typed is in the way. */
export function mayTakeFocus() {
  const a = document.activeElement;
  if (!a || a === document.body || a.id === "conversation") return true;
  if (a.id === "composer-input") return !hasDraft();
  if (a.closest?.(".approval-card")) return false; // another card is being answered
  return !editable(a);
}
