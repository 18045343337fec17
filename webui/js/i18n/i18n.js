// The page's language (docs/architecture.md, "Languages"; docs/decisions.md, "Languages"): one
// catalogue per language with the same keys (en.js, zh-CN.js), `t(key, params)` for every string
// a person sees, and a switch that relabels what is on screen without a reload.
//
// The language is the `ui-appearance` setting `language` (system | zh-CN | en); "system" follows
// the window's system locale (the desktop shell sets HARNESSDESK_SYSTEM_LANGUAGES) or the
// browser's `navigator.languages`. The last choice is kept in localStorage so a reload paints in
// it before the host answers. Runs in Node too (the state modules' tests): nothing here touches
// the DOM unless there is one.

import en from "./en.js";
import zhCN from "./zh-CN.js";

export const LANGUAGES = ["zh-CN", "en"];
export const PREFERENCES = ["system", ...LANGUAGES];
const CATALOGUES = { en, "zh-CN": zhCN };
const KEY = "harnessdesk.language";
const MEMO_LIMIT = 5000;
/** Attributes whose text is the person's to read (relabelled on a switch). */
const ATTRIBUTES = ["title", "placeholder", "aria-label", "alt", "aria-roledescription"];

let preference = "system";
let current = "en";
let memo = new Map(); // text shown in the current language → [key, params] (for relabelling)
const listeners = new Set();

/** The language `pref` resolves to, given the system's (or browser's) ordered language tags:
 * any Chinese tag picks Simplified Chinese (the only Chinese catalogue), else English. */
export function resolveLanguage(pref, languages) {
  if (LANGUAGES.includes(pref)) return pref;
  for (const tag of languages ?? []) {
    const l = String(tag).toLowerCase();
    if (l === "zh" || l.startsWith("zh-") || l.startsWith("zh_")) return "zh-CN";
    if (l === "en" || l.startsWith("en-") || l.startsWith("en_")) return "en";
  }
  return "en";
}

/** The system's languages: the desktop window's locale when the shell gave it, else the browser's. */
export function systemLanguages() {
  const given = globalThis.HARNESSDESK_SYSTEM_LANGUAGES;
  if (Array.isArray(given) && given.length) return given;
  const nav = globalThis.navigator;
  if (nav?.languages?.length) return nav.languages;
  return nav?.language ? [nav.language] : [];
}

/** The language shown now ("zh-CN" | "en"), also the BCP 47 locale for Intl. */
export function language() {
  return current;
}

/** The message `key` in the current language, `{name}` placeholders filled from `params`
 * (numbers formatted for the language; `count` picks the plural form where the language has one). */
export function t(key, params) {
  const text = render(current, key, params);
  if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value);
  memo.set(text, [key, params]);
  return text;
}

/** Whether the catalogue has `key` (for host words that may have a translation: settings fields). */
export function has(key) {
  return Object.hasOwn(CATALOGUES.en, key);
}

/** `t(key)` when the catalogue has it, else `fallback` (a host's own words). */
export function tOr(key, fallback, params) {
  return has(key) ? t(key, params) : fallback;
}

function render(lang, key, params) {
  let msg = CATALOGUES[lang][key] ?? CATALOGUES.en[key];
  if (msg === undefined) {
    globalThis.console?.warn?.(`i18n: no message "${key}"`);
    return key;
  }
  if (typeof msg === "object") msg = msg[pluralRule(lang).select(Number(params?.count ?? 0))] ?? msg.other;
  if (!params) return msg;
  return msg.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(params, name) ? show(params[name]) : whole));
}

function show(value) {
  return typeof value === "number" ? number(value) : String(value ?? "");
}

const cache = new Map();
function cached(kind, options, make) {
  const id = `${current}|${kind}|${JSON.stringify(options ?? {})}`;
  let f = cache.get(id);
  if (!f) {
    f = make(current, options);
    cache.set(id, f);
  }
  return f;
}

function pluralRule(lang) {
  const id = `${lang}|plural`;
  let f = cache.get(id);
  if (!f) cache.set(id, (f = new Intl.PluralRules(lang)));
  return f;
}

/** A number in the language's form (grouping, decimal sign); `options` as Intl.NumberFormat's. */
export function number(value, options) {
  return cached("number", options, (l, o) => new Intl.NumberFormat(l, o)).format(value);
}

/** A date and/or time in the language's form; `options` as Intl.DateTimeFormat's. */
export function dateTime(value, options) {
  return cached("date", options, (l, o) => new Intl.DateTimeFormat(l, o)).format(value);
}

/** A list ("a, b and c" / "a、b和c"). */
export function list(items, options = { type: "conjunction" }) {
  return cached("list", options, (l, o) => new Intl.ListFormat(l, o)).format(items);
}

/** Call `fn(language)` after each switch; returns the unsubscribe. */
export function onLanguage(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function remembered() {
  try {
    return globalThis.localStorage?.getItem(KEY) ?? null;
  } catch {
    return null; // no storage
  }
}

/** At start-up, before the first view is built: the choice this browser last used. */
export function applyCachedLanguage() {
  setLanguage(remembered() ?? "system", { remember: false });
  if (globalThis.addEventListener) globalThis.addEventListener("languagechange", () => preference === "system" && setLanguage("system", { remember: false }));
}

/**
 * Show the page in `pref` ("system" | "zh-CN" | "en"): what is on screen is relabelled at once
 * (text nodes and the ATTRIBUTES whose text a `t()` call made, `data-i18n*` elements), then the
 * listeners re-render what they build from state. `remember: false` previews without keeping it
 * (Settings before Save). Returns whether the shown language changed.
 */
export function setLanguage(pref, { remember = true } = {}) {
  preference = PREFERENCES.includes(pref) ? pref : "system";
  if (remember) {
    try {
      globalThis.localStorage?.setItem(KEY, preference);
    } catch {
      /* storage refused (private mode): the host still has it */
    }
  }
  const next = resolveLanguage(preference, systemLanguages());
  const doc = globalThis.document;
  if (doc?.documentElement) doc.documentElement.lang = next;
  if (next === current) {
    if (doc?.documentElement) applyStatic(doc);
    return false;
  }
  const shown = memo;
  memo = new Map();
  current = next;
  if (doc?.documentElement) relabel(doc.documentElement, shown);
  for (const fn of listeners) {
    try {
      fn(current);
    } catch (err) {
      globalThis.console?.error?.(err);
    }
  }
  return true;
}

/** The `data-i18n` (text), `data-i18n-title`, `-placeholder` and `-aria-label` of static HTML. */
export function applyStatic(root) {
  for (const el of root.querySelectorAll("[data-i18n], [data-i18n-title], [data-i18n-placeholder], [data-i18n-aria-label]")) {
    if (el.dataset.i18n) el.textContent = t(el.dataset.i18n);
    if (el.dataset.i18nTitle) el.title = t(el.dataset.i18nTitle);
    if (el.dataset.i18nPlaceholder) el.placeholder = t(el.dataset.i18nPlaceholder);
    if (el.dataset.i18nAriaLabel) el.setAttribute("aria-label", t(el.dataset.i18nAriaLabel));
  }
}

/** Walk the page (skipping what is not ours to translate: `translate="no"` and what inherits
 * it, i.e. model output, paths, code, the host's own words) and put each text a t() call made in
 * the language before into the current one. */
function relabel(root, shown) {
  const doc = root.ownerDocument;
  applyStatic(doc);
  const walker = doc.createTreeWalker(root, doc.defaultView.NodeFilter.SHOW_ELEMENT | doc.defaultView.NodeFilter.SHOW_TEXT);
  for (let n = walker.currentNode; n; n = walker.nextNode()) {
    if (n.nodeType === 3) {
      const hit = n.parentElement?.translate !== false ? shown.get(n.data) : null;
      if (hit) n.data = t(hit[0], hit[1]);
      continue;
    }
    if (n._relabel) n._relabel(); // a sentence around elements (views/dom.js, tNodes)
    if (n.translate === false) continue;
    for (const name of ATTRIBUTES) {
      const value = n.getAttribute(name);
      const hit = value ? shown.get(value) : null;
      if (hit) n.setAttribute(name, t(hit[0], hit[1]));
    }
  }
}
