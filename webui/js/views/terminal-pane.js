// The Terminal pane (docs/decisions.md, "Terminal and files"): one or more tabs per session, each
// the person's login shell on the host drawn by xterm.js (loaded the first time the pane opens),
// with fit, find and clickable links. Ctrl+Shift+C copies the selection, Ctrl+Shift+V pastes,
// Ctrl+Shift+F finds; "Send to agent" quotes the selection in the message box. The calls and the
// output's bookkeeping are state/terminals.js; a terminal outlives the page (reload: replayed).

import { h, icon, clear, copyText } from "./dom.js";
import { installCspStyles, sweepStyles } from "./xterm-csp.js";
import { quoteBlock } from "../state/terminals.js";

// The pane's words (the lead moves them into the message catalogues).
const TEXT = {
  pane: "Terminal",
  tabs: "Terminals",
  newTab: "New terminal",
  closeTab: (title) => `Close ${title}`,
  hide: "Hide the terminal (Ctrl+`)",
  find: "Find in the terminal (Ctrl+Shift+F)",
  findPlaceholder: "Find",
  next: "Next match",
  previous: "Previous match",
  closeFind: "Close find",
  send: "Send to agent",
  sendTitle: "Put the selected text in the message box as a quote",
  copy: "Copy selection (Ctrl+Shift+C)",
  noSession: "Open a session to use a terminal in its folder.",
  loading: "Starting the terminal…",
  failed: "The terminal could not open",
  exited: (code) => (code == null ? "[the shell ended]" : `[the shell exited with code ${code}]`),
  ended: "ended",
  copied: "Copied.",
};

let lib = null;

/** xterm.js and its addons, imported once (they are not part of the page's first load). */
async function loadXterm() {
  if (!lib) {
    lib = Promise.all([
      import("../../vendor/xterm/xterm.mjs"),
      import("../../vendor/xterm-addon-fit/addon-fit.mjs"),
      import("../../vendor/xterm-addon-search/addon-search.mjs"),
      import("../../vendor/xterm-addon-web-links/addon-web-links.mjs"),
    ]).then(([x, fit, search, links]) => {
      installCspStyles();
      return { Terminal: x.Terminal, FitAddon: fit.FitAddon, SearchAddon: search.SearchAddon, WebLinksAddon: links.WebLinksAddon };
    });
  }
  return lib;
}

const cssVar = (name, fallback) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

/** Whether key event `e` is the physical key `name` (whatever the keyboard layout types). */
export const keyIs = (e, name) => e.code === name;

/** A key the window handles (pane toggles): xterm must not take it. */
export function isPaneShortcut(e) {
  const mod = e.ctrlKey || e.metaKey;
  if (!mod) return false;
  if (keyIs(e, "Backquote") && !e.shiftKey && !e.altKey) return true;
  return e.shiftKey && !e.altKey && ["KeyE", "KeyG"].includes(e.code);
}

class TermView {
  constructor(lib, terminalId, sessionId, pane) {
    this.terminalId = terminalId;
    this.sessionId = sessionId;
    this.title = "";
    this.ended = false;
    this.el = h("div", { class: "term-view", testid: "terminal-view", dataset: { terminalId }, hidden: true });
    const term = new lib.Terminal({
      allowProposedApi: true, // the search addon's match highlights
      cursorBlink: true,
      fontFamily: cssVar("--mono", "monospace"),
      fontSize: 13,
      scrollback: 10_000,
      theme: { background: cssVar("--term-bg", "#14161b"), foreground: cssVar("--term-fg", "#e3e6ec") },
    });
    this.term = term;
    this.fit = new lib.FitAddon();
    this.search = new lib.SearchAddon();
    term.loadAddon(this.fit);
    term.loadAddon(this.search);
    term.loadAddon(new lib.WebLinksAddon((_event, uri) => window.open(uri, "_blank", "noopener,noreferrer")));
    term.open(this.el);
    term.onData((data) => pane.state.input(terminalId, data));
    term.onResize(({ cols, rows }) => pane.state.resize(terminalId, cols, rows));
    term.onSelectionChange(() => pane.selectionChanged(this));
    term.onTitleChange((t) => pane.retitle(this, t));
    term.attachCustomKeyEventHandler((e) => {
      if (e.type !== "keydown") return true;
      if (isPaneShortcut(e)) return false; // the window's (views/panes.js)
      const shifted = (e.ctrlKey || e.metaKey) && e.shiftKey && !e.altKey;
      if (shifted && keyIs(e, "KeyC")) {
        e.preventDefault();
        pane.copySelection(this);
        return false;
      }
      if (shifted && keyIs(e, "KeyV")) return false; // the browser pastes; xterm sends the paste
      if (shifted && keyIs(e, "KeyF")) {
        e.preventDefault();
        pane.openFind();
        return false;
      }
      return true;
    });
    this.sink = {
      write: (bytes, done) => term.write(bytes, done),
      reset: () => term.reset(),
      ended: (code, gone) => {
        this.ended = true;
        if (!gone) term.write(`\r\n\x1b[2m${TEXT.exited(code)}\x1b[0m\r\n`);
        pane.renderTabs();
      },
    };
  }

  /** Fit the terminal to its box (only while it is shown: a hidden box measures nothing). */
  fitNow() {
    if (this.el.hidden || !this.el.isConnected || !this.el.clientWidth) return;
    try {
      this.fit.fit();
    } catch {
      /* not measurable yet */
    }
  }

  /** The text the terminal shows now (its active buffer), for tests and copy. */
  text() {
    const buf = this.term.buffer.active;
    const out = [];
    for (let i = 0; i < buf.length; i++) out.push(buf.getLine(i)?.translateToString(true) ?? "");
    return out.join("\n");
  }

  dispose() {
    this.term.dispose();
    this.el.remove();
    sweepStyles();
  }
}

export class TerminalPane {
  /** @param {HTMLElement} root @param {{state, toast(msg, tone?), quote(text), hide()}} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.state = ctx.state;
    this.ctx = ctx;
    this.sessionId = null;
    this.visible = false;
    this.views = new Map(); // terminalId → TermView
    this.activeBySession = new Map();
    this.opening = null;
    this.tabs = h("div", { class: "term-tabs", role: "tablist", "aria-label": TEXT.tabs, testid: "terminal-tabs" });
    const add = h("button", { type: "button", class: "btn btn-icon", testid: "terminal-new", title: TEXT.newTab, "aria-label": TEXT.newTab }, icon("plus"));
    add.addEventListener("click", () => this.openNew());
    this.sendBtn = h("button", { type: "button", class: "btn btn-small", testid: "terminal-send", title: TEXT.sendTitle, disabled: true }, icon("send"), h("span", { class: "btn-label" }, TEXT.send));
    this.sendBtn.addEventListener("click", () => this.sendSelection());
    const copy = h("button", { type: "button", class: "btn btn-icon", testid: "terminal-copy", title: TEXT.copy, "aria-label": TEXT.copy }, icon("copy"));
    copy.addEventListener("click", () => this.active && this.copySelection(this.active));
    const find = h("button", { type: "button", class: "btn btn-icon", testid: "terminal-find", title: TEXT.find, "aria-label": TEXT.find }, icon("search"));
    find.addEventListener("click", () => this.openFind());
    const hide = h("button", { type: "button", class: "btn btn-icon", testid: "terminal-hide", title: TEXT.hide, "aria-label": TEXT.hide }, icon("x"));
    hide.addEventListener("click", () => ctx.hide());
    this.findInput = h("input", { type: "search", class: "input term-find-input", testid: "terminal-find-input", placeholder: TEXT.findPlaceholder, "aria-label": TEXT.find });
    this.findInput.addEventListener("keydown", (e) => {
      if (e.key === "Enter") this.findStep(!e.shiftKey);
      if (e.key === "Escape") this.closeFind();
    });
    this.findInput.addEventListener("input", () => this.findStep(true, true));
    const prev = h("button", { type: "button", class: "btn btn-icon", title: TEXT.previous, "aria-label": TEXT.previous }, icon("up"));
    prev.addEventListener("click", () => this.findStep(false));
    const next = h("button", { type: "button", class: "btn btn-icon", title: TEXT.next, "aria-label": TEXT.next }, icon("down"));
    next.addEventListener("click", () => this.findStep(true));
    const closeFind = h("button", { type: "button", class: "btn btn-icon", title: TEXT.closeFind, "aria-label": TEXT.closeFind }, icon("x"));
    closeFind.addEventListener("click", () => this.closeFind());
    this.findBar = h("div", { class: "term-find", testid: "terminal-find-bar", hidden: true }, this.findInput, prev, next, closeFind);
    this.note = h("p", { class: "term-note", testid: "terminal-note", hidden: true });
    this.body = h("div", { class: "term-body", testid: "terminal-body" });
    root.append(
      h("div", { class: "pane-head term-head" }, h("h2", { class: "panel-title" }, icon("terminal"), TEXT.pane), this.tabs, add, h("span", { class: "spacer" }), this.sendBtn, copy, find, hide),
      this.findBar,
      this.note,
      this.body,
    );
    new ResizeObserver(() => this.active?.fitNow()).observe(this.body);
    this.state.on("list", (sid) => sid === this.sessionId && this.sync());
    this.state.on("unknown", (sid) => sid === this.sessionId && this.state.list(sid));
  }

  get active() {
    return this.views.get(this.activeBySession.get(this.sessionId)) ?? null;
  }

  /** Follow the open session (null: none). */
  setSession(sessionId) {
    if (sessionId === this.sessionId) return;
    this.sessionId = sessionId;
    this.closeFind();
    if (this.visible) this.refresh();
    else this.renderTabs();
  }

  /** The layout shows or hides the pane. */
  setVisible(visible) {
    const was = this.visible;
    this.visible = visible;
    if (visible && !was) this.refresh({ openIfNone: true });
  }

  /** Focus the active terminal (once there is one: the pane may still be listing them). */
  focus() {
    const view = this.active;
    this.wantFocus = !view;
    view?.term.focus();
  }

  /** List the session's terminals; with `openIfNone`, start one when it has none. */
  async refresh({ openIfNone = false } = {}) {
    const sid = this.sessionId;
    this.showNote(sid ? null : TEXT.noSession);
    if (!sid) return this.sync();
    const r = await this.state.list(sid);
    if (sid !== this.sessionId) return;
    if (!r.ok) return this.showNote(`${TEXT.failed}: ${r.error?.message ?? ""}`);
    if (openIfNone && this.visible && !(this.state.lists.get(sid) ?? []).some((t) => t.alive)) await this.openNew();
    else await this.sync();
  }

  async openNew() {
    const sid = this.sessionId;
    if (!sid || this.opening) return;
    this.showNote(TEXT.loading);
    const size = this.active?.fit.proposeDimensions?.() ?? null;
    this.opening = this.state.open(sid, Math.max(2, size?.cols ?? 80), Math.max(1, size?.rows ?? 24));
    try {
      const r = await this.opening;
      if (!r.ok) return this.showNote(`${TEXT.failed}: ${r.error?.message ?? ""}`);
      this.showNote(null);
      this.activeBySession.set(sid, r.value.terminalId);
      await this.sync();
      this.focus();
    } finally {
      this.opening = null;
    }
  }

  /** Views for the session's terminals (attached once), the active one shown. */
  async sync() {
    const sid = this.sessionId;
    const items = sid ? this.state.lists.get(sid) ?? [] : [];
    if (items.length) {
      const x = await loadXterm();
      for (const t of items) {
        if (this.views.has(t.terminalId)) continue;
        const view = new TermView(x, t.terminalId, sid, this);
        view.title = t.title;
        this.views.set(t.terminalId, view);
        this.body.append(view.el);
        this.state.attach(t.terminalId, sid, view.sink);
      }
    }
    for (const [id, view] of this.views) {
      if (view.sessionId === sid && !items.some((t) => t.terminalId === id)) this.drop(id);
    }
    if (!items.some((t) => t.terminalId === this.activeBySession.get(sid))) this.activeBySession.set(sid, items.at(-1)?.terminalId);
    if (sid === this.sessionId) this.show(this.activeBySession.get(sid));
  }

  show(terminalId) {
    this.activeBySession.set(this.sessionId, terminalId);
    for (const [id, view] of this.views) view.el.hidden = id !== terminalId || view.sessionId !== this.sessionId;
    this.active?.fitNow();
    this.selectionChanged(this.active);
    this.renderTabs();
    if (this.wantFocus && this.active && this.visible) this.focus();
  }

  drop(terminalId) {
    this.views.get(terminalId)?.dispose();
    this.views.delete(terminalId);
    this.state.detach(terminalId);
  }

  renderTabs() {
    clear(this.tabs);
    const sid = this.sessionId;
    const items = sid ? this.state.lists.get(sid) ?? [] : [];
    const current = this.activeBySession.get(sid);
    for (const t of items) {
      const view = this.views.get(t.terminalId);
      const title = view?.title || t.title || TEXT.pane;
      const ended = view?.ended || !t.alive;
      const tab = h("button", { type: "button", role: "tab", class: ["term-tab", t.terminalId === current && "is-active", ended && "is-ended"], testid: "terminal-tab", "aria-selected": String(t.terminalId === current), dataset: { terminalId: t.terminalId }, title: t.cwd }, h("span", { class: "term-tab-title" }, ended ? `${title} (${TEXT.ended})` : title));
      tab.addEventListener("click", () => {
        this.show(t.terminalId);
        this.focus();
      });
      const close = h("button", { type: "button", class: "btn btn-icon term-tab-close", testid: "terminal-close", title: TEXT.closeTab(title), "aria-label": TEXT.closeTab(title) }, icon("x"));
      close.addEventListener("click", (e) => {
        e.stopPropagation();
        this.closeTerminal(t.terminalId);
      });
      this.tabs.append(h("span", { class: "term-tab-wrap" }, tab, close));
    }
  }

  async closeTerminal(terminalId) {
    this.drop(terminalId);
    const r = await this.state.close(terminalId);
    if (!r.ok && r.error?.code !== "terminal-not-found") this.ctx.toast(r.error?.message ?? TEXT.failed);
  }

  retitle(view, title) {
    view.title = title;
    this.renderTabs();
  }

  selectionChanged(view) {
    if (view && view !== this.active) return;
    this.sendBtn.disabled = !view?.term.hasSelection();
  }

  async copySelection(view) {
    const text = view.term.getSelection();
    if (text && (await copyText(text))) this.ctx.toast(TEXT.copied, "info");
  }

  sendSelection() {
    const text = quoteBlock(this.active?.term.getSelection() ?? "");
    if (text) this.ctx.quote(text);
  }

  openFind() {
    this.findBar.hidden = false;
    this.findInput.focus();
    this.findInput.select();
  }

  closeFind() {
    this.findBar.hidden = true;
    this.active?.search.clearDecorations();
  }

  findStep(forward, incremental = false) {
    const view = this.active;
    const q = this.findInput.value;
    if (!view || !q) return;
    const options = { incremental, decorations: { matchOverviewRuler: "#888", activeMatchColorOverviewRuler: "#fa0", matchBackground: "#665500", activeMatchBackground: "#aa7700" } };
    if (forward) view.search.findNext(q, options);
    else view.search.findPrevious(q, options);
  }

  showNote(text) {
    this.note.hidden = !text;
    this.note.textContent = text ?? "";
  }

  /** The connection came back: every terminal replays what it missed. */
  reconnected() {
    this.state.reattachAll();
    if (this.visible) this.refresh();
  }
}
