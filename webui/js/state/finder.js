// `@` in the composer (docs/architecture.md, "The @ finder"): which `@token` the caret is in,
// what choosing a match leaves in the text, the chips a message carries, and the one client call
// (finder.find). Everything but `FinderQueries` is PURE.

import { number, t } from "../i18n/i18n.js";


/** The `@token` around the caret: {start, end, query} or null. `@` starts the text or follows
 * whitespace (so an e-mail address never opens the finder); the token runs to the next space. */
export function atToken(text, caret) {
  const before = text.slice(0, caret);
  const m = /(^|\s)@([^\s@]*)$/.exec(before);
  if (!m) return null;
  const start = caret - m[2].length - 1;
  let end = caret;
  while (end < text.length && !/[\s@]/.test(text[end])) end++;
  return { start, end, query: m[2] + text.slice(caret, end) };
}

/** The text once the `@token` became a chip: the token goes, one space stays between words. */
export function removeToken(text, token) {
  const head = text.slice(0, token.start);
  let rest = text.slice(token.end);
  if ((head === "" || /\s$/.test(head)) && rest.startsWith(" ")) rest = rest.slice(1);
  return { text: head + rest, caret: head.length };
}

/** A chip for a match: {path, kind, size, cut} (a resource also {server, uri, mimeType}); `cut`
 * when the host will send only the first `cap` bytes. */
export function chipFor(match, cap) {
  const cut = match.kind !== "folder" && match.size != null && match.size > cap;
  if (match.kind === "resource") {
    const r = match.resource;
    return { path: match.path, kind: "resource", size: match.size ?? null, cut, server: r.server, uri: r.uri, mimeType: r.mimeType ?? null };
  }
  return { path: match.path, kind: match.kind, size: match.size ?? null, cut };
}

/** A logged `attached` (a sent message's part) as a composer chip again (edit and resend). */
export function chipOfAttached(a) {
  const chip = { path: a.path, kind: a.kind, size: a.size, cut: a.truncated };
  return a.kind === "resource" ? { ...chip, server: a.server, uri: a.uri, mimeType: a.mimeType ?? null } : chip;
}

/** What session.prompt's `attach` names for a chip (or a logged `attached`): a path, or a
 * resource's server and uri (read again at send time). */
export function attachOf(chip) {
  return chip.kind === "resource" ? { server: chip.server, uri: chip.uri } : { path: chip.path };
}

function chipKey(chip) {
  return chip.kind === "resource" ? `resource ${chip.server} ${chip.uri}` : `path ${chip.path}`;
}

/** Add a chip unless it is already attached; returns the new list. */
export function addChip(chips, chip) {
  return chips.some((c) => chipKey(c) === chipKey(chip)) ? chips : [...chips, chip];
}

/** The menu's note on MCP servers that could not list their resources (or ""). */
export function problemsNote(problems) {
  const n = problems?.length ?? 0;
  if (!n) return "";
  return n === 1 ? t("finder.resourcesUnavailableOne", { server: problems[0].split(":")[0] }) : t("finder.resourcesUnavailable", { count: n });
}

/** The chips of a logged message: its text parts marked `attached`. */
export function attachedOf(content) {
  return (content ?? []).filter((b) => b?.type === "text" && b.attached).map((b) => b.attached);
}

/** A logged message's own words (its text parts that are not attached files or resources, nor
 * review comments: those show as chips). */
export function ownText(content) {
  return (content ?? []).filter((b) => b?.type === "text" && !b.attached && !b.review).map((b) => b.text);
}

/** A logged message's review comments (docs/decisions/review-pane.md): its text parts marked `review`. */
export function reviewsOf(content) {
  return (content ?? []).filter((b) => b?.type === "text" && b.review).map((b) => b.review);
}

/** "12 KB" style sizes for chips and the menu. */
export function formatSize(bytes) {
  if (bytes == null) return "";
  if (bytes < 1024) return `${number(bytes)} B`;
  if (bytes < 1024 * 1024) return `${number(Math.round(bytes / 1024))} KB`;
  return `${number(bytes / (1024 * 1024), { minimumFractionDigits: 1, maximumFractionDigits: 1 })} MB`;
}

/** What a chip says about itself (its title and, when cut, its note). */
export function chipNote(chip, cap) {
  if (chip.kind === "folder") return chip.truncated ? t("finder.folderCut", { count: chip.size }) : "";
  if (chip.binary) return t("finder.binary");
  if (chip.cut || chip.truncated) return t("finder.fileCut", { cap: formatSize(cap), size: formatSize(chip.size) });
  return "";
}

/** Path segments with the matched letters marked: [{text, hit}] runs. */
export function highlightRuns(path, hits) {
  const at = new Set(hits ?? []);
  const runs = [];
  for (let i = 0; i < path.length; i++) {
    const hit = at.has(i);
    const last = runs[runs.length - 1];
    if (last && last.hit === hit) last.text += path[i];
    else runs.push({ text: path[i], hit });
  }
  return runs;
}

/** finder.find for the open session; answers arrive in order (a stale one is dropped). */
export class FinderQueries {
  /** @param client the API client @param {() => string | null} sessionId the open session */
  constructor(client, sessionId) {
    this.client = client;
    this.sessionId = sessionId;
    this.seq = 0;
    this.cap = 64 * 1024;
  }

  /** {matches, partial, error} for `query`, or null when a newer query was asked meanwhile. */
  async find(query) {
    const sid = this.sessionId();
    if (!sid) return { matches: [], partial: false, error: t("finder.openSession"), problems: [] };
    const seq = ++this.seq;
    const r = await this.client.call("finder.find", { sessionId: sid, query, limit: 30 });
    if (seq !== this.seq) return null;
    if (!r.ok) return { matches: [], partial: false, error: r.error.message, problems: [] };
    this.cap = r.value.attachCapBytes;
    return { matches: r.value.matches, partial: r.value.partial, error: null, problems: r.value.resourceProblems ?? [] };
  }
}
