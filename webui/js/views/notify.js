// Attention when the window is not focused: a "(N)" badge in the document title and a desktop
// Notification for each new approval/question. Cleared when the window gets focus.

const BASE_TITLE = "HarnessDesk";

export class Notifier {
  constructor() {
    this.count = 0;
    this.base = BASE_TITLE;
    window.addEventListener("focus", () => this.clear());
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && document.hasFocus()) this.clear();
    });
  }

  setBase(title) {
    this.base = title ? `${title} · ${BASE_TITLE}` : BASE_TITLE;
    this.apply();
  }

  apply() {
    document.title = this.count ? `(${this.count}) ${this.base}` : this.base;
  }

  clear() {
    if (!this.count) return;
    this.count = 0;
    this.apply();
  }

  /** Ask for permission from a user gesture (browsers ignore it otherwise). */
  requestPermission() {
    if (typeof Notification !== "undefined" && Notification.permission === "default") {
      Notification.requestPermission().catch(() => {});
    }
  }

  /** A new approval/question arrived. */
  attention(title, body, onClick) {
    if (!document.hidden && document.hasFocus()) return;
    this.count += 1;
    this.apply();
    if (typeof Notification !== "undefined" && Notification.permission === "granted") {
      try {
        const n = new Notification(title, { body, tag: "harnessdesk-pending" });
        n.addEventListener("click", () => {
          window.focus();
          onClick?.();
          n.close();
        });
      } catch {
        /* some shells have no notification service */
      }
    }
  }
}
