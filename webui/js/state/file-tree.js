// The Files pane's state (docs/decisions.md, "Terminal and files"): the open session's folder as
// a lazily loaded tree (`files.tree`, one level per call), which folders are open, the name
// filter, ignored files shown or not, and the file the viewer shows (`files.read`, in ranges as
// it scrolls). `files/changed` frames re-read the loaded folders they concern. Pure: no DOM.

import { Emitter } from "./emitter.js";

export const PAGE_LINES = 2000;

/** The folder that holds `path` ("" for the top). */
export function parentOf(path) {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

export function nameOf(path) {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** highlight.js's language for a file name, or null. */
export function languageOf(path) {
  const name = nameOf(path).toLowerCase();
  if (name === "dockerfile" || name === "makefile") return "bash";
  const ext = name.includes(".") ? name.slice(name.lastIndexOf(".") + 1) : "";
  const map = {
    py: "python", js: "javascript", mjs: "javascript", cjs: "javascript", jsx: "javascript", ts: "typescript", tsx: "typescript",
    json: "json", md: "markdown", sh: "bash", bash: "bash", zsh: "bash", c: "c", h: "c", cpp: "cpp", cc: "cpp", hpp: "cpp",
    go: "go", java: "java", rs: "rust", sql: "sql", yml: "yaml", yaml: "yaml", css: "css", html: "xml", xml: "xml", svg: "xml",
    diff: "diff", patch: "diff",
  };
  return map[ext] ?? null;
}

/** The loaded entries a name filter keeps: those whose name matches, and the folders on their
 * way (the tree shows where they are). */
export function filterEntries(levels, query) {
  const q = query.trim().toLowerCase();
  if (!q) return null;
  const keep = new Set();
  for (const entries of levels.values()) {
    for (const e of entries) {
      if (!nameOf(e.path).toLowerCase().includes(q)) continue;
      keep.add(e.path);
      for (let p = parentOf(e.path); p; p = parentOf(p)) keep.add(p);
    }
  }
  return keep;
}

export class FileTreeState extends Emitter {
  /** @param {{client}} deps */
  constructor({ client }) {
    super();
    this.client = client;
    this.sessionId = null;
    this.levels = new Map(); // folder path → entries (loaded)
    this.open = new Set([""]);
    this.showIgnored = false;
    this.filter = "";
    this.error = null;
    this.git = { repo: false, withheld: null };
    this.file = null; // {path, text, startLine, lines, totalLines, truncated, binary, image, size, error}
    this.seq = 0;
  }

  set(sessionId) {
    if (sessionId === this.sessionId) return;
    this.sessionId = sessionId;
    this.levels = new Map();
    this.open = new Set([""]);
    this.file = null;
    this.error = null;
    this.emit("change");
  }

  /** Load the top and every open folder again. */
  async reload() {
    await Promise.all([...this.open].map((p) => this.load(p)));
  }

  async load(path) {
    const sid = this.sessionId;
    if (!sid) return;
    const r = await this.client.call("files.tree", { sessionId: sid, path, showIgnored: this.showIgnored });
    if (sid !== this.sessionId) return;
    if (r.ok) {
      this.levels.set(path, r.value.entries);
      if (path === "") this.git = { repo: r.value.repo, withheld: r.value.gitWithheld ?? null };
      this.error = null;
    } else if (path === "") {
      this.error = r.error;
    } else {
      this.levels.delete(path);
      this.open.delete(path);
    }
    this.emit("change");
  }

  toggle(path) {
    if (this.open.has(path)) {
      this.open.delete(path);
      this.emit("change");
    } else {
      this.open.add(path);
      if (this.levels.has(path)) this.emit("change");
      else this.load(path);
    }
  }

  setShowIgnored(show) {
    this.showIgnored = show;
    this.reload();
  }

  setFilter(text) {
    this.filter = text;
    this.emit("change");
  }

  /** `files/changed` of this session: re-read the loaded folders holding what changed. */
  changed(paths) {
    const all = paths.includes("");
    const folders = new Set();
    for (const p of paths) {
      for (let f = parentOf(p); ; f = parentOf(f)) {
        if (this.levels.has(f) && this.open.has(f)) folders.add(f);
        if (!f) break;
      }
    }
    for (const f of all ? [...this.open] : folders) if (this.levels.has(f)) this.load(f);
    if (this.file && (all || paths.includes(this.file.path))) this.read(this.file.path, { again: true });
  }

  /** Show `path` in the viewer (its first page); `again`: as many lines as were shown. */
  async read(path, { again = false } = {}) {
    const sid = this.sessionId;
    const seq = ++this.seq;
    const lines = again && this.file?.path === path ? Math.max(PAGE_LINES, this.file.lines) : PAGE_LINES;
    const r = await this.client.call("files.read", { sessionId: sid, path, startLine: 1, maxLines: Math.min(lines, 20_000) });
    if (seq !== this.seq || sid !== this.sessionId) return;
    this.file = r.ok ? { path, ...r.value, error: null } : { path, text: "", lines: 0, totalLines: 0, truncated: false, binary: false, error: r.error };
    this.emit("file", { again });
  }

  /** The next page of the file shown (the viewer scrolled near its end). */
  async more() {
    const f = this.file;
    if (!f || !f.truncated || this.loadingMore) return;
    this.loadingMore = true;
    try {
      const start = f.startLine + f.lines;
      const r = await this.client.call("files.read", { sessionId: this.sessionId, path: f.path, startLine: start, maxLines: PAGE_LINES });
      if (this.file !== f || !r.ok) return;
      this.file = { ...f, text: `${f.text}\n${r.value.text}`, lines: f.lines + r.value.lines, totalLines: r.value.totalLines, truncated: r.value.truncated };
      this.emit("more", { text: r.value.text, startLine: start });
    } finally {
      this.loadingMore = false;
    }
  }

  closeFile() {
    this.file = null;
    this.seq++;
    this.emit("file", {});
  }
}
