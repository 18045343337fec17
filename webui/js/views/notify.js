// Telling the person about a session they are not looking at (docs/decisions.md, "Parallel
// sessions and attention"): a "(N)" badge in the document title and a desktop notification when
// such a session starts to need them or finishes. In the window the notification is the
// desktop's own (the bridge's `notify`, desktop/notify.py); in a browser tab on loopback it is the
// Notification API, whose permission is asked on first use (the first notification, or the first
// prompt sent), never on load. Clicking one opens the session. Settings → Sessions turns it off.

const BASE_TITLE = "HarnessDesk";

/** Whether the page is the person's current view (shown and focused). */
export function onScreen() {
  return !document.hidden && document.hasFocus();
}

/** Loopback pages only: a page a --trusted-host name serves stays quiet (docs/threat-model.md). */
function loopback() {
  const host = location.hostname;
  return host === "127.0.0.1" || host === "localhost" || host === "[::1]" || host === "::1";
}

export class Notifier {
  /** `onFocus`: told when the page comes back on screen (the open session is then read). */
  constructor({ onFocus = () => {} } = {}) {
    this.count = 0;
    this.base = BASE_TITLE;
    this.enabled = true;
    const back = () => {
      if (!onScreen()) return;
      this.clear();
      onFocus();
    };
    window.addEventListener("focus", back);
    document.addEventListener("visibilitychange", back);
  }

  setBase(title) {
    this.base = title ? `${title} · ${BASE_TITLE}` : BASE_TITLE;
    this.apply();
  }

  /** Settings → Sessions → Desktop notifications. */
  setEnabled(enabled) {
    this.enabled = enabled !== false;
  }

  apply() {
    document.title = this.count ? `(${this.count}) ${this.base}` : this.base;
  }

  clear() {
    if (!this.count) return;
    this.count = 0;
    this.apply();
  }

  /** Ask for permission from a user gesture (browsers may ignore it otherwise). */
  requestPermission() {
    if (this.enabled && !window.harnessdeskBridge && loopback() && typeof Notification !== "undefined" && Notification.permission === "default") {
      Notification.requestPermission().catch(() => {});
    }
  }

  /** A session not on screen needs the person or finished: `title` names it, `onClick` opens it. */
  show(sessionId, title, body, onClick) {
    if (!this.enabled) return;
    if (!onScreen()) {
      this.count += 1;
      this.apply();
    }
    const bridge = window.harnessdeskBridge;
    if (bridge?.notify) {
      bridge.notify(sessionId, title, body); // the click comes back through the shell
      return;
    }
    if (!loopback() || typeof Notification === "undefined") return;
    const post = () => {
      try {
        const n = new Notification(title, { body, tag: `harnessdesk-${sessionId}` });
        n.addEventListener("click", () => {
          window.focus();
          onClick?.();
          n.close();
        });
      } catch {
        /* some shells have no notification service */
      }
    };
    if (Notification.permission === "granted") post();
    else if (Notification.permission === "default") {
      Notification.requestPermission()
        .then((p) => p === "granted" && post())
        .catch(() => {});
    }
  }
}
