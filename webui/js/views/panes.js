// The panes around the conversation (docs/decisions.md, "Terminal and files"): the Terminal below
// it, Files beside it. Each is shown, hidden and resized by the person, and the window remembers
// that (localStorage); Ctrl+` shows the terminal (and focuses it), Ctrl+Shift+E the files,
// Ctrl+Shift+G the review (the Changes view). In a narrow window (800 px and less) a pane opens as
// a drawer over the conversation.

import { h, icon } from "./dom.js";
import { t } from "../i18n/i18n.js";
import { isBackquote, isPaneShortcut, keyIs } from "./terminal-pane.js";

const KEY = "harnessdesk.panes";
const LIMITS = { terminal: [120, 2000], files: [200, 1600] };
const DEFAULTS = { terminal: { open: false, size: 260 }, files: { open: false, size: 320 } };

/** The remembered layout (defaults for anything missing or unreadable). */
export function readLayout(storage = globalThis.localStorage) {
  let saved = {};
  try {
    saved = JSON.parse(storage?.getItem(KEY) ?? "{}") ?? {};
  } catch {
    saved = {};
  }
  const out = {};
  for (const [name, d] of Object.entries(DEFAULTS)) {
    const s = saved[name] ?? {};
    const [min, max] = LIMITS[name];
    out[name] = { open: typeof s.open === "boolean" ? s.open : d.open, size: Number.isFinite(s.size) ? Math.min(max, Math.max(min, s.size)) : d.size };
  }
  return out;
}

export class Panes {
  /** @param {{terminal: {root, pane}, files: {root, pane}, topActions: HTMLElement, toggleReview(), hasSession(): boolean}} ctx */
  constructor(ctx) {
    this.ctx = ctx;
    this.layout = readLayout();
    this.buttons = {};
    for (const [name, label, title, iconName] of [["files", t("panes.files"), t("panes.filesTitle"), "folder"], ["terminal", t("panes.terminal"), t("panes.terminalTitle"), "terminal"]]) {
      const btn = h("button", { type: "button", class: "btn btn-small jobs-toggle pane-toggle", testid: `${name}-toggle`, title, "aria-controls": ctx[name].root.id, "aria-expanded": "false" }, icon(iconName), h("span", { class: "btn-label" }, label));
      btn.addEventListener("click", () => this.toggle(name));
      this.buttons[name] = btn;
      ctx.topActions.prepend(btn);
    }
    this.grip(ctx.terminal.root, "terminal", "row", t("panes.resizeTerminal"));
    this.grip(ctx.files.root, "files", "column", t("panes.resizeFiles"));
    document.addEventListener("keydown", (e) => this.onKey(e));
    this.apply();
  }

  /** A drag handle on the pane's inner edge; arrow keys resize it too. */
  grip(root, name, axis, label) {
    const handle = h("div", { class: `pane-grip pane-grip-${axis}`, testid: `${name}-grip`, role: "separator", tabindex: "0", "aria-label": label, "aria-orientation": axis === "row" ? "horizontal" : "vertical" });
    handle.addEventListener("pointerdown", (e) => {
      e.preventDefault();
      handle.setPointerCapture(e.pointerId);
      const start = axis === "row" ? e.clientY : e.clientX;
      const from = this.layout[name].size;
      const move = (ev) => this.resize(name, from + (start - (axis === "row" ? ev.clientY : ev.clientX)));
      const up = () => {
        handle.removeEventListener("pointermove", move);
        handle.removeEventListener("pointerup", up);
        this.save();
      };
      handle.addEventListener("pointermove", move);
      handle.addEventListener("pointerup", up);
    });
    handle.addEventListener("keydown", (e) => {
      const step = e.shiftKey ? 80 : 20;
      const grow = axis === "row" ? { ArrowUp: step, ArrowDown: -step } : { ArrowLeft: step, ArrowRight: -step };
      if (!(e.key in grow)) return;
      e.preventDefault();
      this.resize(name, this.layout[name].size + grow[e.key]);
      this.save();
    });
    root.prepend(handle);
  }

  resize(name, size) {
    const [min, max] = LIMITS[name];
    this.layout[name].size = Math.round(Math.min(max, Math.max(min, size)));
    this.applySize(name);
  }

  applySize(name) {
    const root = this.ctx[name].root;
    const px = `${this.layout[name].size}px`;
    if (name === "terminal") root.style.height = px; // CSSOM, not an inline style attribute
    else root.style.width = px;
  }

  toggle(name, force) {
    const next = force === undefined ? !this.layout[name].open : force;
    if (next && matchMedia("(max-width: 50rem)").matches) {
      for (const other of Object.keys(DEFAULTS)) if (other !== name) this.layout[other].open = false; // one drawer at a time
    }
    this.layout[name].open = next;
    this.save();
    this.apply(next ? name : null);
    if (next) this.ctx[name].pane.focus();
  }

  /** Show and size the panes as the layout says; `summoned`: the pane the person just opened. */
  apply(summoned = null) {
    for (const name of Object.keys(DEFAULTS)) {
      const { root, pane } = this.ctx[name];
      const open = this.layout[name].open;
      root.hidden = !open;
      this.applySize(name);
      this.buttons[name].setAttribute("aria-expanded", String(open));
      this.buttons[name].classList.toggle("is-active", open);
      pane.setVisible(open, name === summoned);
    }
  }

  save() {
    try {
      localStorage.setItem(KEY, JSON.stringify(this.layout));
    } catch {
      /* private mode, or storage full: the layout lasts this page */
    }
  }

  onKey(e) {
    if (e.defaultPrevented || !isPaneShortcut(e)) return;
    e.preventDefault();
    if (isBackquote(e)) {
      const focused = this.ctx.terminal.root.contains(document.activeElement);
      if (this.layout.terminal.open && !focused) this.ctx.terminal.pane.summon();
      else this.toggle("terminal");
    } else if (keyIs(e, "KeyE")) this.toggle("files");
    else if (keyIs(e, "KeyG")) this.ctx.toggleReview();
  }
}
