// The web client's token: taken from the one-time link into sessionStorage, dropped from the URL.
import test from "node:test";
import assert from "node:assert/strict";
import { takeLinkToken } from "../../webui/js/client/token.js";

function fakeWindow(href, stored = {}) {
  const data = { ...stored };
  const replaced = [];
  return {
    location: { href },
    sessionStorage: { getItem: (k) => data[k] ?? null, setItem: (k, v) => (data[k] = String(v)) },
    history: { state: null, replaceState: (_s, _t, url) => replaced.push(url) },
    data,
    replaced,
  };
}

test("the link's token is stored for this tab and removed from the address bar", () => {
  const win = fakeWindow("http://127.0.0.1:8123/?token=abc123&x=1#frag");
  assert.equal(takeLinkToken(win), "abc123");
  assert.deepEqual(Object.values(win.data), ["abc123"]);
  assert.deepEqual(win.replaced, ["/?x=1#frag"]);
});

test("a reload (no token in the URL) uses the stored one; nothing stored means no token", () => {
  assert.equal(takeLinkToken(fakeWindow("http://127.0.0.1:8123/", { "harnessdesk.token": "kept" })), "kept");
  const fresh = fakeWindow("http://127.0.0.1:8123/");
  assert.equal(takeLinkToken(fresh), null);
  assert.deepEqual(fresh.replaced, []);
});

test("no storage (disabled) still yields the link's token; a bare window yields none", () => {
  const win = { location: { href: "http://localhost:1/?token=zz" }, get sessionStorage() { throw new Error("denied"); } };
  assert.equal(takeLinkToken(win), "zz");
  assert.equal(takeLinkToken({ location: { protocol: "http:" } }), null);
});
