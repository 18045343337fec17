// AbstractApiClient (docs/architecture.md, "Clients"): every protocol invariant of the wire
// lives here; subclasses only supply doFetch(url, init) → Promise<Response>. No DOM: importable in Node.
//
//   call(method, payload, {signal, timeoutMs})  → RpcResult {ok:true,value} | {ok:false,error}; never
//                                                 throws: a carrier failure is {code: "transport"}
//                                                 (no timeout for a method the contract marks userPaced)
//   respond(rpcId, result, {signal})            → RpcReceipt {accepted:true} | {accepted:false, reason}
//   stream(key, {signal, onActivity, log})      → FrameStream (async iterable of server-requests)
//   subscribeEnvelopes(listener)                → unsubscribe; batches of all four message kinds
//
// One failure channel for unary calls (docs/architecture.md, "Clients"): business errors come back
// as typed results, carrier failures as a `transport` error result (errors.js, transportResult),
// a caller abort (its own signal) as a `cancelled` one. respond() and stream() still throw
// TransportError: their callers (the manager, the connection) own a retry loop.
// With `validate` (on when `globalThis.HARNESSDESK_DEV_VALIDATE` is true: the test launchers set
// it, as HARNESSDESK_DEV_VALIDATE=1 does for the host) every value is checked against the
// method's schema; a value that does not fit is logged as an error and becomes a `transport`
// result of kind "protocol", so a host/contract drift fails the test that met it.

import { EnvelopeObservers } from "./observers.js";
import { SseParser } from "./sse.js";
import { checkReceipt, checkServerResponse, isStream, validateServerRequest } from "./frames.js";
import { TransportError, rpcError, transportResult } from "./errors.js";
import { DEFS, METHODS } from "../contract.gen.js";
import { SchemaSet } from "./json-schema.js";

const valueSchemas = new SchemaSet(DEFS);

/** Whether the page was started by a test launcher that wants every value checked. */
export function devValidateDefault() {
  return globalThis.HARNESSDESK_DEV_VALIDATE === true;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

export function newRpcId() {
  const c = globalThis.crypto;
  if (c?.randomUUID) return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Reject as soon as `signal` aborts, even if the carrier ignores the signal. */
function raceAbort(value, signal) {
  const promise = Promise.resolve(value);
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => { signal.removeEventListener("abort", onAbort); resolve(v); },
      (e) => { signal.removeEventListener("abort", onAbort); reject(e); },
    );
  });
}

async function shortText(res, limit = 200) {
  try {
    return (await res.text()).slice(0, limit);
  } catch {
    return "";
  }
}

/** The header the desktop carrier sets when the host could not start (desktop/hoststart.py). */
export const HOST_FAILED_HEADER = "x-harnessdesk-host";

/**
 * A TransportError for an answer whose status is not 200; marks "the host could not start".
 * A stream's body is read only in that case (it is short and ends); otherwise it is dropped.
 */
async function httpError(what, res, { stream = false } = {}) {
  const hostFailed = res.headers?.get?.(HOST_FAILED_HEADER) === "failed";
  if (stream && !hostFailed) {
    res.body?.cancel().catch(() => {});
    return new TransportError("http", `${what}: HTTP ${res.status}`, { status: res.status });
  }
  const text = (await shortText(res, hostFailed ? 2000 : 200)).trim();
  const message = `${what}: HTTP ${res.status} ${text.slice(0, 200)}`.trim();
  return new TransportError("http", message, { status: res.status, hostFailed, detail: text });
}

export class AbstractApiClient {
  /**
   * @param {{timeoutMs?: number, baseUrl?: string, log?: Pick<Console, "warn"|"error">,
   *          methods?: Record<string, {userPaced: boolean, value?: string}>, validate?: boolean}} [opts]
   *   `methods` defaults to the contract's; `validate` (default: devValidateDefault()) checks values
   */
  constructor(opts = {}) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.methods = opts.methods ?? METHODS;
    this.validate = opts.validate ?? devValidateDefault();
    this.baseUrl = (opts.baseUrl ?? "").replace(/\/$/, "");
    this.log = opts.log ?? console;
    this.observers = new EnvelopeObservers((err) => this.log.error("envelope observer failed", err));
    /** "web" | "bridge" | other: lets a view pick how to download an export. */
    this.kind = "abstract";
  }

  /** @abstract @param {string} url @param {RequestInit} init @returns {Promise<Response>} */
  // eslint-disable-next-line no-unused-vars
  async doFetch(url, init) {
    throw new Error("doFetch is abstract");
  }

  url(path) {
    return `${this.baseUrl}/api/${path}`;
  }

  subscribeEnvelopes(listener) {
    return this.observers.subscribe(listener);
  }

  /**
   * POST a JSON body with a timeout (`timeoutMs`, else the unary one; `null` = none, for calls that
   * wait for the person); returns the parsed JSON or throws TransportError.
   */
  async postJson(path, body, signal, timeoutMs, what) {
    const limit = timeoutMs === undefined ? this.timeoutMs : timeoutMs;
    const timeout = limit === null ? null : AbortSignal.timeout(limit);
    const signals = [signal, timeout].filter(Boolean);
    const merged = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    try {
      const res = await raceAbort(
        this.doFetch(this.url(path), {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
          signal: merged,
        }),
        merged,
      );
      if (res.status !== 200) throw await httpError(what, res);
      const text = await raceAbort(res.text(), merged);
      try {
        return JSON.parse(text);
      } catch (cause) {
        throw new TransportError("protocol", `${what}: response is not JSON`, { cause });
      }
    } catch (err) {
      if (err instanceof TransportError) throw err;
      if (signal?.aborted) throw new TransportError("aborted", `${what}: cancelled by the caller`, { cause: err });
      if (timeout?.aborted) throw new TransportError("timeout", `${what}: no answer within ${limit} ms`, { cause: err });
      throw new TransportError("network", `${what}: ${err?.message ?? err}`, { cause: err });
    }
  }

  /**
   * Call a unary method. Mints the rpcId, wraps the envelope, checks the echo. Never throws.
   * @returns {Promise<{ok: true, value: any} | {ok: false, error: {code: string, message: string, details: object}}>}
   */
  async call(method, payload = {}, { signal, timeoutMs } = {}) {
    try {
      return await this.callOrThrow(method, payload, signal, timeoutMs);
    } catch (err) {
      if (err instanceof TransportError && err.kind === "aborted") {
        return { ok: false, error: rpcError("cancelled", `${method} was cancelled`) };
      }
      if (!(err instanceof TransportError)) this.log.error(`${method}: the client failed`, err);
      return transportResult(err);
    }
  }

  async callOrThrow(method, payload, signal, timeoutMs) {
    if (timeoutMs === undefined && this.methods[method]?.userPaced) timeoutMs = null;
    const rpcId = newRpcId();
    const envelope = { type: "client-request", rpcId, method, payload };
    this.observers.tap(envelope);
    const body = await this.postJson(method, envelope, signal, timeoutMs, method);
    const problem = checkServerResponse(body);
    if (problem) throw new TransportError("protocol", `${method}: malformed answer (${problem})`);
    if (body.rpcId !== rpcId) {
      throw new TransportError("protocol", `${method}: rpcId mismatch (sent ${rpcId}, got ${body.rpcId})`);
    }
    this.observers.tap(body);
    if (this.validate && body.result.ok) this.checkValue(method, body.result.value);
    return body.result;
  }

  /** Dev validation: a value that does not fit its method's schema is a loud protocol failure. */
  checkValue(method, value) {
    const name = this.methods[method]?.value;
    const problem = name ? valueSchemas.validator(name)(value, "value") : `no value schema for ${method}`;
    if (problem === null) return;
    const message = `${method}: the value does not fit the contract (${problem})`;
    this.log.error(message);
    throw new TransportError("protocol", message);
  }

  /** Answer an answerable server-request (approval/question). `result` is an RpcResult. */
  async respond(rpcId, result, { signal, timeoutMs } = {}) {
    const envelope = { type: "client-response", rpcId, result };
    this.observers.tap(envelope);
    const receipt = await this.postJson("respond", envelope, signal, timeoutMs, "respond");
    const problem = checkReceipt(receipt);
    if (problem) throw new TransportError("protocol", `respond: malformed receipt (${problem})`);
    return receipt;
  }

  /** URL of the ZIP export (carrier-level GET, no envelope). */
  exportUrl(sessionId, includeDescendants = true) {
    const q = new URLSearchParams({ sessionId, includeDescendants: String(includeDescendants) });
    return `${this.url("session.export")}?${q}`;
  }

  /** Fetch the export as a Response (used where plain navigation cannot download, e.g. the bridge). */
  async fetchExport(sessionId, includeDescendants = true) {
    const res = await this.doFetch(this.exportUrl(sessionId, includeDescendants), { method: "GET" });
    if (res.status !== 200) throw await httpError("export", res);
    return res;
  }

  /**
   * Open `events.mux` or `events.host`. Resolves once the HTTP response has arrived (status 200).
   * @param {"events.mux"|"events.host"} key
   * @param {{signal?: AbortSignal, onActivity?: (kind: "bytes"|"comment") => void}} [opts]
   */
  async stream(key, { signal, onActivity } = {}) {
    if (!isStream(key)) throw new Error(`unknown stream ${key}`);
    const ac = new AbortController();
    const merged = signal ? AbortSignal.any([signal, ac.signal]) : ac.signal;
    let res;
    try {
      res = await raceAbort(this.doFetch(this.url(key), { method: "GET", headers: { accept: "text/event-stream" }, signal: merged }), merged);
    } catch (err) {
      if (merged.aborted) throw new TransportError("aborted", `${key}: closed before it opened`, { cause: err });
      throw new TransportError("network", `${key}: ${err?.message ?? err}`, { cause: err });
    }
    if (res.status !== 200) throw await httpError(key, res, { stream: true });
    if (!res.body) throw new TransportError("http", `${key}: HTTP ${res.status} without a body`, { status: res.status });
    return new FrameStream(this, key, res.body.getReader(), ac, merged, onActivity);
  }
}

/** An open SSE stream: `for await (const msg of stream)`; `close()` stops reading. */
export class FrameStream {
  constructor(client, key, reader, ac, signal, onActivity) {
    this.client = client;
    this.key = key;
    this.reader = reader;
    this.ac = ac;
    this.signal = signal;
    this.onActivity = onActivity ?? (() => {});
    this.lastEventId = "";
  }

  close() {
    this.ac.abort();
  }

  get closed() {
    return this.signal.aborted;
  }

  async *[Symbol.asyncIterator]() {
    const pending = [];
    const parser = new SseParser({
      onEvent: (e) => pending.push(e),
      onComment: () => this.onActivity("comment"),
    });
    const cancel = () => this.reader.cancel().catch(() => {});
    this.signal.addEventListener("abort", cancel, { once: true });
    try {
      for (;;) {
        let chunk;
        try {
          chunk = await this.reader.read();
        } catch (err) {
          if (this.signal.aborted) return;
          throw new TransportError("network", `${this.key}: ${err?.message ?? err}`, { cause: err });
        }
        if (chunk.done) {
          parser.end();
          return;
        }
        this.onActivity("bytes");
        parser.push(chunk.value);
        for (let i = 0; i < pending.length; i++) {
          const msg = this.accept(pending[i]);
          if (msg) yield msg;
          if (this.signal.aborted) return;
        }
        pending.length = 0;
      }
    } finally {
      this.signal.removeEventListener("abort", cancel);
      cancel();
    }
  }

  /** One SSE event → a validated server-request, or null (dropped with a warning). */
  accept(e) {
    this.lastEventId = e.id;
    let msg;
    try {
      msg = JSON.parse(e.data);
    } catch {
      this.client.log.warn(`${this.key}: dropped a frame that is not JSON`);
      return null;
    }
    const v = validateServerRequest(this.key, msg);
    if (!v.ok) {
      this.client.log.warn(`${this.key}: dropped a frame (${v.reason})`);
      return null;
    }
    this.client.observers.tap(msg);
    return msg;
  }
}
