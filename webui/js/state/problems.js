// Error codes → what the user is told and which state a banner shows. Pure.
// MESSAGES has one entry per code of the contract (ERROR_CODES in contract.gen.js); a code added
// to contract/errors.py without a message here fails tests/js/problems.test.mjs.

/** error code → the sentence shown to the user. */
export const MESSAGES = {
  "session-not-found": "This session no longer exists.",
  "agent-busy": "The agent cannot take this input right now.",
  "model-unavailable": "The selected model is unavailable.",
  "invalid-time-zone": "Your time zone was not recognised.",
  "title-invalid": "That title is empty once trimmed.",
  "fork-unavailable": "This turn cannot be forked (it has not completed).",
  "queue-item-not-found": "That queued input was already taken or removed.",
  "steer-unavailable": "That input cannot be used to steer right now.",
  "attachment-error": "The image could not be attached.",
  "session-conflict": "A session with this id already exists.",
  "archive-invalid": "This file is not a session archive HarnessDesk can read.",
  "settings-conflict": "Settings changed elsewhere; they were reloaded.",
  "settings-not-exposed": "These settings cannot be changed from here.",
  "settings-rejected": "The host rejected these settings.",
  "credential-rejected": "The host rejected this credential.",
  "storage-error": "Your sessions cannot be saved right now.",
  "agent-preset-not-found": "That agent preset does not exist.",
  "agent-preset-invalid": "That agent preset cannot be used.",
  "agent-preset-read-only": "Shipped presets are read-only: copy one to make your own.",
  "agent-preset-locked": "This session has already started; start a new session to use another preset.",
  "agent-preset-conflict": "A session with this id already exists with another preset.",
  "model-discovery-failed": "The endpoint's models could not be listed.",
  "model-download-not-found": "That download is gone (it finished or was cancelled).",
  "model-download-refused": "The download could not start.",
  "local-model-not-found": "That model is not installed any more.",
  "job-not-found": "That background job is gone (jobs end when the app closes).",
  cancelled: "Cancelled.",
  internal: "The host failed to do this.",
  "bad-request": "The request was malformed.",
  "workspace-invalid-path": "That folder does not exist (or is not a folder).",
  "workspace-not-found": "That workspace is no longer registered.",
  "workspace-name-conflict": "Another workspace already has that name.",
  "workspace-move-invalid": "That session is not in this workspace any more.",
  "workspace-attach-failed": "The session was created but could not join the workspace.",
  "directory-picker-unavailable": "This window cannot show a folder picker.",
  "directory-unreadable": "That folder cannot be read.",
  "directory-exists": "A folder with that name already exists.",
  "directory-create-failed": "The folder could not be created.",
  "revert-unavailable": "There is nothing to revert here.",
  "privilege-required": "Only the app's window or a browser on this machine can let the agent do more without asking.",
  "revert-conflict": "Nothing was restored: some files changed since.",
  "subagent-parent-unavailable": "The subagent's parent session cannot run right now.",
  "subagent-not-found": "That subagent is gone (or it is not this session's).",
  "subagent-catalog-diagnostic": "That subagent's session cannot be read.",
  "subagent-not-resumable": "That subagent's session cannot be continued.",
  "subagent-unauthorized": "That subagent belongs to another session.",
  "subagent-delivery-unavailable": "The subagent cannot take a message right now.",
  "mcp-server-not-found": "That MCP server is not configured for this project (or needs no approval).",
  "mcp-server-changed": "That MCP server's entry changed since it was shown: read its command again.",
  "command-error": "The command could not run as written.",
  "unknown-command": "There is no such command.",
  "terminal-not-found": "That terminal is closed.",
  "outside-folder": "That path is outside the session's folder.",
  "not-a-file": "That is not a file.",
  "too-large": "That file is too large to show at once.",
};

/** Why a file could not be put back (FileConflict.reason). */
const CONFLICT_TEXT = {
  changed: "was changed outside HarnessDesk since",
  "later-turn": "was changed again by a later turn (revert that one first)",
  "not-saved": "has no saved earlier content",
  stale: "is not what the Changes view showed (it changed since; look again)",
};

function conflictText(err) {
  const conflicts = Array.isArray(err.details?.conflicts) ? err.details.conflicts : [];
  if (!conflicts.length) return MESSAGES[err.code];
  const parts = conflicts.slice(0, 4).map((c) => `${c.path} ${CONFLICT_TEXT[c.reason] ?? "cannot be restored"}`);
  const more = conflicts.length > 4 ? ` (and ${conflicts.length - 4} more)` : "";
  return `Nothing was restored: ${parts.join("; ")}${more}.`;
}

/** A one-line message for an RpcError (or a TransportError / Error). */
export function describeError(err) {
  if (!err) return "";
  // The host's own sentence says what to do ("the disk is full: …", "run harnessdesk doctor --repair").
  if ((err.code === "internal" || err.code === "bad-request" || err.code === "storage-error" || err.code === "command-error" || err.code === "unknown-command") && err.message) return err.message;
  if (err.code === "revert-conflict") return conflictText(err);
  if (Object.hasOwn(MESSAGES, err.code ?? "")) {
    const withReason = ["agent-busy", "attachment-error", "archive-invalid", "agent-preset-invalid", "revert-unavailable"];
    const extra = withReason.includes(err.code) ? err.details?.reason : err.code === "privilege-required" ? err.details?.change : null;
    if (err.code === "model-unavailable" && err.details?.model) return `Model ${err.details.provider}/${err.details.model} is unavailable.`;
    return extra ? `${MESSAGES[err.code]} (${extra})` : MESSAGES[err.code];
  }
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
