import { test } from "node:test";
import assert from "node:assert/strict";
import { SseParser } from "../../webui/js/client/sse.js";

const enc = new TextEncoder();

function parseChunks(chunks) {
  const events = [];
  const comments = [];
  const p = new SseParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c) });
  for (const c of chunks) p.push(c);
  p.end();
  return { events, comments };
}

const STREAM =
  ": hello\n\n" +
  'id: 1\ndata: {"a":"héllo wörld ✓ 𝄞"}\n\n' +
  ": heartbeat\r\n" +
  "id: 2\r\ndata: line1\r\ndata: line2\r\n\r\n" +
  "event: custom\rid: 3\rdata: cr only\r\r" +
  "data:nospace\n\n" +
  "retry: 100\nunknown: x\ndata: 中文字符\n\n";

const EXPECTED = [
  { data: '{"a":"héllo wörld ✓ 𝄞"}', event: "message", id: "1" },
  { data: "line1\nline2", event: "message", id: "2" },
  { data: "cr only", event: "custom", id: "3" },
  { data: "nospace", event: "message", id: "3" },
  { data: "中文字符", event: "message", id: "3" },
];

test("parses a whole stream: data, id, event, comments, CRLF, CR", () => {
  const { events, comments } = parseChunks([enc.encode(STREAM)]);
  assert.deepEqual(events, EXPECTED);
  assert.deepEqual(comments, ["hello", "heartbeat"]);
});

test("every split at every byte position gives the same events", () => {
  const bytes = enc.encode(STREAM);
  for (let i = 0; i <= bytes.length; i++) {
    const { events, comments } = parseChunks([bytes.slice(0, i), bytes.slice(i)]);
    assert.deepEqual(events, EXPECTED, `split at ${i}`);
    assert.deepEqual(comments, ["hello", "heartbeat"], `split at ${i}`);
  }
});

test("every pair of split points (three chunks) gives the same events", () => {
  const bytes = enc.encode(STREAM);
  for (let i = 0; i <= bytes.length; i += 3) {
    for (let j = i; j <= bytes.length; j += 2) {
      const { events } = parseChunks([bytes.slice(0, i), bytes.slice(i, j), bytes.slice(j)]);
      assert.deepEqual(events, EXPECTED, `split at ${i},${j}`);
    }
  }
});

test("byte-at-a-time feeding (multi-byte UTF-8 split inside characters)", () => {
  const bytes = enc.encode(STREAM);
  const chunks = [...bytes].map((b) => Uint8Array.of(b));
  assert.deepEqual(parseChunks(chunks).events, EXPECTED);
});

test("a CRLF split between CR and LF is one line end, not two", () => {
  const { events } = parseChunks([enc.encode("data: a\r"), enc.encode("\ndata: b\r"), enc.encode("\n\r"), enc.encode("\n")]);
  assert.deepEqual(events, [{ data: "a\nb", event: "message", id: "" }]);
});

test("an unterminated last event is discarded at end of stream", () => {
  const { events } = parseChunks([enc.encode("data: one\n\ndata: two")]);
  assert.deepEqual(events.map((e) => e.data), ["one"]);
});

test("comment-only input (heartbeats) dispatches nothing but reports comments", () => {
  const { events, comments } = parseChunks([enc.encode(":\n\n: ping\n\n")]);
  assert.equal(events.length, 0);
  assert.deepEqual(comments, ["", "ping"]);
});

test("a leading BOM is ignored and empty data lines count", () => {
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode("data\ndata:\n\n")]);
  assert.deepEqual(parseChunks([bytes]).events, [{ data: "\n", event: "message", id: "" }]);
});
