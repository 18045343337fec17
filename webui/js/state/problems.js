// Error codes → what the user is told and which state a banner shows. Pure.

const MESSAGES = {
  "session-not-found": "This session no longer exists.",
  "agent-busy": "The agent cannot take this input right now.",
  "model-unavailable": "The selected model is unavailable.",
  "invalid-time-zone": "Your time zone was not recognised.",
  "title-invalid": "That title is empty once trimmed.",
  "fork-unavailable": "This turn cannot be forked (it has not completed).",
  "queue-item-not-found": "That queued input was already taken or removed.",
  "steer-unavailable": "That input cannot be used to steer right now.",
  "attachment-error": "The image could not be attached.",
  "settings-conflict": "Settings changed elsewhere; they were reloaded.",
  "settings-rejected": "The host rejected these settings.",
  "credential-rejected": "The host rejected this credential.",
  forbidden: "Not allowed from this window.",
  cancelled: "Cancelled.",
  internal: "The host failed to do this.",
  "bad-request": "The request was malformed.",
};

/** A one-line message for an RpcError (or a TransportError / Error). */
export function describeError(err) {
  if (!err) return "";
  if ((err.code === "internal" || err.code === "bad-request") && err.message) return err.message;
  if (err.code && MESSAGES[err.code]) {
    const extra = err.code === "agent-busy" || err.code === "attachment-error" ? err.details?.reason : null;
    if (err.code === "model-unavailable" && err.details?.model) return `Model ${err.details.provider}/${err.details.model} is unavailable.`;
    return extra ? `${MESSAGES[err.code]} (${extra})` : MESSAGES[err.code];
  }
  return err.message || String(err);
}

const NOT_CONFIGURED = /\b(api[ _-]?key|credential|unauthori[sz]ed|401|not configured|no key)\b/i;

/**
 * Which banner an error asks for: "model-unavailable", "provider-not-configured" or null.
 * Works on RpcErrors and on turn/end {reason:{kind:"error", error}} payloads.
 */
export function classifyProblem(err) {
  if (!err) return null;
  const code = typeof err === "object" ? err.code : null;
  if (code === "model-unavailable") return "model-unavailable";
  if (code === "credential-rejected" || code === "provider-not-configured" || code === "credential-missing") return "provider-not-configured";
  const text = typeof err === "string" ? err : `${err.message ?? ""} ${err.name ?? ""}`;
  if (NOT_CONFIGURED.test(text)) return "provider-not-configured";
  return null;
}

/**
 * Provider configuration check from settings.describe + credentials.describe values: the
 * provider needs a key and its credential is not configured → "provider-not-configured".
 */
export function providerProblem(settings, credentials) {
  if (!settings) return null;
  const provider = settings.values?.provider ?? "local";
  const info = (settings.providers ?? []).find((p) => p.provider === provider);
  if (!info?.needsKey) return null;
  const cred = (credentials?.items ?? []).find((c) => c.ref === provider);
  return cred?.configured ? null : "provider-not-configured";
}
