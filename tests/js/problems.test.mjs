import { test } from "node:test";
import assert from "node:assert/strict";
import { ERROR_CODES } from "../../webui/js/contract.gen.js";
import { MESSAGES, classifyProblem, describeError, providerProblem } from "../../webui/js/state/problems.js";

test("every error code of the contract has a message, and every message a code", () => {
  assert.deepEqual(ERROR_CODES.filter((code) => !Object.hasOwn(MESSAGES, code)), [], "codes without a message in state/problems.js");
  assert.deepEqual(Object.keys(MESSAGES).filter((code) => !ERROR_CODES.includes(code)), [], "messages for codes the contract does not have");
  for (const code of ERROR_CODES) assert.ok(MESSAGES[code].trim().length > 0 && MESSAGES[code] !== `error.${code}`, code);
});

test("describeError: the code's message, with the useful detail; the host's words where they help", () => {
  assert.equal(describeError({ code: "agent-busy", message: "", details: { reason: "cancelling" } }), "The agent cannot take this input right now. (cancelling)");
  assert.equal(describeError({ code: "model-unavailable", message: "", details: { provider: "deepseek", model: "chat" } }), "Model deepseek/chat is unavailable.");
  assert.equal(describeError({ code: "session-not-found", message: "raw", details: { sessionId: "s" } }), "This session no longer exists.");
  assert.equal(describeError({ code: "internal", message: "disk full", details: {} }), "The host failed to do this. (disk full)");
  const full = "the disk is full: cannot save to /d/harnessdesk.sqlite3 (database or disk is full); free some space";
  assert.equal(describeError({ code: "storage-error", message: full, details: { reason: "disk-full" } }), `Your sessions cannot be saved right now. (${full})`);
  assert.match(describeError({ code: "storage-error", message: "", details: { reason: "corrupt" } }), /cannot be saved/);
  assert.equal(describeError({ code: "transport", message: "network down", details: {} }), "The host did not answer. (network down)");
  assert.equal(describeError({ code: "constructor", message: "odd" }), "odd");
  assert.equal(describeError(new Error("plain")), "plain");
  assert.equal(describeError(null), "");
});

test("classifyProblem: by error code, or by the provider's HTTP status on a failed turn", () => {
  assert.equal(classifyProblem({ code: "model-unavailable", message: "", details: { provider: "p", model: "m" } }), "model-unavailable");
  assert.equal(classifyProblem({ code: "credential-rejected", message: "", details: {} }), "provider-not-configured");
  // a turn/end {reason: {kind: "error", error}} from a provider that refused the key
  assert.equal(classifyProblem({ message: "HTTP 401 from deepseek", status: 401 }), "provider-not-configured");
  assert.equal(classifyProblem({ message: "forbidden", status: 403 }), "provider-not-configured");
  assert.equal(classifyProblem({ message: "overloaded", status: 529 }), null);
  // message text is not parsed: only typed facts count
  assert.equal(classifyProblem({ code: "internal", message: "401 Unauthorized: bad API key", details: {} }), null);
  assert.equal(classifyProblem("no API key configured"), null);
  assert.equal(classifyProblem(null), null);
});

test("providerProblem: the default provider's route cannot serve", () => {
  const providers = [
    { provider: "local", active: true },
    { provider: "deepseek", active: false, problem: "DeepSeek needs an API key (DEEPSEEK_API_KEY)" },
  ];
  assert.equal(providerProblem(providers, "deepseek"), "provider-not-configured");
  assert.equal(providerProblem(providers, "local"), null);
  assert.equal(providerProblem(providers, "unknown-route"), null); // the model banner handles it
  assert.equal(providerProblem(null, "deepseek"), null);
});

test("describeError: a turn whose snapshots failed says why it cannot be reverted, not that there is nothing", () => {
  const why = "another git (pid 7) is still writing the snapshot repository /d/git";
  const err = { code: "revert-unavailable", message: "", details: { sessionId: "s", turn: 1, reason: `what its shell commands changed was not recorded: ${why}`, unrecorded: why } };
  assert.equal(describeError(err), `This turn cannot be reverted: what its shell commands changed was not recorded (${why}).`);
  const plain = { code: "revert-unavailable", message: "", details: { sessionId: "s", turn: 1, reason: "that turn changed no files" } };
  assert.equal(describeError(plain), "There is nothing to revert here. (that turn changed no files)");
});
