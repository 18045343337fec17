// Error codes → what the user is told and which state a banner shows. Pure.
// MESSAGES has one entry per code of the contract (ERROR_CODES in contract.gen.js); a code added
// to contract/errors.py without a message here fails tests/js/problems.test.mjs.

import { t } from "../i18n/i18n.js";

/** The contract's error codes with a message in the catalogues (`error.<code>`). */
const CODES = ["session-not-found", "agent-busy", "model-unavailable", "invalid-time-zone", "title-invalid", "fork-unavailable", "queue-item-not-found", "steer-unavailable", "attachment-error", "session-conflict", "session-exists", "archive-invalid", "settings-conflict", "settings-not-exposed", "settings-rejected", "credential-rejected", "storage-error", "agent-preset-not-found", "agent-preset-invalid", "agent-preset-read-only", "agent-preset-locked", "agent-preset-conflict", "model-discovery-failed", "model-download-not-found", "model-download-refused", "local-model-not-found", "job-not-found", "cancelled", "internal", "bad-request", "workspace-invalid-path", "workspace-not-found", "workspace-name-conflict", "workspace-move-invalid", "workspace-attach-failed", "directory-picker-unavailable", "directory-unreadable", "directory-exists", "directory-create-failed", "revert-unavailable", "rewind-unavailable", "privilege-required", "revert-conflict", "subagent-parent-unavailable", "subagent-not-found", "subagent-catalog-diagnostic", "subagent-not-resumable", "subagent-unauthorized", "subagent-delivery-unavailable", "mcp-server-not-found", "mcp-server-changed", "command-error", "unknown-command", "worktree-conflict", "worktree-dirty", "worktree-unmerged", "not-a-repository", "worktree-untrusted", "worktree-failed", "remote-host-not-found", "remote-unavailable", "remote-connect-failed", "host-key-unknown", "host-key-changed", "terminal-not-found", "outside-folder", "not-a-file", "too-large", "nothing-staged", "git-identity-missing", "push-rejected", "no-remote", "auth-failed", "git-failed", "stale-diff", "repository-untrusted"];

/** error code → the sentence shown to the user, in the page's language (a getter each: the
 * language can change while the page runs). */
export const MESSAGES = Object.defineProperties({}, Object.fromEntries(CODES.map((code) => [code, { enumerable: true, get: () => t(`error.${code}`) }])));

/** Why a file could not be put back (FileConflict.reason). */
const CONFLICT_TEXT = new Set(["changed", "later-turn", "not-saved", "stale"]);

function conflictText(err) {
  const conflicts = Array.isArray(err.details?.conflicts) ? err.details.conflicts : [];
  if (!conflicts.length) return MESSAGES[err.code];
  const parts = conflicts.slice(0, 4).map((c) => t(CONFLICT_TEXT.has(c.reason) ? `conflict.${c.reason}` : "conflict.other", { path: c.path })).join(t("common.listSeparator"));
  return t("conflict.summary", { parts: conflicts.length > 4 ? t("conflict.more", { parts, count: conflicts.length - 4 }) : parts });
}

/** A worktree hand-off's refusal names the files or the branch (docs/decisions.md, "Worktree sessions"). */
function worktreeText(err) {
  const d = err.details ?? {};
  const paths = Array.isArray(d.paths) ? d.paths.slice(0, 5).join(", ") + (d.paths.length > 5 ? " …" : "") : "";
  if (err.code === "worktree-conflict" && paths) return t("error.worktreeConflictPaths", { paths });
  if (err.code === "worktree-dirty" && paths) return t(d.where === "local" ? "error.worktreeDirtyLocal" : "error.worktreeDirtyWorktree", { paths });
  if (err.code === "worktree-unmerged" && d.branch) return t("error.worktreeUnmergedNamed", { branch: d.branch, base: d.base, count: d.commits });
  if (err.code === "worktree-failed" && d.reason) return t("error.withDetail", { message: MESSAGES[err.code], detail: d.reason });
  return null;
}

/** Codes whose host message says what to do: shown after the code's message. */
// The remote's own sentence (ssh's reason, what the remote lacks) is the useful part of the last two.
const WITH_HOST_WORDS = new Set(["internal", "bad-request", "storage-error", "command-error", "unknown-command", "remote-connect-failed", "host-key-changed"]);

/** A one-line message for an RpcError (or a TransportError / Error). */
export function describeError(err) {
  if (!err) return "";
  // The host's own sentence says what to do ("the disk is full: …", "run harnessdesk doctor
  // --repair"): it follows the code's message as its detail.
  if (WITH_HOST_WORDS.has(err.code) && err.message) return t("error.hostDetail", { message: MESSAGES[err.code], detail: err.message });
  if (err.code === "revert-conflict") return conflictText(err);
  if (err.code === "revert-unavailable" && err.details?.unrecorded) return t("error.revertUnrecorded", { why: err.details.unrecorded });
  const worktree = worktreeText(err);
  if (worktree) return worktree;
  if (Object.hasOwn(MESSAGES, err.code ?? "")) {
    const withReason = ["agent-busy", "attachment-error", "archive-invalid", "agent-preset-invalid", "revert-unavailable"];
    const extra = withReason.includes(err.code) ? err.details?.reason : err.code === "privilege-required" ? err.details?.change : null;
    if (err.code === "model-unavailable" && err.details?.model) return t("error.modelNamed", { model: `${err.details.provider}/${err.details.model}` });
    return extra ? t("error.withDetail", { message: MESSAGES[err.code], detail: extra }) : MESSAGES[err.code];
  }
  if (err.code === "transport") return err.message ? t("error.hostDetail", { message: t("error.transport"), detail: err.message }) : t("error.transport");
  return err.message || String(err);
}

/** HTTP statuses with which a provider refuses a missing or wrong API key. */
const AUTH_STATUSES = new Set([401, 403]);

/**
 * Which banner an error asks for: "model-unavailable", "provider-not-configured" or null.
 * Works on RpcErrors (by code) and on the `error` of a turn/end {reason: {kind: "error"}}, which
 * carries the provider's HTTP `status` when the provider refused the request.
 */
export function classifyProblem(err) {
  if (!err || typeof err !== "object") return null;
  if (err.code === "model-unavailable") return "model-unavailable";
  if (err.code === "credential-rejected") return "provider-not-configured";
  if (AUTH_STATUSES.has(err.status)) return "provider-not-configured";
  return null;
}

/**
 * Provider configuration check from `llm.providers` and the host's default provider (host.describe):
 * the route the new sessions start on cannot serve (no key, bad URL) → "provider-not-configured".
 */
export function providerProblem(providers, provider) {
  if (!Array.isArray(providers) || !provider) return null;
  const route = providers.find((p) => p.provider === provider);
  return route && !route.active ? "provider-not-configured" : null;
}
