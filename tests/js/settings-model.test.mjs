import { test } from "node:test";
import assert from "node:assert/strict";
import {
  addModel,
  choicesOf,
  credentialText,
  defaultRefFor,
  draftProfile,
  effortsOf,
  fallbackOf,
  fieldLabel,
  fieldOps,
  fieldsOf,
  profileIdFor,
  propertySchema,
  refsOf,
  removeModel,
  removeProfileOps,
  saveProfileOps,
} from "../../webui/js/state/settings-model.js";

const schema = {
  type: "object",
  properties: {
    threads: { anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }], default: null, title: "Threads" },
    profile: { $ref: "#/$defs/P" },
    defaultPreset: { type: "string", enum: ["a", "b"], oneOf: [{ const: "a", title: "A", description: "first" }, { const: "b", title: "B", description: "second" }], default: "a" },
    baseURL: { type: "string", default: "https://x" },
  },
  $defs: { P: { type: "object", title: "P" } },
};

test("schema reading: $ref and nullable anyOf resolve; labels and enum choices", () => {
  assert.equal(propertySchema(schema, schema.properties.threads).type, "integer");
  assert.equal(propertySchema(schema, schema.properties.profile).type, "object");
  assert.deepEqual(fieldsOf(schema).map((f) => f.name), ["threads", "profile", "defaultPreset", "baseURL"]);
  assert.equal(fieldLabel("streamIdleTimeoutMs", {}), "Stream idle timeout ms");
  assert.equal(fieldLabel("baseURL", { title: "Baseurl" }), "Base URL");
  assert.equal(fieldLabel("defaultPreset", { title: "Default for new sessions" }), "Default for new sessions");
  assert.deepEqual(choicesOf(schema.properties.defaultPreset), [
    { value: "a", title: "A", description: "first" },
    { value: "b", title: "B", description: "second" },
  ]);
  assert.deepEqual(choicesOf({ enum: ["x"] }), [{ value: "x", title: "x", description: "" }]);
});

test("profile ids and credential refs mirror the host's rules", () => {
  assert.equal(profileIdFor("My Ollama", new Set()), "my-ollama");
  assert.equal(profileIdFor("My Ollama", new Set(["my-ollama", "my-ollama-2"])), "my-ollama-3");
  assert.equal(profileIdFor("DeepSeek", new Set()), "deepseek-2");
  assert.equal(profileIdFor("", new Set()), "endpoint");
  assert.equal(defaultRefFor("my-ollama"), "MY_OLLAMA_API_KEY");
  const spaces = [{ value: { apiKeyEnv: "DEEPSEEK_API_KEY" } }, { value: { profiles: [{ apiKeyEnv: "A" }, {}, { apiKeyEnv: "A" }] } }];
  assert.deepEqual(refsOf(spaces), ["DEEPSEEK_API_KEY", "A"]);
  assert.equal(credentialText({ configured: true, source: "env" }), "Configured (environment)");
  assert.equal(credentialText({ configured: true, source: "file" }), "Configured (file)");
  assert.equal(credentialText({ configured: false }), "Not configured");
  assert.equal(credentialText(null), "Not configured");
});

test("models and their efforts", () => {
  const models = [{ id: "a", reasoningEfforts: ["low", "high"] }, { id: "b" }, { id: "c", reasoningEfforts: ["high", "max"] }];
  assert.deepEqual(effortsOf(models), ["low", "high", "max"]);
  assert.deepEqual(effortsOf(models, "c"), ["high", "max"]);
  assert.deepEqual(effortsOf(models, "b"), []);
  assert.deepEqual(addModel([{ id: "a" }], "a"), [{ id: "a" }]);
  assert.deepEqual(addModel([{ id: "a" }], "b", "Bee"), [{ id: "a" }, { id: "b", name: "Bee" }]);
  assert.deepEqual(addModel([], "b", "b"), [{ id: "b" }]);
  assert.deepEqual(removeModel(models, "b").map((m) => m.id), ["a", "c"]);
});

test("a profile draft and the ops that save or remove it", () => {
  const typed = draftProfile({ id: "box", name: " Box ", baseURL: " http://h/v1 ", apiKeyEnv: null, models: [{ id: "m" }], reasoningEffort: "" }, { keyTyped: true });
  assert.deepEqual(typed, { id: "box", name: "Box", baseURL: "http://h/v1", apiKeyEnv: "BOX_API_KEY", models: [{ id: "m" }] });
  const plain = draftProfile({ id: "box", name: "", baseURL: "http://h", apiKeyEnv: null, models: [], reasoningEffort: "high", extra: { models: [{ id: "old" }] } });
  assert.deepEqual(plain, { id: "box", name: "box", baseURL: "http://h", reasoningEffort: "high" });
  assert.deepEqual(saveProfileOps(2, plain), [{ op: "set", path: ["profiles", "2"], value: plain }]);
  assert.deepEqual(removeProfileOps(0), [{ op: "unset", path: ["profiles", "0"] }]);
});

test("field ops keep only real choices in the user layer", () => {
  const view = { schema, base: { baseURL: "https://base" } };
  assert.deepEqual(fallbackOf(view), { threads: null, defaultPreset: "a", baseURL: "https://base" });
  assert.deepEqual(fieldOps({ baseURL: "https://base", defaultPreset: "b", threads: null }, fallbackOf(view)), [
    { op: "unset", path: ["baseURL"] },
    { op: "set", path: ["defaultPreset"], value: "b" },
    { op: "unset", path: ["threads"] },
  ]);
});

test("a refused setting's place is said in words, never as a schema path", async () => {
  const { issueLabel, issueLines } = await import("../../webui/js/state/settings-model.js");
  assert.equal(issueLabel(["profiles", "0", "baseURL"]), "Endpoint 1 · Base URL");
  assert.equal(issueLabel(["profiles", "1", "models", "0", "id"]), "Endpoint 2 · Model 1 · Id");
  assert.equal(issueLabel(["streamIdleTimeoutMs"]), "Silence timeout");
  const error = { code: "settings-rejected", details: { ns: "x", issues: [{ loc: ["profiles", "0", "baseURL"], msg: "must be an http(s) URL" }] } };
  assert.deepEqual(issueLines(error), ["Endpoint 1 · Base URL: must be an http(s) URL"]);
  assert.equal(issueLines({ code: "settings-rejected", details: { ns: "x" } }), null);
});

test("an endpoint's key slot follows its name unless the person chose it", async () => {
  const { keyRefFor, keySlotAfter } = await import("../../webui/js/state/settings-model.js");
  assert.equal(keyRefFor("Scripted box"), "SCRIPTED_BOX_API_KEY");
  assert.equal(keyRefFor("Scripted box", new Set(["SCRIPTED_BOX_API_KEY"])), "SCRIPTED_BOX_2_API_KEY");
  const file = { configured: true, source: "file" };
  const made = { id: "my-endpoint", name: "My endpoint", apiKeyEnv: "MY_ENDPOINT_API_KEY" };
  assert.deepEqual(keySlotAfter(made, "Work box", new Set(), file), { ref: "WORK_BOX_API_KEY", wanted: "WORK_BOX_API_KEY", move: "MY_ENDPOINT_API_KEY" });
  assert.deepEqual(keySlotAfter(made, "Work box", new Set(), { configured: false }), { ref: "WORK_BOX_API_KEY", wanted: "WORK_BOX_API_KEY", move: null });
  const chosen = { id: "box", name: "Box", apiKeyEnv: "OPENROUTER_KEY" };
  assert.equal(keySlotAfter(chosen, "Work box", new Set(), file).ref, "OPENROUTER_KEY"); // the person's own name stays
  assert.equal(keySlotAfter(made, "Work box", new Set(), { configured: true, source: "env" }).ref, "MY_ENDPOINT_API_KEY");
  assert.deepEqual(keySlotAfter({ id: "x", name: "X" }, "New", new Set(), null), { ref: null, wanted: "NEW_API_KEY", move: null });
});
