import { test } from "node:test";
import assert from "node:assert/strict";
import { applyChoice, commandLine, slashItems, slashToken } from "../../webui/js/state/slash.js";

const catalogue = {
  commands: [{ name: "plan", description: "Plan first", input: { hint: "[off|message]" } }, { name: "permission", description: "Permissions", input: { hint: "<preset>" } }],
  skills: [{ name: "pdf", description: "Fill PDF forms" }, { name: "deploy-plan", description: "Ship it" }],
};

test("the token around the caret", () => {
  assert.deepEqual(slashToken("/pl", 3), { start: 0, end: 3, query: "pl", atStart: true });
  assert.deepEqual(slashToken("fix this /pd", 12), { start: 9, end: 12, query: "pd", atStart: false });
  assert.deepEqual(slashToken("a /pdf b", 4), { start: 2, end: 6, query: "pdf", atStart: false });
  assert.equal(slashToken("see /usr/bin", 12), null);
  assert.equal(slashToken("5/8", 3), null);
  assert.equal(slashToken("no slash", 8), null);
  assert.deepEqual(slashToken("/", 1), { start: 0, end: 1, query: "", atStart: true });
});

test("entries: commands only at the start, prefix before substring, then skills", () => {
  const names = (t) => slashItems(catalogue, t).map((x) => `${x.kind}:${x.name}`);
  assert.deepEqual(names(slashToken("/", 1)), ["command:permission", "command:plan", "client:help", "client:model", "client:new", "skill:deploy-plan", "skill:pdf"]);
  assert.deepEqual(names(slashToken("/pl", 3)), ["command:plan", "skill:deploy-plan"]);
  assert.deepEqual(names(slashToken("x /p", 4)), ["skill:pdf", "skill:deploy-plan"]);
  assert.equal(slashItems(catalogue, slashToken("/p", 2))[0].hint, "<preset>");
  assert.deepEqual(slashItems(catalogue, null), []);
});

test("choosing replaces the token and leaves the caret after a space", () => {
  assert.deepEqual(applyChoice("/pl", slashToken("/pl", 3), { name: "plan" }), { text: "/plan ", caret: 6 });
  const text = "use /pd on it";
  assert.deepEqual(applyChoice(text, slashToken(text, 7), { name: "pdf" }), { text: "use /pdf on it", caret: 9 });
});

test("a command line is a known name at byte 0", () => {
  const names = new Set(["plan", "help"]);
  assert.deepEqual(commandLine("/plan off", names), { name: "plan", input: " off" });
  assert.deepEqual(commandLine("/help", names), { name: "help", input: "" });
  assert.equal(commandLine(" /plan", names), null);
  assert.equal(commandLine("/pdf this", names), null);
  assert.equal(commandLine("/planx", names), null);
});
