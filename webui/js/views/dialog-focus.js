// Focus after a dialog (docs/decisions.md, "A day's work without friction"): when a modal dialog
// closes, the focus goes back to what opened it; when that is gone (re-rendered meanwhile), to
// its stand-in (the same data-testid, for the same session), else to the message box — never to
// the page's body, where the keyboard loses its place.

const openers = new WeakMap();

/** The element a dialog's opener is now: itself, or its re-rendered stand-in. */
function standIn(was) {
  if (was.el.isConnected) return was.el;
  if (!was.testid) return null;
  const same = `[data-testid="${CSS.escape(was.testid)}"]`;
  if (!was.sessionId) return document.querySelector(same);
  // the same control of the same session (never another session's: its Delete is not this one)
  const holder = document.querySelector(`.session-item[data-session-id="${CSS.escape(was.sessionId)}"], [data-session-id="${CSS.escape(was.sessionId)}"]`);
  return holder?.querySelector(same) ?? null;
}

function focusable(el) {
  return !!el && !el.disabled && !el.hidden && el.getClientRects().length > 0;
}

/** The control just given the focus may be redrawn or removed by what the dialog decided (a
 * deleted session's row): follow it to its stand-in, else to `fallback`, for a bounded while. */
function keepWhileRedrawn(el, was, fallback) {
  const watch = new MutationObserver(() => {
    if (el.isConnected) return;
    if (document.activeElement && document.activeElement !== document.body) return stop();
    const next = standIn({ ...was, el });
    if (focusable(next)) {
      el = next;
      next.focus();
    } else {
      stop();
      fallback();
    }
  });
  const stop = () => {
    watch.disconnect();
    clearTimeout(timer);
  };
  const timer = setTimeout(stop, 5000);
  watch.observe(document.body, { childList: true, subtree: true });
}

/** Remember each modal dialog's opener; give the focus back on close. */
export function installDialogFocus(fallback) {
  const show = HTMLDialogElement.prototype.showModal;
  HTMLDialogElement.prototype.showModal = function showModal(...args) {
    const el = document.activeElement;
    if (!this.open && el && el !== document.body && !this.contains(el)) {
      const holder = el.closest(".session-item[data-session-id]");
      openers.set(this, { el, testid: el.dataset?.testid ?? null, sessionId: holder?.dataset.sessionId ?? null });
    }
    return show.apply(this, args);
  };
  const restore = (dialog) => {
    const was = openers.get(dialog);
    if (!was) return;
    openers.delete(dialog);
    setTimeout(() => {
      const now = document.activeElement;
      if (now && now !== document.body && !dialog.contains(now)) return; // moved on purpose
      if (document.querySelector("dialog[open]")) return; // another dialog holds it
      const back = standIn(was);
      if (!focusable(back)) return fallback();
      back.focus();
      keepWhileRedrawn(back, was, fallback);
    }, 0);
  };
  // close() by the page (a dialog may leave the document at once: its close event is not seen)
  const close = HTMLDialogElement.prototype.close;
  HTMLDialogElement.prototype.close = function closeDialog(...args) {
    const wasOpen = this.open;
    const value = close.apply(this, args);
    if (wasOpen) restore(this);
    return value;
  };
  // Esc and a form's method=dialog close it without close()
  document.addEventListener("close", (e) => e.target instanceof HTMLDialogElement && restore(e.target), true);
}
