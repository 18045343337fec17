// The guards in front of marked's autolink and setext-heading rules (webui/js/views/markdown-guards.js)
// change how fast the window lexes a streamed paragraph, never what the tokens are.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Marked } from "../../webui/vendor/marked/marked.esm.js";
import { guardedTokenizer } from "../../webui/js/views/markdown-guards.js";

const plain = new Marked({ gfm: true, breaks: false });
const guarded = new Marked({ gfm: true, breaks: false, tokenizer: guardedTokenizer });

const SAMPLES = [
  "plain words and more words, then some more",
  "see https://example.com/a?b=c, http://x.y and ftp://files.example.org/pub.",
  "HTTPS://EXAMPLE.COM and Www.example.com and www.example.com/path)",
  "mail me: someone.else+tag@example.co.uk or mailto:a@b.cd or xmpp:chat@example.org",
  "not a mail: a@b, @handle, trailing-@ and x@y.z_",
  "Title\n=====\n\nSub\n---\n\nbody",
  "Title\n  ===\ntext\n   - not a list\nmore\n----",
  "a line\n- a list item\n- another\n\nthen = signs = inline and -- dashes",
  "| a | b |\n|---|---|\n| www.x.com | y@z.org |",
  "*emph* **strong** `code` ~~del~~ <http://auto.link> <1733560000000000000> [link](http://x.com)",
  "```\nhttps://in.code\n===\n```\n\ntext after",
  Array.from({ length: 200 }, (_, i) => `<${1733560000000000000n + BigInt(i)}>`).join(""),
  Array.from({ length: 200 }, (_, i) => `word${i} *and* \`code\` www.site${i}.org a${i}@b.cd, `).join(""),
];

test("the guarded tokenizer gives exactly marked's tokens and HTML", () => {
  for (const text of SAMPLES) {
    assert.deepEqual(guarded.lexer(text), plain.lexer(text), text.slice(0, 60));
    assert.equal(guarded.parse(text), plain.parse(text), text.slice(0, 60));
  }
});

test("the guards answer at once only where the rule cannot match", () => {
  assert.equal(guardedTokenizer.url("plain text"), undefined);
  assert.equal(guardedTokenizer.url("<1733> more"), undefined);
  for (const start of ["https://a.b", "http://a.b", "ftp://a.b", "www.a.b", "WWW.a.b", "mailto:a@b.c", "xmpp:a@b.c", "a.b+c@d.e"]) {
    assert.equal(guardedTokenizer.url(start), false, start); // marked's own rule decides
  }
  assert.equal(guardedTokenizer.lheading("one paragraph\nand its next line"), undefined);
  assert.equal(guardedTokenizer.lheading("Title\n==="), false);
  assert.equal(guardedTokenizer.lheading("Title\n   ---"), false);
});
