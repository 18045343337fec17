// A redraw under a pressed pointer (docs/decisions/small-ux-fixes.md). A browser sends "click"
// only when the press and the release land on one element, so a list redrawn between them — the
// session list refreshed while the app starts, on a busy machine — ignored the person's click.
// While a pointer is pressed inside `root`, redraws wait: the one asked for meanwhile runs as the
// click starts (before the click's own handlers, which may redraw again at once), or on a release
// that makes no click; bounded, so a release the page never hears (outside the window, a drag)
// frees it too.

const HOLD_MS = 2000;

export class PressGuard {
  constructor(root, redraw) {
    this.redraw = redraw;
    this.pressed = false;
    this.wanted = false;
    this.timer = 0;
    root.addEventListener("pointerdown", (e) => e.button === 0 && this.hold(), true);
    window.addEventListener("click", () => this.release(), true);
    for (const type of ["pointerup", "pointercancel", "dragend"]) window.addEventListener(type, () => this.pressed && setTimeout(() => this.release(), 0), true);
  }

  hold() {
    this.pressed = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.release(), HOLD_MS);
  }

  release() {
    clearTimeout(this.timer);
    if (!this.pressed) return;
    this.pressed = false;
    if (!this.wanted) return;
    this.wanted = false;
    this.redraw();
  }

  /** Whether a redraw must wait (it runs on the release). */
  defer() {
    if (!this.pressed) return false;
    this.wanted = true;
    return true;
  }
}
