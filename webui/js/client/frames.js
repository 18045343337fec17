// Wire-message validators, all built from the generated contract (webui/js/contract.gen.js):
// the server-request envelope and the frames of each stream, server-responses, receipts.
// Nothing here restates a shape. A check returns null when the value fits, else a short reason.
//
// What the client tolerates (see docs/decisions.md):
// - extra fields anywhere are ignored (the fields it knows are still checked);
// - a session event of a type it has no model for is valid: the contract types `event.type` as
//   any string, and `event.data` is only required to be an object (the fold shows unknown types
//   as raw rows);
// - an unknown frame type or error code is not: the page comes from the same build as the host,
//   so either is a bug, and a frame the client cannot read is dropped with a warning.

import { DEFS, STREAMS } from "../contract.gen.js";
import { SchemaSet } from "./json-schema.js";

const schemas = new SchemaSet(DEFS);
const serverRequest = schemas.validator("ServerRequest");
const serverResponse = schemas.validator("ServerResponse");
const receipt = schemas.validator("RpcReceipt");
const frames = new Map(Object.entries(STREAMS).map(([key, stream]) => [key, schemas.validator(stream.frame)]));

/** Whether `key` names a stream of the contract. */
export function isStream(key) {
  return frames.has(key);
}

/**
 * Validate one parsed SSE `data` value as a server-request carrying a frame of `streamKey`.
 * @returns {{ok: true, message: {type: string, rpcId: string, method: string, payload: object}} | {ok: false, reason: string}}
 */
export function validateServerRequest(streamKey, msg) {
  const frame = frames.get(streamKey);
  if (!frame) return { ok: false, reason: `unknown stream ${JSON.stringify(streamKey)}` };
  const problem =
    serverRequest(msg, "server-request") ??
    (msg.payload.type === msg.method ? null : "payload.type differs from method") ??
    frame(msg.payload, msg.method);
  return problem ? { ok: false, reason: problem } : { ok: true, message: msg };
}

/** A `server-response` body: envelope, and a result that is `{ok: true, value}` or a typed error. */
export function checkServerResponse(body) {
  return serverResponse(body, "server-response");
}

/** The receipt `POST /api/respond` answers with. */
export function checkReceipt(r) {
  return receipt(r, "receipt");
}
