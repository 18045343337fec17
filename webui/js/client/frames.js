// Hand-written validators for the server-request envelope and each stream frame type
// (contract/frames.py, approvals.py, questions.py, events.py). A validator returns null when the
// value fits, else a short reason. Unknown frame types fail; unknown *session event* types inside
// `session/event` are valid (their envelope {type, seq, time, data} is still checked).
// Optional fields may be absent or null (tolerant reader); extra fields are ignored.

const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isStr = (v) => typeof v === "string";
const isNonEmpty = (v) => typeof v === "string" && v.length > 0;
const isInt = (v, min = -Infinity) => Number.isInteger(v) && v >= min;
const isBool = (v) => typeof v === "boolean";
const opt = (v, check) => v === undefined || v === null || check(v);

function need(cond, reason) {
  return cond ? null : reason;
}

function firstProblem(...checks) {
  for (const c of checks) if (c) return c;
  return null;
}

/** The session event envelope; `data` of a known type is passed through. */
export function checkSessionEvent(ev) {
  if (!isObj(ev)) return "event is not an object";
  return firstProblem(
    need(isNonEmpty(ev.type), "event.type"),
    need(isInt(ev.seq, 0), "event.seq"),
    need(isInt(ev.time, 0), "event.time"),
    need(isObj(ev.data), "event.data"),
    need(
      opt(ev.surfaceOp, (op) => op === "append" || (isObj(op) && op.op === "replace" && isInt(op.start, 0) && isInt(op.end, 0))),
      "event.surfaceOp",
    ),
    need(opt(ev.sourceEventSeqs, (a) => Array.isArray(a) && a.every((x) => isInt(x, 0))), "event.sourceEventSeqs"),
  );
}

function checkRpcError(e) {
  if (!isObj(e)) return "error";
  return firstProblem(need(isNonEmpty(e.code), "error.code"), need(isStr(e.message), "error.message"), need(isObj(e.details), "error.details"));
}

const OUTCOMES = new Set(["allowed-once", "allowed-always", "rejected", "cancelled", "unavailable"]);

function checkQuestion(q) {
  if (!isObj(q)) return "question";
  return firstProblem(
    need(isNonEmpty(q.id), "question.id"),
    need(isNonEmpty(q.question), "question.question"),
    need(opt(q.header, isStr), "question.header"),
    need(opt(q.multiSelect, isBool), "question.multiSelect"),
    need(
      opt(q.options, (os) => Array.isArray(os) && os.every((o) => isObj(o) && isNonEmpty(o.label) && opt(o.description, isStr))),
      "question.options",
    ),
  );
}

/** frame type → validator of the frame object. */
export const FRAME_VALIDATORS = {
  "session/event": (f) => firstProblem(need(isNonEmpty(f.sessionId), "sessionId"), checkSessionEvent(f.event)),
  "session/subscribed": (f) => firstProblem(need(isNonEmpty(f.sessionId), "sessionId"), need(isInt(f.lastSeq, -1), "lastSeq")),
  "approval/requested": (f) =>
    firstProblem(
      need(isNonEmpty(f.sessionId), "sessionId"),
      need(isNonEmpty(f.approvalId), "approvalId"),
      need(isNonEmpty(f.toolName), "toolName"),
      need(opt(f.callId, isStr), "callId"),
      need(opt(f.reason, isStr), "reason"),
    ),
  "approval/resolved": (f) =>
    firstProblem(need(isNonEmpty(f.sessionId), "sessionId"), need(isNonEmpty(f.approvalId), "approvalId"), need(OUTCOMES.has(f.outcome), "outcome")),
  "question/requested": (f) =>
    firstProblem(
      need(isNonEmpty(f.sessionId), "sessionId"),
      need(Array.isArray(f.questions) && f.questions.length > 0, "questions"),
      ...(Array.isArray(f.questions) ? f.questions.map(checkQuestion) : []),
    ),
  "question/resolved": (f) =>
    firstProblem(
      need(isNonEmpty(f.sessionId), "sessionId"),
      need(isNonEmpty(f.questionRpcId), "questionRpcId"),
      need(f.outcome === "answered" || f.outcome === "cancelled", "outcome"),
    ),
  "session/queue": (f) =>
    firstProblem(
      need(isNonEmpty(f.sessionId), "sessionId"),
      need(
        Array.isArray(f.items) &&
          f.items.every((i) => isObj(i) && isNonEmpty(i.itemId) && Array.isArray(i.content) && opt(i.mode, (m) => m === "queue" || m === "steer")),
        "items",
      ),
    ),
  "session/projection": (f) =>
    firstProblem(need(isNonEmpty(f.sessionId), "sessionId"), need(isNonEmpty(f.key), "key"), need(isInt(f.seq), "seq"), need("value" in f, "value")),
  "stream/error": (f) => checkRpcError(f.error),
  "host/session-added": (f) =>
    firstProblem(
      need(isNonEmpty(f.sessionId), "sessionId"),
      need(isBool(f.blank), "blank"),
      need(opt(f.parentSessionId, isStr), "parentSessionId"),
      need(opt(f.cwd, isStr), "cwd"),
    ),
  "host/session-removed": (f) => need(isNonEmpty(f.sessionId), "sessionId"),
  "host/session-status": (f) => firstProblem(need(isNonEmpty(f.sessionId), "sessionId"), need(isBool(f.running), "running")),
  "host/agent-error": (f) => firstProblem(need(isNonEmpty(f.sessionId), "sessionId"), need(isStr(f.message), "message")),
  "host/settings-changed": (f) => need(isStr(f.ns), "ns"),
  "host/credentials-changed": (f) => need(isStr(f.ref), "ref"),
  "host/models-changed": () => null,
};

/** Which frame types each stream may carry. */
export const STREAM_FRAMES = {
  "events.mux": new Set([
    "session/event", "session/subscribed", "approval/requested", "approval/resolved",
    "question/requested", "question/resolved", "session/queue", "session/projection", "stream/error",
  ]),
  "events.host": new Set([
    "host/session-added", "host/session-removed", "host/session-status", "host/agent-error",
    "host/settings-changed", "host/credentials-changed", "host/models-changed", "stream/error",
  ]),
};

/**
 * Validate one parsed SSE `data` value as a server-request carrying a frame of `streamKey`.
 * @returns {{ok: true, message: {type: string, rpcId: string, method: string, payload: object}} | {ok: false, reason: string}}
 */
export function validateServerRequest(streamKey, msg) {
  if (!isObj(msg) || msg.type !== "server-request") return { ok: false, reason: "not a server-request" };
  if (!isNonEmpty(msg.rpcId)) return { ok: false, reason: "rpcId" };
  if (!isNonEmpty(msg.method)) return { ok: false, reason: "method" };
  const frame = msg.payload;
  if (!isObj(frame)) return { ok: false, reason: "payload" };
  if (frame.type !== msg.method) return { ok: false, reason: "payload.type differs from method" };
  const allowed = STREAM_FRAMES[streamKey];
  if (!allowed || !allowed.has(frame.type)) return { ok: false, reason: `unknown frame type ${JSON.stringify(frame.type)}` };
  const problem = FRAME_VALIDATORS[frame.type](frame);
  if (problem) return { ok: false, reason: `${frame.type}: ${problem}` };
  return { ok: true, message: msg };
}

/** RpcResult shape check for server-responses and client-responses. */
export function checkRpcResult(r) {
  if (!isObj(r)) return "result";
  if (r.ok === true) return "value" in r ? null : "result.value";
  if (r.ok === false) return checkRpcError(r.error);
  return "result.ok";
}

export function checkReceipt(r) {
  if (!isObj(r)) return "receipt";
  if (r.accepted === true) return null;
  if (r.accepted === false && (r.reason === "not-pending" || r.reason === "bad-response")) return null;
  return "receipt.accepted/reason";
}
