// The theme (docs/decisions.md, "UX pass"): the `ui-appearance` setting (system | light | dark)
// sets <html data-theme>; the CSS tokens are light-dark() pairs resolved by `color-scheme`, so
// "system" follows the computer live. The last theme is kept in localStorage, so a reload paints
// in it before the host answers. The same section's `language` picks the page's language
// (i18n/i18n.js; docs/decisions.md, "Languages").

import { setLanguage } from "../i18n/i18n.js";

const KEY = "harnessdesk.theme";
const THEMES = new Set(["system", "light", "dark"]);

/** Paints the page in `theme` without remembering it (Settings previews a choice before Save). */
export function previewTheme(theme) {
  const t = THEMES.has(theme) ? theme : "system";
  document.documentElement.dataset.theme = t;
  return t;
}

export function applyTheme(theme) {
  const t = previewTheme(theme);
  try {
    localStorage.setItem(KEY, t);
  } catch {
    /* storage refused (private mode): the host still has it */
  }
}

/** At start-up, before the first answer: the theme this browser last used. */
export function applyCachedTheme() {
  let t = null;
  try {
    t = localStorage.getItem(KEY);
  } catch {
    /* no storage */
  }
  applyTheme(t);
}

/** The theme a `settings.describe` value holds (null: settings not offered to this page). */
export function themeOf(describe) {
  const view = describe?.namespaces?.find((n) => n.ns === "ui-appearance");
  return view ? view.value?.theme ?? "system" : null;
}

/** The language a `settings.describe` value holds ("system" | "zh-CN" | "en"; null: not offered). */
export function languageOf(describe) {
  const view = describe?.namespaces?.find((n) => n.ns === "ui-appearance");
  return view ? view.value?.language ?? "system" : null;
}

/** One `settings.describe` for the window's own namespaces: apply the theme and the language,
 * and let the welcome notice (views/onboarding.js) decide whether it shows. */
export async function checkUiSettings(config, onboarding) {
  const r = await config.describeSettings();
  const describe = r.ok ? r.value : null;
  const theme = themeOf(describe);
  if (theme) applyTheme(theme);
  const language = languageOf(describe);
  if (language) setLanguage(language);
  await onboarding.check(describe);
}
