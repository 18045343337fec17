// The Files pane (docs/decisions.md, "Terminal and files"): the open session's folder as a tree
// (folders open one level at a time), git's marks and what this session changed, a name filter,
// ignored files on demand; a click opens the file in the viewer (views/file-viewer.js). The
// calls and the data are state/file-tree.js; the tree follows `files/changed`.

import { h, icon, clear } from "./dom.js";
import { t } from "../i18n/i18n.js";
import { describeError } from "../state/problems.js";
import { FileViewer } from "./file-viewer.js";
import { filterEntries, nameOf } from "../state/file-tree.js";

/** git status's own letters for the marks (the word is in the catalogues: files.git.*). */
const GIT_LETTERS = { modified: "M", added: "A", deleted: "D", renamed: "R", untracked: "U", ignored: "I" };

export class FilesPane {
  /** @param {HTMLElement} root @param {{state, toast, hide(), attach(path, size), openPath(path), canOpen(), cwd()}} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.state = ctx.state;
    this.ctx = ctx;
    this.visible = false;
    this.filter = h("input", { type: "search", class: "input files-filter", testid: "files-filter", placeholder: t("files.filter"), "aria-label": t("files.filter") });
    this.filter.addEventListener("input", () => this.state.setFilter(this.filter.value));
    this.ignored = h("input", { type: "checkbox", testid: "files-show-ignored" });
    this.ignored.addEventListener("change", () => this.state.setShowIgnored(this.ignored.checked));
    const hide = h("button", { type: "button", class: "btn btn-icon", testid: "files-hide", title: t("files.hide"), "aria-label": t("files.hide") }, icon("x"));
    hide.addEventListener("click", () => ctx.hide());
    this.note = h("p", { class: "files-note", testid: "files-note", hidden: true });
    this.tree = h("ul", { class: "files-tree", role: "tree", "aria-label": t("files.pane"), testid: "files-tree" });
    this.current = null; // the row Tab lands on (one stop for the tree; the arrows move inside it)
    this.tree.addEventListener("keydown", (e) => this.onTreeKey(e));
    this.tree.addEventListener("focusin", (e) => e.target.dataset?.path !== undefined && (this.current = e.target.dataset.path));
    this.treeWrap = h("div", { class: "files-tree-wrap" }, this.note, this.tree);
    this.viewer = new FileViewer({ state: this.state, toast: ctx.toast, attach: ctx.attach, openPath: ctx.openPath, canOpen: ctx.canOpen, cwd: ctx.cwd, back: () => this.state.closeFile() });
    root.append(
      h("div", { class: "pane-head" }, h("h2", { class: "panel-title" }, icon("folder"), t("files.pane")), h("span", { class: "spacer" }), hide),
      h("div", { class: "files-tools" }, this.filter, h("label", { class: "files-ignored", title: t("files.showIgnoredTitle") }, this.ignored, t("files.showIgnored"))),
      this.treeWrap,
      this.viewer.el,
    );
    this.state.on("change", () => this.visible && this.render());
    this.state.on("file", () => this.renderMode());
  }

  setSession(sessionId) {
    this.state.set(sessionId);
    if (this.visible && sessionId) this.state.load("");
    this.render();
  }

  setVisible(visible) {
    const was = this.visible;
    this.visible = visible;
    if (visible && !was && this.state.sessionId) this.state.reload();
    if (visible) this.render();
  }

  focus() {
    (this.state.file ? this.viewer.el.querySelector("button") : this.tree.querySelector("[role=treeitem]") ?? this.filter)?.focus();
  }

  renderMode() {
    const viewing = !!this.state.file;
    this.viewer.el.hidden = !viewing;
    this.treeWrap.hidden = viewing;
  }

  render() {
    this.renderMode();
    const s = this.state;
    const had = this.tree.contains(document.activeElement); // a redraw keeps the keyboard's place
    clear(this.tree);
    const note = !s.sessionId ? t("files.noSession") : s.error ? describeError(s.error) : s.git.withheld ? t(`files.withheld.${s.git.withheld}`) : null;
    this.note.hidden = !note;
    this.note.textContent = note ?? "";
    if (!s.sessionId || !s.levels.has("")) return;
    const keep = filterEntries(s.levels, s.filter);
    const top = s.levels.get("");
    this.appendLevel(this.tree, top, keep, 1);
    if (!top.length) this.tree.append(h("li", { class: "list-empty" }, t("files.empty")));
    else if (keep && !keep.size) this.tree.append(h("li", { class: "list-empty", testid: "files-no-match" }, t("files.noMatch")));
    const rows = this.rows();
    const current = rows.find((r) => r.dataset.path === this.current) ?? rows[0];
    for (const r of rows) r.tabIndex = r === current ? 0 : -1;
    if (had) current?.focus();
  }

  rows() {
    return [...this.tree.querySelectorAll("[role=treeitem]")];
  }

  /** The tree's keys, as trees go (docs/decisions/keyboard-reach.md): ↓/↑ the next and previous
   * row, Home/End the first and last, → opens a folder or goes into it, ← closes it or goes to
   * its folder; Enter and Space press the row. */
  onTreeKey(e) {
    const row = e.target.closest?.("[role=treeitem]");
    if (!row || e.altKey || e.ctrlKey || e.metaKey) return;
    const rows = this.rows();
    const i = rows.indexOf(row);
    const open = row.getAttribute("aria-expanded");
    const parent = row.parentElement?.parentElement?.closest("li")?.querySelector(":scope > [role=treeitem]");
    const go = (to) => to && (e.preventDefault(), (this.current = to.dataset.path), to.focus());
    if (e.key === "ArrowDown") go(rows[i + 1]);
    else if (e.key === "ArrowUp") go(rows[i - 1]);
    else if (e.key === "Home") go(rows[0]);
    else if (e.key === "End") go(rows[rows.length - 1]);
    else if (e.key === "ArrowRight" && open === "false") {
      e.preventDefault();
      this.state.toggle(row.dataset.path);
    } else if (e.key === "ArrowRight" && open === "true") go(rows[i + 1]);
    else if (e.key === "ArrowLeft" && open === "true") {
      e.preventDefault();
      this.state.toggle(row.dataset.path);
    } else if (e.key === "ArrowLeft") go(parent);
  }

  appendLevel(list, entries, keep, depth) {
    const s = this.state;
    for (const e of entries) {
      if (keep && !keep.has(e.path)) continue;
      const folder = e.kind === "dir" || (e.kind === "symlink" && e.target === "dir");
      const open = folder && (s.open.has(e.path) || (keep && s.levels.has(e.path)));
      const mark = e.git ? [GIT_LETTERS[e.git], t(`files.git.${e.git}`)] : null;
      const row = h(
        "button",
        {
          type: "button",
          class: ["files-row", `is-${e.kind}`, e.git && `git-${e.git}`, e.changedBySession && "is-mine"],
          testid: "files-entry",
          role: "treeitem",
          "aria-expanded": folder ? String(!!open) : undefined,
          "aria-level": String(depth),
          dataset: { path: e.path, git: e.git ?? "", mine: e.changedBySession ? "1" : "" },
          title: e.path,
        },
        folder ? icon("chevron", `icon files-chevron${open ? " is-open" : ""}`) : h("span", { class: "files-chevron-gap" }),
        icon(folder ? "folder" : "file"),
        h("span", { class: "files-name", translate: "no" }, nameOf(e.path)),
        e.changedBySession ? h("span", { class: "files-mine", testid: "files-mine", title: t("files.mine"), "aria-label": t("files.mine") }, "●") : null,
        mark ? h("span", { class: "files-git", testid: "files-git", title: mark[1] }, mark[0]) : null,
      );
      row.style.paddingInlineStart = `${0.35 + (depth - 1) * 0.85}rem`; // CSSOM, not an inline style attribute
      row.addEventListener("click", () => {
        if (folder) s.toggle(e.path);
        else if (e.kind !== "symlink" || e.target === "file") s.read(e.path);
      });
      const item = h("li", { role: "none" }, row);
      list.append(item);
      if (open && s.levels.has(e.path)) {
        const sub = h("ul", { role: "group" });
        this.appendLevel(sub, s.levels.get(e.path), keep, depth + 1);
        item.append(sub);
      }
    }
  }
}
