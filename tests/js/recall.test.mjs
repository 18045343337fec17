import { test } from "node:test";
import assert from "node:assert/strict";
import { Recall, sentTexts, forkPointBefore } from "../../webui/js/state/recall.js";
import { ev } from "./helpers.mjs";

const user = (text, extra = {}) => ({ kind: "user", content: [{ type: "text", text }], ...extra });

test("sentTexts: the person's messages, oldest first, repeats and image-only ones skipped", () => {
  const items = [user("one"), { kind: "assistant" }, user("two"), user("two"), { kind: "user", content: [{ type: "image" }] }, user("three", { steering: true })];
  assert.deepEqual(sentTexts(items), ["one", "two", "three"]);
});

test("ArrowUp walks back from the newest, ArrowDown forward to an empty box; editing stops it", () => {
  const texts = ["first", "second", "third"];
  const r = new Recall(() => texts);
  assert.equal(r.up("typed"), null, "a box with text keeps its ArrowUp");
  assert.equal(r.up(""), "third");
  assert.equal(r.up("third"), "second");
  assert.equal(r.up("second"), "first");
  assert.equal(r.up("first"), null, "nothing older");
  assert.equal(r.down("first"), "second");
  assert.equal(r.down("second"), "third");
  assert.equal(r.down("third"), "", "past the newest: empty again");
  assert.equal(r.down(""), null);
  assert.equal(r.up(""), "third");
  assert.equal(r.up("third, edited"), null, "an edited recall is the person's text now");
  assert.equal(new Recall(() => []).up(""), null);
});

test("forkPointBefore: the last turn end before the message, the first turn, or load more", () => {
  const events = [ev(10, "turn/start"), ev(11, "user/message"), ev(14, "turn/end"), ev(15, "turn/start"), ev(16, "user/message")];
  assert.deepEqual(forkPointBefore(events, 16, true), { at: 14 });
  assert.deepEqual(forkPointBefore(events, 11, true), { more: true });
  assert.deepEqual(forkPointBefore(events, 11, false), { at: null });
});
