// The slash menu's logic (PURE): which `/token` the caret is in, what it may complete to, and
// whether a line is a command. Commands must start the message (the host's grammar: slash at
// byte 0); skills may sit anywhere, bounded by whitespace (docs/architecture.md, "Skills").

import { t } from "../i18n/i18n.js";

/** Commands the web client runs itself (not in command.list). */
export const CLIENT_COMMANDS = [
  { name: "model", get description() { return t("slash.model"); } },
  { name: "new", get description() { return t("slash.new"); } },
  { name: "help", get description() { return t("slash.help"); } },
];

const COMMAND_LINE = /^\/([a-z][a-z0-9_-]*)(?=$|[ \t\r\n])/;

/** The `/token` around the caret: {start, end, query, atStart} or null. */
export function slashToken(text, caret) {
  const before = text.slice(0, caret);
  const m = /(^|\s)\/([a-z0-9_-]*)$/.exec(before);
  if (!m) return null;
  const start = caret - m[2].length - 1;
  let end = caret;
  while (end < text.length && /[a-z0-9_-]/.test(text[end])) end++;
  return { start, end, query: m[2] + text.slice(caret, end), atStart: start === 0 };
}

function rank(name, query) {
  if (!query) return 0;
  if (name.startsWith(query)) return 0;
  if (name.includes(query)) return 1;
  return -1;
}

/**
 * Menu entries for `token`: commands (host, then client-only) when the token starts the message,
 * then skills; prefix matches before substring matches, each group by name.
 * entry: {kind: "command"|"client"|"skill", name, description, hint}
 */
export function slashItems({ commands = [], skills = [] }, token) {
  if (!token) return [];
  const q = token.query.toLowerCase();
  const pick = (list, kind) =>
    list
      .map((x) => ({ kind, name: x.name, description: x.description ?? "", hint: x.input?.hint ?? null, r: rank(x.name, q) }))
      .filter((x) => x.r >= 0)
      .sort((a, b) => a.r - b.r || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out = token.atStart ? [...pick(commands, "command"), ...pick(CLIENT_COMMANDS, "client")] : [];
  return [...out, ...pick(skills, "skill")].map(({ r, ...x }) => x);
}

/** The text after choosing `item` for `token` in `text`: {text, caret}. */
export function applyChoice(text, token, item) {
  const insert = `/${item.name}`;
  const rest = text.slice(token.end);
  const spacer = rest.startsWith(" ") ? "" : " ";
  const next = text.slice(0, token.start) + insert + spacer + rest;
  return { text: next, caret: token.start + insert.length + 1 };
}

/** `{name, input}` when `text` starts with a command the session (or the client) knows. */
export function commandLine(text, names) {
  const m = COMMAND_LINE.exec(text);
  if (!m || !names.has(m[1])) return null;
  return { name: m[1], input: text.slice(m[0].length) };
}
