// The message catalogues (docs/decisions.md, "Languages"): the same keys and the same
// placeholders in both languages, plural forms only where the language has them, every key the
// page asks for present, and t() filling, counting and formatting for the language shown.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import en from "../../webui/js/i18n/en.js";
import zh from "../../webui/js/i18n/zh-CN.js";
import { LANGUAGES, language, number, resolveLanguage, setLanguage, t, tOr } from "../../webui/js/i18n/i18n.js";

const WEBUI = join(dirname(fileURLToPath(import.meta.url)), "../../webui");
const CATALOGUES = { en, "zh-CN": zh };
const PLURAL_FORMS = new Set(["zero", "one", "two", "few", "many", "other"]);

/** The placeholders of a message (every plural form's together). */
function placeholders(message) {
  const texts = typeof message === "string" ? [message] : Object.values(message);
  return [...new Set(texts.flatMap((s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1])))].sort();
}

/** Every webui/js source file but the catalogues and the generated contract. */
function sources() {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".js") && !["en.js", "zh-CN.js", "contract.gen.js"].includes(entry.name)) out.push(path);
    }
  };
  walk(join(WEBUI, "js"));
  return out;
}

test("both languages have the same keys", () => {
  const missing = (a, b) => Object.keys(a).filter((k) => !Object.hasOwn(b, k));
  assert.deepEqual(missing(en, zh), [], "keys only in en.js");
  assert.deepEqual(missing(zh, en), [], "keys only in zh-CN.js");
  assert.ok(Object.keys(en).length > 500, "the catalogues are read");
});

test("a message has the same placeholders in both languages", () => {
  const differ = Object.keys(en).filter((k) => Object.hasOwn(zh, k) && placeholders(en[k]).join() !== placeholders(zh[k]).join());
  assert.deepEqual(differ.map((k) => `${k}: en {${placeholders(en[k])}} zh-CN {${placeholders(zh[k])}}`), []);
});

test("plural forms: English's are CLDR forms with `other` that differ; Chinese has none", () => {
  for (const [key, message] of Object.entries(en)) {
    if (typeof message === "string") continue;
    assert.ok(Object.keys(message).every((f) => PLURAL_FORMS.has(f)) && "other" in message, key);
    assert.ok(new Set(Object.values(message)).size > 1, `${key}: forms that do not differ are one string`);
  }
  assert.deepEqual(Object.keys(zh).filter((k) => typeof zh[k] !== "string"), []);
  for (const [lang, catalogue] of Object.entries(CATALOGUES)) {
    for (const [key, message] of Object.entries(catalogue)) {
      for (const text of typeof message === "string" ? [message] : Object.values(message)) assert.ok(text.trim() || key === "common.sentenceGap", `${lang} ${key} is empty`);
    }
  }
});

test("every key the page names exists: t(), tOr(), tNodes() calls, data-i18n attributes, key tables", () => {
  const named = new Map(); // key → where
  for (const file of sources()) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/\b(?:t|tr|tOr|tNodes)\(\s*"([^"]+)"/g)) named.set(m[1], file);
    // key tables: { kind: "some.key", … } and constants that hold keys ("section.key")
    for (const m of text.matchAll(/:\s*"([a-z][A-Za-z]*\.[A-Za-z][\w.-]*)"/g)) if (Object.hasOwn(en, m[1]) || /^(settings|sessionItem|slash|command|undo|row|conversation|turn)\./.test(m[1])) named.set(m[1], file);
  }
  const html = readFileSync(join(WEBUI, "index.html"), "utf8");
  for (const m of html.matchAll(/data-i18n(?:-[a-z-]+)?="([^"]+)"/g)) named.set(m[1], "index.html");
  assert.ok(named.size > 500, `the scan finds the keys (${named.size})`);
  const missing = [...named].filter(([key]) => !Object.hasOwn(en, key)).map(([key, file]) => `${key} (${file.replace(WEBUI, "webui")})`);
  assert.deepEqual(missing, []);
});

test("every key prefix the page builds (t(`x.${…}`)) has keys", () => {
  for (const file of sources()) {
    for (const m of readFileSync(file, "utf8").matchAll(/\b(?:t|tr|tOr)\(\s*`([\w.-]+)\.\$\{/g)) {
      assert.ok(Object.keys(en).some((k) => k.startsWith(`${m[1]}.`)), `${m[1]}.* in ${file}`);
    }
  }
});

test("resolveLanguage: the first language of the list that has a catalogue, any Chinese as zh-CN", () => {
  assert.deepEqual(LANGUAGES, ["zh-CN", "en"]);
  assert.equal(resolveLanguage("system", ["zh-CN", "en-US"]), "zh-CN");
  assert.equal(resolveLanguage("system", ["zh-TW"]), "zh-CN");
  assert.equal(resolveLanguage("system", ["zh_CN.UTF-8"]), "zh-CN");
  assert.equal(resolveLanguage("system", ["fr-FR", "zh", "en"]), "zh-CN");
  assert.equal(resolveLanguage("system", ["fr-FR", "en-GB", "zh"]), "en");
  assert.equal(resolveLanguage("system", ["fr-FR"]), "en");
  assert.equal(resolveLanguage("system", []), "en");
  assert.equal(resolveLanguage("en", ["zh-CN"]), "en");
  assert.equal(resolveLanguage("zh-CN", ["en-US"]), "zh-CN");
  assert.equal(resolveLanguage("nonsense", ["zh-CN"]), "zh-CN");
});

test("t(): placeholders, English plurals by count, numbers in the language's form; a switch changes every later message", () => {
  setLanguage("en", { remember: false });
  assert.equal(language(), "en");
  assert.equal(t("import.done", { name: "a.zip", workspace: "recipes" }), "Imported a.zip into recipes.");
  assert.equal(t("summary.messages", { count: 1 }), "1 message");
  assert.equal(t("summary.messages", { count: 1234 }), "1,234 messages");
  assert.equal(t("turn.usage", { input: 12345, output: 6 }), "12,345 in · 6 out");
  assert.equal(tOr("no.such.key", "the host's words"), "the host's words");
  setLanguage("zh-CN", { remember: false });
  assert.equal(language(), "zh-CN");
  assert.equal(t("summary.messages", { count: 1 }), "1 条消息");
  assert.equal(t("summary.messages", { count: 1234 }), "1,234 条消息");
  assert.equal(t("sidebar.newSession"), "新建会话");
  assert.equal(number(0.5, { style: "percent" }), "50%");
  assert.equal(tOr("setting.ui-appearance.theme", "Theme"), "主题");
  setLanguage("en", { remember: false });
  assert.equal(t("sidebar.newSession"), "New session");
});
