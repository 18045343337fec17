// Where a streaming markdown text may be cut (webui/js/views/transcript-split.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { cutOf, endsInOpenFence } from "../../webui/js/views/transcript-split.js";

const closedUpTo = (text, from) => cutOf(text, from).closed;

test("a paragraph closes at a blank line; the open last line never does", () => {
  assert.equal(closedUpTo("one", 0), 0);
  assert.equal(closedUpTo("one\ntwo", 0), 0);
  const text = "one\n\ntwo\n\nthree";
  assert.equal(closedUpTo(text, 0), "one\n\ntwo\n\n".length);
  assert.equal(closedUpTo(text, 5), "one\n\ntwo\n\n".length);
});

test("a blank line inside a code fence is no cut, after the fence closes it is", () => {
  const open = "intro\n\n```py\na = 1\n\nb = 2\n";
  assert.equal(closedUpTo(open, 0), "intro\n\n".length);
  const closed = open + "```\n\nafter";
  assert.equal(closedUpTo(closed, 0), closed.length - "after".length);
});

test("a fence closes only with its own character and at least its length", () => {
  const text = "````\nx\n```\n\n~~~\n\n````\n\nend";
  assert.equal(closedUpTo(text, 0), text.length - "end".length);
  const tilde = "~~~\n```\n\nstill code\n";
  assert.equal(closedUpTo(tilde, 0), 0);
});

test("a text ends in an open fence while its code block streams", () => {
  assert.equal(endsInOpenFence("intro\n\n```py\na = 1\n"), true);
  assert.equal(endsInOpenFence("intro\n\n```py\na = 1\n```\n"), false);
  assert.equal(endsInOpenFence("````\nx\n```\n"), true); // a shorter fence closes nothing
  assert.equal(endsInOpenFence("plain\ntext"), false);
  assert.equal(endsInOpenFence("a\n\n~~~\nb\n", "a\n\n".length), true);
  const streaming = "intro\n\nmore\n\n```py\na = 1\n";
  const { closed, open } = cutOf(streaming, 0);
  assert.equal(open, true); // one pass gives both, and the tail after the cut agrees
  assert.equal(endsInOpenFence(streaming.slice(closed)), open);
});
