import { test } from "node:test";
import assert from "node:assert/strict";
import { downloadLine, formatBytes, mergeDownload, profileFor, sourceFor } from "../../webui/js/state/local-models.js";

test("sizes read like download sites list them", () => {
  assert.equal(formatBytes(986000000), "986 MB");
  assert.equal(formatBytes(2020000000), "2.0 GB");
  assert.equal(formatBytes(512), "512 bytes");
  assert.equal(formatBytes(null), "?");
});

test("a download row says where it is", () => {
  assert.equal(downloadLine({ state: "running", receivedBytes: 500000000, totalBytes: 1000000000 }), "Downloading… 500 MB of 1.0 GB (50 %)");
  assert.equal(downloadLine({ state: "paused", receivedBytes: 1000, totalBytes: null }), "Paused at 1.0 KB");
  assert.equal(downloadLine({ state: "failed", error: "the checksum does not match" }), "Failed: the checksum does not match");
});

test("frames update, add and drop downloads", () => {
  const a = mergeDownload([], { downloadId: "d1", name: "M", state: "running", receivedBytes: 1, totalBytes: 9 });
  assert.deepEqual(a.map((d) => [d.downloadId, d.receivedBytes]), [["d1", 1]]);
  const b = mergeDownload(a, { downloadId: "d1", state: "running", receivedBytes: 5, totalBytes: 9 });
  assert.equal(b[0].receivedBytes, 5);
  assert.equal(b[0].name, "M");
  assert.deepEqual(mergeDownload(b, { downloadId: "d1", state: "cancelled", receivedBytes: 5 }), []);
});

test("a typed path becomes a file URL, anything else is refused", () => {
  assert.equal(sourceFor(" https://e.test/m.gguf "), "https://e.test/m.gguf");
  assert.equal(sourceFor("/home/me/my model.gguf"), "file:///home/me/my%20model.gguf");
  assert.equal(sourceFor("model.gguf"), null);
  assert.equal(sourceFor(""), null);
});

test("a found server becomes a profile with a free id", () => {
  const s = { kind: "ollama", name: "Ollama", baseURL: "http://127.0.0.1:11434/v1" };
  assert.deepEqual(profileFor(s, [{ id: "ollama" }]), { id: "ollama-2", name: "Ollama", baseURL: "http://127.0.0.1:11434/v1" });
  assert.equal(profileFor({ ...s, kind: "llama.cpp" }, []).id, "llama-cpp");
});
