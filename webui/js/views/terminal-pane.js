// The Terminal pane (docs/decisions.md, "Terminal and files"): one or more tabs per session, each
// the person's login shell on the host drawn by xterm.js (loaded the first time the pane opens),
// with fit, find and clickable links. Ctrl+Shift+C copies the selection, Ctrl+Shift+V pastes,
// Ctrl+Shift+F finds; "Send to agent" quotes the selection in the message box. The calls and the
// output's bookkeeping are state/terminals.js; a terminal outlives the page (reload: replayed).

import { h, icon, clear, copyText } from "./dom.js";
import { t } from "../i18n/i18n.js";
import { describeError } from "../state/problems.js";
import { installCspStyles, sweepStyles } from "./xterm-csp.js";
import { quoteBlock } from "../state/terminals.js";

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

/** Ctrl+` (the terminal's toggle): the key's code, whatever the layout prints on it. */
export const isBackquote = (e) => keyIs(e, "Backquote");

/** A key the window handles (pane toggles): xterm must not take it. */
export function isPaneShortcut(e) {
  const mod = e.ctrlKey || e.metaKey;
  if (!mod) return false;
  if (isBackquote(e) && !e.shiftKey && !e.altKey) return true;
  return e.shiftKey && !e.altKey && ["KeyE", "KeyG"].includes(e.code);
}

/** Whether Tab (or Shift+Tab) right after Escape: the way out of the terminal by keyboard, which
 * otherwise sends Tab to the shell (docs/decisions/keyboard-reach.md). */
export const leavesTerminal = (e, escaped) => escaped && e.key === "Tab" && !e.ctrlKey && !e.altKey && !e.metaKey;

class TermView {
  constructor(lib, terminalId, sessionId, pane) {
    this.terminalId = terminalId;
    this.sessionId = sessionId;
    this.title = "";
    this.ended = false;
    this.el = h("div", { class: "term-view", testid: "terminal-view", translate: "no", dataset: { terminalId }, hidden: true }); // the shell's own words
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
    term.onTitleChange((title) => pane.retitle(this, title));
    let escaped = false; // Esc, then Tab: the focus leaves the terminal (the shell keeps Tab otherwise)
    term.attachCustomKeyEventHandler((e) => {
      if (e.type !== "keydown") return true;
      if (isPaneShortcut(e)) return false; // the window's (views/panes.js)
      if (/^(Shift|Control|Alt|Meta)$/.test(e.key)) return true; // a modifier alone: wait for its key
      if (leavesTerminal(e, escaped)) return (escaped = false); // the browser moves the focus
      escaped = e.key === "Escape" && !e.ctrlKey && !e.altKey && !e.metaKey;
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
        if (!gone) term.write(`\r\n\x1b[2m${(code == null ? t("terminal.shellEnded") : t("terminal.shellExited", { code }))}\x1b[0m\r\n`);
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

  /** The text the terminal holds now (its active buffer), a wrapped line as one, for tests and copy. */
  text() {
    const buf = this.term.buffer.active;
    const out = [];
    for (let i = 0; i < buf.length; i++) {
      const line = buf.getLine(i);
      const text = line?.translateToString(!buf.getLine(i + 1)?.isWrapped) ?? ""; // a wrapped row keeps its spaces
      if (line?.isWrapped && out.length) out[out.length - 1] += text; // rows a long line wrapped onto: one line
      else out.push(text);
    }
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
    this.tabs = h("div", { class: "term-tabs", role: "tablist", "aria-label": t("terminal.tabs"), testid: "terminal-tabs" });
    this.tabs.addEventListener("keydown", (e) => this.onTabKey(e)); // ←/→, Home/End between the tabs
    const add = h("button", { type: "button", class: "btn btn-icon", testid: "terminal-new", title: t("terminal.newTab"), "aria-label": t("terminal.newTab") }, icon("plus"));
    add.addEventListener("click", () => this.openNew());
    this.sendBtn = h("button", { type: "button", class: "btn btn-small", testid: "terminal-send", title: t("terminal.sendTitle"), disabled: true }, icon("send"), h("span", { class: "btn-label" }, t("terminal.send")));
    this.sendBtn.addEventListener("click", () => this.sendSelection());
    const copy = h("button", { type: "button", class: "btn btn-icon", testid: "terminal-copy", title: t("terminal.copy"), "aria-label": t("terminal.copy") }, icon("copy"));
    copy.addEventListener("click", () => this.active && this.copySelection(this.active));
    const find = h("button", { type: "button", class: "btn btn-icon", testid: "terminal-find", title: t("terminal.find"), "aria-label": t("terminal.find") }, icon("search"));
    find.addEventListener("click", () => this.openFind());
    const hide = h("button", { type: "button", class: "btn btn-icon", testid: "terminal-hide", title: t("terminal.hide"), "aria-label": t("terminal.hide") }, icon("x"));
    hide.addEventListener("click", () => ctx.hide());
    this.findInput = h("input", { type: "search", class: "input term-find-input", testid: "terminal-find-input", placeholder: t("terminal.findPlaceholder"), "aria-label": t("terminal.find") });
    this.findInput.addEventListener("keydown", (e) => {
      if (e.key === "Enter") this.findStep(!e.shiftKey);
      if (e.key === "Escape") this.closeFind();
    });
    this.findInput.addEventListener("input", () => this.findStep(true, true));
    const prev = h("button", { type: "button", class: "btn btn-icon", title: t("terminal.previous"), "aria-label": t("terminal.previous") }, icon("up"));
    prev.addEventListener("click", () => this.findStep(false));
    const next = h("button", { type: "button", class: "btn btn-icon", title: t("terminal.next"), "aria-label": t("terminal.next") }, icon("down"));
    next.addEventListener("click", () => this.findStep(true));
    const closeFind = h("button", { type: "button", class: "btn btn-icon", title: t("terminal.closeFind"), "aria-label": t("terminal.closeFind") }, icon("x"));
    closeFind.addEventListener("click", () => this.closeFind());
    this.findBar = h("div", { class: "term-find", testid: "terminal-find-bar", hidden: true }, this.findInput, prev, next, closeFind);
    this.note = h("p", { class: "term-note", testid: "terminal-note", hidden: true });
    this.body = h("div", { class: "term-body", testid: "terminal-body" });
    root.append(
      h("div", { class: "pane-head term-head" }, h("h2", { class: "panel-title" }, icon("terminal"), t("terminal.pane")), this.tabs, add, h("span", { class: "spacer" }), this.sendBtn, copy, find, hide),
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

  /** The layout shows or hides the pane; `byPerson`: the person asked for it just now (Ctrl+`,
   * the pane's button), and only then does a shell start when the session has none: a restored
   * layout, a reload or a session switch never starts one (docs/decisions.md, "Terminal and
   * files"). */
  setVisible(visible, byPerson = false) {
    const was = this.visible;
    this.visible = visible;
    if (visible && !was) this.refresh({ openIfNone: byPerson });
  }

  /** The person asked for the terminal while the pane was open (Ctrl+`): focus it, starting a
   * shell when the session has none alive. */
  async summon() {
    this.wantFocus = true;
    await this.refresh({ openIfNone: true });
    this.focus();
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
    this.showNote(sid ? null : t("terminal.noSession"));
    if (!sid) return this.sync();
    const r = await this.state.list(sid);
    if (sid !== this.sessionId) return;
    if (!r.ok) return this.showNote(t("terminal.failed", { reason: describeError(r.error) }));
    if (openIfNone && this.visible && !(this.state.lists.get(sid) ?? []).some((x) => x.alive)) return this.openNew();
    await this.sync();
    if (sid === this.sessionId && !this.opening && !(this.state.lists.get(sid) ?? []).length) this.showNote(t("terminal.none"));
  }

  async openNew() {
    const sid = this.sessionId;
    if (!sid || this.opening) return;
    this.showNote(t("terminal.loading"));
    const size = this.active?.fit.proposeDimensions?.() ?? null;
    this.opening = this.state.open(sid, Math.max(2, size?.cols ?? 80), Math.max(1, size?.rows ?? 24));
    try {
      const r = await this.opening;
      if (!r.ok) return this.showNote(t("terminal.failed", { reason: describeError(r.error) }));
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
      for (const item of items) {
        if (this.views.has(item.terminalId)) continue;
        const view = new TermView(x, item.terminalId, sid, this);
        view.title = item.title;
        this.views.set(item.terminalId, view);
        this.body.append(view.el);
        this.state.attach(item.terminalId, sid, view.sink);
      }
    }
    for (const [id, view] of this.views) {
      if (view.sessionId === sid && !items.some((x) => x.terminalId === id)) this.drop(id);
    }
    if (!items.some((x) => x.terminalId === this.activeBySession.get(sid))) this.activeBySession.set(sid, items.at(-1)?.terminalId);
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
    for (const item of items) {
      const view = this.views.get(item.terminalId);
      const title = view?.title || item.title || t("terminal.pane");
      const ended = view?.ended || !item.alive;
      const tab = h("button", { type: "button", role: "tab", class: ["term-tab", item.terminalId === current && "is-active", ended && "is-ended"], testid: "terminal-tab", "aria-selected": String(item.terminalId === current), dataset: { terminalId: item.terminalId }, title: item.cwd, translate: ended ? undefined : "no" }, ended ? h("span", { class: "term-tab-title" }, t("terminal.ended", { title })) : h("span", { class: "term-tab-title", translate: "no" }, title));
      tab.addEventListener("click", () => {
        this.show(item.terminalId);
        this.focus();
      });
      const close = h("button", { type: "button", class: "btn btn-icon term-tab-close", testid: "terminal-close", title: t("terminal.closeTab", { title }), "aria-label": t("terminal.closeTab", { title }) }, icon("x"));
      close.addEventListener("click", (e) => {
        e.stopPropagation();
        this.closeTerminal(item.terminalId);
      });
      tab.tabIndex = item.terminalId === current ? 0 : -1; // one Tab stop: the shown tab (the arrows reach the rest)
      this.tabs.append(h("span", { class: "term-tab-wrap" }, tab, close));
    }
    const tabs = [...this.tabs.querySelectorAll("[role=tab]")];
    if (tabs.length && !tabs.some((b) => b.tabIndex === 0)) tabs[0].tabIndex = 0;
  }

  /** A tab list's keys (docs/decisions/keyboard-reach.md): ←/→ the previous and next tab, Home/End
   * the first and last; Enter or Space shows the focused one. */
  onTabKey(e) {
    const tabs = [...this.tabs.querySelectorAll("[role=tab]")];
    const i = tabs.indexOf(e.target);
    if (i < 0 || e.altKey || e.ctrlKey || e.metaKey) return;
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    tabs[(to + tabs.length) % tabs.length].focus();
  }

  async closeTerminal(terminalId) {
    this.drop(terminalId);
    const r = await this.state.close(terminalId);
    if (!r.ok && r.error?.code !== "terminal-not-found") this.ctx.toast(r.error ? describeError(r.error) : t("terminal.failedShort"));
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
    if (text && (await copyText(text))) this.ctx.toast(t("terminal.copied"), "info");
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
