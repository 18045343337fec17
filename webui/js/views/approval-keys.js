// Approval hotkeys (docs/decisions.md, "UX pass" and "Review and context"): Y allows once, A
// allows always, N rejects, shown on the buttons. The rule that keeps a key both out of the
// message and never lost:
// - a card takes the focus only when nothing typed is in the way: the message box is empty and
//   the person has not typed in it for ARM ms (someone typing keeps the focus, and their letters
//   stay text); a card that could not take it at once takes it when the box falls quiet; once it
//   has had the focus, it never takes it back from the page itself (Tab past the page's end);
// - a card answers a bare key only once it has been on screen for ARM ms (it is "armed": its
//   key hints light up); a letter that reaches it earlier was meant for the message, so it goes
//   into the message box (with the focus) instead of answering or vanishing;
// - Alt+Y / Alt+A / Alt+N answer the newest open approval from anywhere, the message box
//   included: a key with Alt is never text.

import { h } from "./dom.js";
import { t } from "../i18n/i18n.js";

export const APPROVAL_KEYS = { "allowed-once": "y", "allowed-always": "a", rejected: "n" };

/** How long a card must be on screen (and the box be quiet) before bare keys answer it. */
export const approvalTiming = { armMs: 700 };

let lastTyped = -Infinity; // performance.now() of the last key pressed in the message box
document.addEventListener("keydown", (e) => e.target?.id === "composer-input" && (lastTyped = performance.now()), true);
document.addEventListener("keydown", answerNewestWithAlt);

// Stray answer keys: Y, A or N typed (once or again and again) into an empty message box while
// an approval waits (the person answered before the card had the focus, or before it was armed)
// are not a draft. They
// never keep the card from taking the focus, and once the card is answered by a key they leave
// the box; a letter that is anything else, or an edit, makes them the person's text again
// (docs/decisions.md, "A day's work without friction").
let stray = "";
let strayNext = null;
const isAnswerKey = (key) => key.length === 1 && Object.values(APPROVAL_KEYS).includes(key.toLowerCase());
/** `key` after what the box holds is still only one answer key pressed again and again. */
const strayAfter = (value, key) => isAnswerKey(key) && value === stray && (!stray || stray[0].toLowerCase() === key.toLowerCase());
const cardWaiting = () => !!document.querySelector("#pending-cards .approval-card button[data-outcome]:not(:disabled)");
document.addEventListener(
  "keydown",
  (e) => {
    const box = e.target;
    if (box?.id !== "composer-input") return;
    if (!box.value) stray = "";
    const plain = !e.ctrlKey && !e.metaKey && !e.altKey && !e.isComposing;
    strayNext = plain && strayAfter(box.value, e.key) && cardWaiting() && box.selectionStart === box.value.length ? box.value + e.key : null;
  },
  true,
);
document.addEventListener(
  "input",
  (e) => {
    const box = e.target;
    if (box?.id !== "composer-input") return;
    stray = strayNext !== null && box.value === strayNext ? strayNext : box.value === stray ? stray : "";
    strayNext = null;
  },
  true,
);

/** The card was answered by a key: the stray letters meant for it leave the message box. */
function dropStray() {
  const box = document.getElementById("composer-input");
  if (!box || !stray || box.value !== stray) return;
  stray = "";
  box.value = "";
  box.dispatchEvent(new Event("input", { bubbles: true }));
}

/** The key's label inside a button. */
export function keyHint(outcome) {
  const key = APPROVAL_KEYS[outcome];
  return key ? h("kbd", { class: "key-hint", "aria-hidden": "true" }, key.toUpperCase()) : null;
}

/** Answer by key while the focus is in `card` (never from a text field inside it); each
 * button names its outcome in `data-outcome`. */
export function installApprovalKeys(card, buttons) {
  card.tabIndex = -1;
  const shownAt = performance.now();
  const byKey = new Map();
  for (const button of buttons) {
    const key = APPROVAL_KEYS[button.dataset.outcome];
    if (!key) continue;
    byKey.set(key, button);
    const k = key.toUpperCase();
    button.setAttribute("aria-keyshortcuts", `${k} Alt+${k}`);
    button.title = t("cards.keyTitle", { key: k });
  }
  const armed = () => {
    const on = performance.now() - shownAt >= approvalTiming.armMs;
    if (on) card.dataset.armed = "true"; // its key hints light up
    return on;
  };
  // until it is answered or gone: armed, it takes the focus once the message box is quiet and
  // empty (right after a message was sent, say), as the first waiting approval
  // — but not back from the page itself: once the card has had the focus, a focus left on the
  // page (Tab past the page's end, a click on empty space) stays there; the message box, empty
  // or holding only a stray answer key, it still takes the focus from
  let hadFocus = false;
  const settle = () => {
    if (!card.isConnected && performance.now() - shownAt > 1000) return;
    const open = !card.querySelector("button[data-outcome]:disabled");
    if (!open) return;
    const first = document.querySelector("#pending-cards .approval-card.is-waiting") === card;
    const from = document.activeElement;
    const onPage = !from || from === document.body;
    const idle = onPage || from.id === "composer-input";
    if (armed() && first && idle && !(hadFocus && onPage) && mayTakeFocus()) card.focus();
    setTimeout(settle, Math.min(250, Math.max(50, approvalTiming.armMs)));
  };
  settle();
  card.addEventListener("focusin", () => {
    hadFocus = true;
    armed();
  });
  card.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing || editable(e.target)) return;
    if (!armed()) {
      if (e.key.length === 1) {
        e.preventDefault();
        typeIntoComposer(e.key);
      }
      return;
    }
    const button = byKey.get(e.key.toLowerCase());
    if (!button || button.disabled) return;
    e.preventDefault();
    button.click();
    dropStray();
  });
}

/** Alt+Y/A/N: the newest open approval card answers (e.code: Alt changes e.key on a Mac). */
function answerNewestWithAlt(e) {
  if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.defaultPrevented) return;
  const key = { KeyY: "y", KeyA: "a", KeyN: "n" }[e.code];
  if (!key || document.querySelector("dialog[open]")) return;
  const outcome = Object.keys(APPROVAL_KEYS).find((o) => APPROVAL_KEYS[o] === key);
  const cards = [...document.querySelectorAll("#pending-cards .approval-card")];
  const button = cards.map((c) => c.querySelector(`button[data-outcome="${outcome}"]`)).filter((b) => b && !b.disabled).pop();
  if (!button) return;
  e.preventDefault();
  button.click();
}

/** A letter that reached a card before it was armed: into the message, where it was meant. */
function typeIntoComposer(text) {
  const box = document.getElementById("composer-input");
  if (!box || box.disabled) return;
  box.focus();
  if (!box.value) stray = "";
  strayNext = strayAfter(box.value, text) && box.selectionStart === box.value.length ? box.value + text : null;
  box.setRangeText(text, box.selectionStart, box.selectionEnd, "end");
  box.dispatchEvent(new Event("input", { bubbles: true }));
  lastTyped = performance.now();
}

function editable(el) {
  return !!el && (el.isContentEditable || el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && !["radio", "checkbox", "button", "submit"].includes(el.type)));
}

/** Whether the message box holds unsent text (then cards never take the focus from it). */
export function hasDraft() {
  const box = document.getElementById("composer-input");
  return !!box?.value.trim() && box.value !== stray && !box.dataset.sending;
}

/** Whether a new card may take the focus: nothing typed is in the way. */
export function mayTakeFocus() {
  const a = document.activeElement;
  if (!a || a === document.body || a.id === "conversation") return true;
  if (a.id === "composer-input") return !hasDraft() && performance.now() - lastTyped >= approvalTiming.armMs;
  if (a.closest?.(".approval-card")) return false; // another card is being answered
  return !editable(a);
}
