// The host's sentences in the page's language (docs/decisions.md, "Languages"). The host sends
// its English words and, where a person reads them often, the same as parts (`ScopeWords`,
// `ApprovalWhy`, a mode's value): these put the parts into the catalogue's words, and keep the
// host's own text when the parts are missing (an older event) or unknown. PURE.

import { has, t, tOr } from "../i18n/i18n.js";

const SCOPE_KINDS = new Set(["command", "exact-command", "folder", "project", "exact-arguments", "legacy", "any"]);
const ALWAYS_KINDS = new Set(["command", "exact-command", "folder", "exact-arguments"]);
const MODES = new Set(["read-only", "auto", "workspace-write", "danger-full-access"]);

/** A rule ("bash: npm test …") from its tool and `words`; `fallback`: the host's label. */
export function scopeText(tool, words, fallback = "") {
  if (!words || !SCOPE_KINDS.has(words.kind)) return fallback;
  return t(`scope.${words.kind}`, { tool, subject: words.subject ?? "" });
}

/** The "Allow always" button's text for an approval's `always` (AllowAlways). */
export function alwaysButton(always) {
  const kind = always?.words?.kind;
  if (ALWAYS_KINDS.has(kind)) return t(`always.${kind}.button`);
  return always?.button ?? t("always.command.button");
}

/** What "Allow always" would remember, for an approval of `tool` (`code` spans in backquotes). */
export function alwaysText(tool, always) {
  const kind = always?.words?.kind;
  if (!ALWAYS_KINDS.has(kind)) return always?.text ?? "";
  return t(`always.${kind}.text`, { tool, subject: always.words.subject ?? "" });
}

/** Why a call asks, from its tool, `why` (ApprovalWhy) and the host's `reason` (the fallback). */
export function approvalReason({ toolName, why, reason }) {
  if (!why) return reason ?? "";
  const parts = [];
  if (why.hook) parts.push(t("approval.hook", { why: why.hook }));
  if (why.mcpServer) parts.push(t(why.mcpReadOnly ? "approval.mcpReadOnly" : "approval.mcp", { tool: why.mcpTool ?? toolName, server: why.mcpServer }));
  if (why.leaving === "outside-sandbox" || why.leaving === "network") {
    parts.push(t(`approval.leaving.${why.leaving}`), t("approval.onlyInSandbox", { allowed: scopeText(toolName, why.rule, toolName) }));
  } else parts.push(t("approval.needs", { tool: toolName }));
  return parts.join(t("common.sentenceGap"));
}

/** A permission mode's name ("Auto"); `fallback`: the host's. */
export function modeName(value, fallback = "") {
  return MODES.has(value) ? t(`mode.${value}.name`) : fallback || value || "";
}

/** A permission mode's one line; `fallback`: the host's. */
export function modeHint(value, fallback = "") {
  return MODES.has(value) ? t(`mode.${value}.hint`) : fallback;
}

/** The header's line for a `permissions` projection: "Auto — runs inside this folder, …". */
export function badgeText(p) {
  if (!p || !MODES.has(p.currentValue)) return p?.badge ?? "";
  const none = p.sandbox?.kind === "none";
  if (p.currentValue === "workspace-write" && none) return t("badge.askNoSandbox");
  if (p.currentValue === "read-only" && none) return t("badge.readOnlyNoSandbox");
  const line = t(`badge.${p.currentValue}`);
  return p.network && p.currentValue !== "danger-full-access" ? t("badge.withNetwork", { line }) : line;
}

/** The host's fixed notes (FileChange.diffNote, …) in the page's language; others as they are. */
const NOTES = [
  [/^binary file$/, "note.binary"],
  [/^no changes$/, "note.noChanges"],
  [/^empty file$/, "note.emptyFile"],
  [/^cannot be read as a file now$/, "note.unreadable"],
  [/^no saved copy of how it was at the session's start$/, "note.noSavedCopy"],
  [/^too large to compare \(([\d,]+) bytes before\)$/, "note.tooLargeBefore"],
  [/^too large to compare \(([\d,]+) bytes\)$/, "note.tooLarge"],
  [/^too many lines to compare \(([\d,]+)\)$/, "note.tooManyLines"],
  [/^diff cut at ([\d,]+) characters$/, "note.cut"],
];

export function hostNote(text) {
  if (typeof text !== "string") return "";
  for (const [re, key] of NOTES) {
    const m = re.exec(text);
    if (m) return t(key, m[1] ? { count: Number(m[1].replace(/,/g, "")) } : undefined);
  }
  return text;
}

/** A route's display name: the shipped ones in the page's language, a profile's as named. */
export function routeName(route) {
  if (!route) return "";
  return tOr(`provider.route.${route.provider}`, route.displayName ?? route.provider);
}

/** A model's name in a provider's list: the built-in model's in the page's language, any other
 * as its provider names it. */
export function modelName(provider, model) {
  return tOr(`model.${provider}.${model.id}`, model.name ?? model.id);
}

const SHIPPED_PRESETS = new Set(["standard", "chat", "read-only"]);

/** An agent preset's name: a shipped one's in the page's language, yours as you named it. */
export function presetName(p) {
  const id = p?.id ?? p?.agentPreset;
  return p?.trust !== "user" && SHIPPED_PRESETS.has(id) ? t(`preset.${id}.name`) : p?.name ?? id ?? "";
}

/** An agent preset's one line, as presetName. */
export function presetDescription(p) {
  const id = p?.id ?? p?.agentPreset;
  return p?.trust !== "user" && SHIPPED_PRESETS.has(id) ? t(`preset.${id}.description`) : p?.description ?? "";
}

/** A shipped model catalogue entry's description and checksum note (host/engine/llm/localmodels/
 * catalogue.json, by entry id), in the page's language; an unknown entry keeps its own words. */
export function catalogueWords(entry) {
  return {
    description: tOr(`library.entry.${entry.id}`, entry.description ?? ""),
    note: entry.sha256Note ? tOr(`library.entry.${entry.id}.note`, entry.sha256Note) : null,
    own: !has(`library.entry.${entry.id}`),
  };
}

const SHIPPED_COMMANDS = new Set(["compact", "permission", "plan", "goal"]);

/** A shipped slash command's description in the page's language (by name); a skill's or another
 * command's as written. */
export function commandDescription(entry) {
  return entry?.kind !== "skill" && SHIPPED_COMMANDS.has(entry?.name) ? t(`slashCmd.${entry.name}`) : entry?.description ?? "";
}
