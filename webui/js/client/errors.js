// Carrier failures are not RpcErrors: no connection, HTTP status other than 200, timeouts,
// bodies that are not the expected envelope, an rpcId that does not echo. They raise this.

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

/** A thrown carrier failure as a failed RpcResult, for callers that handle both the same way. */
export function transportFailure(err) {
  return { ok: false, error: rpcError("transport", err?.message ?? String(err)) };
}
