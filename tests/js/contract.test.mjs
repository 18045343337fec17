// The generated contract module, the JSON Schema validator it feeds, the frame validators built
// on both, and a scan of webui/js for contract names that do not exist.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as C from "../../webui/js/contract.gen.js";
import { SchemaSet } from "../../webui/js/client/json-schema.js";
import { checkReceipt, checkServerResponse, validateServerRequest } from "../../webui/js/client/frames.js";
import { CLIENT_ERROR_CODES } from "../../webui/js/client/errors.js";

const WEBUI_JS = fileURLToPath(new URL("../../webui/js/", import.meta.url));

// ---- the JSON Schema subset ------------------------------------------------------------------

const DEFS = {
  Point: { type: "object", properties: { x: { type: "integer", minimum: 0 }, y: { type: "integer" } }, required: ["x", "y"], additionalProperties: false },
  Named: { type: "object", properties: { name: { type: "string", minLength: 1, maxLength: 3 }, tags: { type: "array", items: { enum: ["a", "b"] }, minItems: 1 } }, required: ["name"] },
  Shape: {
    oneOf: [{ $ref: "#/$defs/Circle" }, { $ref: "#/$defs/Square" }],
    discriminator: { propertyName: "kind", mapping: { circle: "#/$defs/Circle", square: "#/$defs/Square" } },
  },
  Circle: { type: "object", properties: { kind: { const: "circle" }, r: { type: "number", exclusiveMinimum: 0 } }, required: ["kind", "r"] },
  Square: { type: "object", properties: { kind: { const: "square" }, side: { type: "number" } }, required: ["kind", "side"] },
  MaybeText: { anyOf: [{ type: "string" }, { type: "null" }] },
  Flag: { oneOf: [{ type: "boolean" }, { const: 1 }] },
  Dict: { type: "object", additionalProperties: { type: "integer" } },
  Pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: { type: "boolean" } },
  Tree: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/Tree" } } } },
};

test("json-schema: types, bounds, required, nested paths", () => {
  const s = new SchemaSet(DEFS);
  const point = s.validator("Point");
  assert.equal(point({ x: 0, y: -3 }), null);
  assert.equal(point({ x: 1.5, y: 0 }, "p"), "p.x: expected integer, got number");
  assert.equal(point({ x: -1, y: 0 }, "p"), "p.x: less than 0");
  assert.equal(point({ x: 1 }, "p"), "p.y: missing");
  assert.equal(point([1, 2], "p"), "p: expected object, got array");
  assert.equal(point(null, "p"), "p: expected object, got null");
  const named = s.validator("Named");
  assert.equal(named({ name: "abc", tags: ["a", "b"] }), null);
  assert.equal(named({ name: "" }, "n"), "n.name: shorter than 1");
  assert.equal(named({ name: "abcd" }, "n"), "n.name: longer than 3");
  assert.equal(named({ name: "😀😀😀" }), null, "lengths count code points, as Python does");
  assert.equal(named({ name: "a", tags: [] }, "n"), "n.tags: fewer than 1 items");
  assert.equal(named({ name: "a", tags: ["a", "c"] }, "n"), 'n.tags[1]: expected one of "a", "b"');
  assert.equal(s.validator("Tree")({ kids: [{ kids: [{ kids: 3 }] }] }, "t"), "t.kids[0].kids[0].kids: expected array, got integer");
  assert.equal(s.validator("Dict")({ a: 1, b: "2" }, "d"), "d.b: expected integer, got string");
  assert.equal(s.validator("Pair")(["a", 1, true, false]), null);
  assert.equal(s.validator("Pair")(["a", 1, 0], "p"), "p[2]: expected boolean, got integer");
});

test("json-schema: discriminated unions pick the branch by tag; anyOf / oneOf", () => {
  const shape = new SchemaSet(DEFS).validator("Shape");
  assert.equal(shape({ kind: "circle", r: 2 }), null);
  assert.equal(shape({ kind: "circle", r: 0 }, "s"), "s.r: not more than 0");
  assert.equal(shape({ kind: "square", r: 2 }, "s"), "s.side: missing");
  assert.equal(shape({ kind: "hexagon" }, "s"), 's.kind: unknown "hexagon"');
  assert.equal(shape({ r: 1 }, "s"), "s.kind: missing");
  assert.equal(shape({ kind: "toString" }, "s"), 's.kind: unknown "toString"');
  const maybe = new SchemaSet(DEFS).validator("MaybeText");
  assert.equal(maybe(null), null);
  assert.equal(maybe("x"), null);
  assert.equal(maybe(3, "m"), "m: expected string, got integer");
  const flag = new SchemaSet(DEFS).validator("Flag");
  assert.equal(flag(true), null);
  assert.equal(flag(1), null);
  assert.match(flag("x", "f"), /^f: fits 0 of the 2 alternatives/);
});

test("json-schema: extra fields are ignored by default and rejected with extra: forbid", () => {
  assert.equal(new SchemaSet(DEFS).validator("Point")({ x: 1, y: 2, z: 3 }), null);
  assert.equal(new SchemaSet(DEFS, { extra: "forbid" }).validator("Point")({ x: 1, y: 2, z: 3 }, "p"), "p.z: unexpected field");
});

test("json-schema: an unknown keyword, $ref or name is refused, never skipped", () => {
  assert.throws(() => new SchemaSet({ A: { type: "array", uniqueItems: true } }).validator("A")([]), /keyword "uniqueItems" is not implemented/);
  assert.throws(() => new SchemaSet({ A: { $ref: "other.json#/A" } }).validator("A")(1), /unsupported \$ref/);
  assert.throws(() => new SchemaSet(DEFS).validator("Nope"), /no schema named "Nope"/);
  assert.throws(() => new SchemaSet({ A: { type: "float" } }).validator("A")(1), /unknown type float/);
});

test("json-schema: pattern and maxProperties (the request models use them)", () => {
  const s = new SchemaSet({ Id: { type: "string", pattern: "^[A-Za-z0-9_.:-]+$" }, One: { type: "object", maxProperties: 1 } });
  assert.equal(s.validator("Id")("abc_1.x:y-z"), null);
  assert.equal(s.validator("Id")("a b", "id"), "id: does not match ^[A-Za-z0-9_.:-]+$");
  assert.equal(s.validator("Id")(""), "$: does not match ^[A-Za-z0-9_.:-]+$");
  assert.equal(s.validator("One")({ a: 1 }), null);
  assert.equal(s.validator("One")({ a: 1, b: 2 }, "o"), "o: more than 1 fields");
});

test("generated contract: every method names its request and value schema, and they compile", () => {
  const s = new SchemaSet(C.DEFS);
  for (const [key, m] of Object.entries(C.METHODS)) {
    for (const side of ["request", "value"]) {
      assert.equal(typeof m[side], "string", `${key}.${side}`);
      assert.ok(Object.hasOwn(C.DEFS, m[side]), `${key}.${side}: ${m[side]} is in DEFS`);
      s.validator(m[side]);
    }
  }
  const list = s.validator(C.METHODS["session.list"].value);
  assert.equal(list({ items: [] }), null);
  assert.match(list({ items: "none" }, "v"), /^v\.items: expected array/);
  assert.match(s.validator(C.METHODS["session.rename"].request)({ sessionId: "s" }, "p"), /^p\.title: missing/);
});

test("json-schema: every generated schema compiles (all its keywords are implemented)", () => {
  const s = new SchemaSet(C.DEFS, { extra: "forbid" });
  for (const name of Object.keys(C.DEFS)) s.compile(C.DEFS[name]);
});

// ---- the generated module -------------------------------------------------------------------

test("generated contract: methods, errors, streams and events are consistent", () => {
  assert.match(readFileSync(join(WEBUI_JS, "contract.gen.js"), "utf8"), /^\/\/ GENERATED by `python -m contract`/);
  assert.ok(Object.keys(C.METHODS).length > 0);
  for (const [key, m] of Object.entries(C.METHODS)) {
    assert.match(key, /^[a-z][a-zA-Z]*\.[a-zA-Z]+$/);
    assert.equal(typeof m.privileged, "boolean");
    assert.equal(typeof m.userPaced, "boolean");
  }
  assert.ok(C.METHODS["settings.update"].privileged && !C.METHODS["session.list"].privileged);
  assert.ok(C.METHODS["command.execute"].userPaced && !C.METHODS["command.list"].userPaced);
  assert.ok(C.METHODS["agentPreset.read"].privileged && !C.METHODS["agentPreset.list"].privileged);
  assert.deepEqual(C.ERROR_CODES, Object.keys(C.ERRORS));
  const errorUnion = C.DEFS.RpcError.discriminator.mapping;
  assert.deepEqual(Object.keys(errorUnion).sort(), [...C.ERROR_CODES].sort());
  for (const [code, e] of Object.entries(C.ERRORS)) {
    const details = C.DEFS[e.details];
    assert.ok(details, `${code}: details schema ${e.details}`);
    assert.deepEqual(Object.keys(details.properties), e.fields);
  }
  for (const s of Object.values(C.STREAMS)) assert.deepEqual(Object.keys(C.DEFS[s.frame].discriminator.mapping), s.types);
  assert.ok(C.STREAMS["events.mux"].types.includes("stream/error") && C.STREAMS["events.host"].types.includes("stream/error"));
  assert.equal(new Set(C.FRAME_TYPES).size, C.FRAME_TYPES.length);
  for (const t of C.ANSWERABLE_FRAMES) assert.ok(C.FRAME_TYPES.includes(t));
  assert.ok(C.EVENT_TYPES.includes("turn/end") && C.EVENT_TYPES.includes("assistant/chunk"));
});

// ---- wire messages --------------------------------------------------------------------------

const sr = (payload, extra = {}) => ({ type: "server-request", rpcId: "r", method: payload.type, payload, ...extra });
const mux = (payload) => validateServerRequest("events.mux", sr(payload));

test("frames: good frames pass, wrong shapes and unknown types fail with a reason", () => {
  assert.equal(mux({ type: "question/requested", sessionId: "s", questions: [{ id: "q", question: "?", options: [{ label: "a" }] }] }).ok, true);
  assert.match(mux({ type: "question/requested", sessionId: "s", questions: [] }).reason, /questions: fewer than 1 items/);
  assert.match(mux({ type: "approval/resolved", sessionId: "s", approvalId: "a", outcome: "maybe" }).reason, /outcome: expected one of/);
  const message = (content) => ({ id: "m", role: "user", content, source: { kind: "user", rpcId: "r" } });
  assert.equal(mux({ type: "session/queue", sessionId: "s", items: [{ id: "m", placement: "queued", message: message([{ type: "text", text: "hi" }]) }] }).ok, true);
  assert.match(mux({ type: "session/queue", sessionId: "s", items: [{ id: "m", placement: "queued", message: message([{ type: "video" }]) }] }).reason, /content\[0\]\.type: unknown "video"/);
  assert.match(mux({ type: "session/queue", sessionId: "s", items: [{ id: "m", placement: "later", message: message([]) }] }).reason, /placement: expected one of/);
  assert.equal(mux({ type: "session/jobs", sessionId: "s", jobs: [{ id: "bash-1", kind: "bash", label: "sleep 9", status: "running", startedAt: 1 }] }).ok, true);
  assert.match(mux({ type: "session/jobs", sessionId: "s", jobs: [{ id: "bash-1", kind: "bash", label: "", status: "running", startedAt: 1 }] }).reason, /label/);
  assert.equal(validateServerRequest("events.host", sr({ type: "host/models-changed" })).ok, true);
  assert.match(validateServerRequest("events.host", sr({ type: "host/whatever" })).reason, /type: unknown "host\/whatever"/);
  assert.equal(validateServerRequest("events.host", sr({ type: "session/subscribed", sessionId: "s", lastSeq: 0 })).ok, false, "a mux frame on the host stream");
  assert.equal(validateServerRequest("events.mux", { ...sr({ type: "session/subscribed", sessionId: "s", lastSeq: 0 }), method: "other" }).ok, false);
  assert.match(mux({ type: "session/subscribed", sessionId: "s", lastSeq: -2 }).reason, /lastSeq: less than -1/);
  assert.equal(validateServerRequest("events.mux", { rpcId: "r", method: "host/models-changed", payload: { type: "host/models-changed" } }).ok, false, "the envelope's type is required");
  assert.equal(validateServerRequest("events.mux", sr({ type: "session/subscribed", sessionId: "s", lastSeq: 0 }, { rpcId: "" })).ok, false);
  assert.equal(validateServerRequest("events.nope", sr({ type: "host/models-changed" })).ok, false);
});

test("frames: session events of unknown types are valid; the envelope is still checked", () => {
  const event = (e) => mux({ type: "session/event", sessionId: "s", event: e });
  assert.equal(event({ type: "future/thing", seq: 3, time: 1, data: { anything: [1] } }).ok, true);
  assert.equal(event({ type: "turn/start", seq: 0, time: 0, data: {}, surfaceOp: { op: "replace", start: 0, end: 2 }, sourceEventSeqs: [0] }).ok, true);
  assert.equal(event({ type: "turn/start", seq: 0, time: 0, data: {}, surfaceOp: null }).ok, true, "optional fields may be null");
  assert.equal(event({ type: "x", seq: 0, time: 0, data: {}, surfaceOp: "bogus" }).ok, false);
  assert.match(event({ type: "", seq: 0, time: 0, data: {} }).reason, /event\.type: shorter than 1/);
  assert.match(event({ type: "x", seq: -1, time: 0, data: {} }).reason, /event\.seq: less than 0/);
  assert.match(event({ type: "x", seq: 0, time: 0, data: [] }).reason, /event\.data: expected object/);
});

test("frames: extra fields are ignored (tolerant reader), the known ones still checked", () => {
  assert.equal(validateServerRequest("events.host", sr({ type: "host/session-status", sessionId: "s", running: true, since: 5 }, { hint: 1 })).ok, true);
  assert.equal(validateServerRequest("events.host", sr({ type: "host/session-status", sessionId: "s", running: "yes", since: 5 })).ok, false);
});

test("frames: stream/error carries a typed error; unknown codes and wrong details fail", () => {
  const streamError = (error) => validateServerRequest("events.host", sr({ type: "stream/error", error }));
  assert.equal(streamError({ code: "internal", message: "boom", details: {} }).ok, true);
  assert.equal(streamError({ code: "model-unavailable", message: "m", details: { provider: "p", model: "m" } }).ok, true);
  assert.match(streamError({ code: "model-unavailable", message: "m", details: { provider: "p" } }).reason, /details\.model: missing/);
  assert.match(streamError({ code: "no-such-code", message: "m", details: {} }).reason, /code: unknown "no-such-code"/);
});

test("server-responses and receipts", () => {
  const ok = { type: "server-response", rpcId: "r", result: { ok: true, value: { any: "thing" } } };
  assert.equal(checkServerResponse(ok), null);
  assert.equal(checkServerResponse({ ...ok, result: { ok: true, value: null } }), null);
  assert.match(checkServerResponse({ ...ok, result: { ok: true } }), /result\.value: missing/);
  assert.match(checkServerResponse({ ...ok, type: "server-request" }), /type: expected "server-response"/);
  assert.equal(checkServerResponse({ ...ok, result: { ok: false, error: { code: "agent-busy", message: "m", details: { reason: "cancelling" } } } }), null);
  assert.match(checkServerResponse({ ...ok, result: { ok: false, error: { code: "agent-busy", message: "m" } } }), /error\.details: missing/);
  assert.match(checkServerResponse({ ...ok, result: { ok: "yes" } }), /result\.ok: unknown "yes"/);
  assert.match(checkServerResponse({ hello: 1 }), /missing/);
  assert.equal(checkReceipt({ accepted: true }), null);
  assert.equal(checkReceipt({ accepted: false, reason: "not-pending" }), null);
  assert.ok(checkReceipt({ accepted: false, reason: "bored" }));
  assert.ok(checkReceipt({ accepted: "maybe" }));
});

// ---- names used in webui/js exist in the contract ------------------------------------------------

function sources(dir = WEBUI_JS) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (entry.name.endsWith(".js") && entry.name !== "contract.gen.js") out.push(path);
  }
  return out;
}

function literals(regex) {
  const found = [];
  for (const path of sources()) {
    const text = readFileSync(path, "utf8");
    for (const m of text.matchAll(regex)) found.push({ name: m[1], where: `${relative(WEBUI_JS, path)}:${text.slice(0, m.index).split("\n").length}` });
  }
  return found;
}

function unknown(found, known) {
  return found.filter((f) => !known.has(f.name)).map((f) => `${f.name} (${f.where})`);
}

test("webui/js names only methods, error codes, frame and event types the contract has", () => {
  const calls = literals(/\.call\(\s*"([^"]+)"/g);
  assert.ok(calls.length > 10, "the scan finds the client's calls");
  assert.deepEqual(unknown(calls, new Set(Object.keys(C.METHODS))), []);

  const codes = [...literals(/\bcode\s*[!=]==?\s*"([^"]+)"/g), ...literals(/\brpcError\(\s*"([^"]+)"/g)];
  assert.ok(codes.length > 3, "the scan finds error codes");
  assert.deepEqual(unknown(codes, new Set([...C.ERROR_CODES, ...CLIENT_ERROR_CODES])), []);

  const types = literals(/"([a-z]+\/[a-z-]+)"/g).filter((f) => !/^(image|text|application)\//.test(f.name));
  assert.ok(types.length > 20, "the scan finds frame and event types");
  assert.deepEqual(unknown(types, new Set([...C.FRAME_TYPES, ...C.EVENT_TYPES])), []);
});
