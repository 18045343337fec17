// Carrier failures are not RpcErrors: no connection, HTTP status other than 200, timeouts,
// bodies that are not the expected envelope, an rpcId that does not echo. stream() and respond()
// raise this; call() resolves to transportResult(err) instead.

export class TransportError extends Error {
  /**
   * @param {"network"|"http"|"timeout"|"protocol"|"aborted"} kind
   * @param {string} message
   * @param {{status?: number, cause?: unknown, hostFailed?: boolean, detail?: string}} [extra]
   *   `hostFailed`: the desktop host could not start (final for this app run); `detail`: why
   */
  constructor(kind, message, extra = {}) {
    super(message, extra.cause !== undefined ? { cause: extra.cause } : undefined);
    this.name = "TransportError";
    this.kind = kind;
    this.status = extra.status;
    this.hostFailed = extra.hostFailed ?? false;
    this.detail = extra.detail ?? "";
  }
}

/**
 * Error codes only the client makes up, for failures that never got a typed answer from the host
 * (every other code it uses is one of the contract's ERROR_CODES).
 */
export const CLIENT_ERROR_CODES = Object.freeze(["transport"]);

/** A typed RpcError value, for results the client makes up itself (e.g. a caller abort). */
export function rpcError(code, message, details = {}) {
  return { code, message, details };
}

/**
 * A carrier failure as a failed RpcResult: what `call()` resolves to instead of throwing
 * (docs/architecture.md, "Clients"). `details.kind` says which carrier step failed
 * ("network" | "http" | "timeout" | "protocol"); `status`, `hostFailed` and `detail` are the
 * TransportError's (an HTTP status; the desktop host could not start, and why).
 */
export function transportResult(err) {
  const details = { kind: err?.kind ?? "network" };
  if (err?.status !== undefined) details.status = err.status;
  if (err?.hostFailed) details.hostFailed = true;
  if (err?.detail) details.detail = err.detail;
  return { ok: false, error: rpcError("transport", err?.message ?? String(err), details) };
}

/** Whether a result is a carrier failure (the host may be gone: rebuilding is the remedy). */
export function isTransportFailure(r) {
  return !r.ok && r.error.code === "transport";
}

/** A failed `transport` result as a TransportError again, for loops that retry on a throw. */
export function transportErrorOf(error) {
  const d = error.details ?? {};
  return new TransportError(d.kind ?? "network", error.message, { status: d.status, hostFailed: d.hostFailed, detail: d.detail });
}
