// Animations that run for as long as a turn runs change in steps: an eased one makes WebKitGTK
// render a frame every 16 ms in the web process and the window's GTK thread, competing with
// the bridge's pushes (docs/decisions/stepped-activity-pulses.md).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";

const CSS = new URL("../../webui/css/", import.meta.url);

/** [selector, declaration] of every `animation` shorthand that repeats forever. */
function infiniteAnimations() {
  const out = [];
  for (const name of readdirSync(CSS).filter((n) => n.endsWith(".css"))) {
    const text = readFileSync(new URL(name, CSS), "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
    for (const m of text.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
      for (const decl of m[2].split(";")) {
        const [prop, value] = decl.split(/:(.*)/s).map((s) => s?.trim());
        if (prop === "animation" && /\binfinite\b/.test(value)) out.push([m[1].trim(), value, name]);
      }
    }
  }
  return out;
}

// shown only while something loads, never for a whole turn
const WHILE_LOADING = new Set([".spinner", ".thumb.loading"]);

test("the indicators that pulse while a turn runs are stepped", () => {
  const found = infiniteAnimations();
  const selectors = found.map(([s]) => s);
  for (const must of [".dots i", ".running-dot"]) assert.ok(selectors.includes(must), `${must} has no infinite animation any more`);
  for (const [selector, value, file] of found) {
    if (WHILE_LOADING.has(selector)) continue;
    assert.match(value, /\bsteps\(/, `${file}: ${selector} { animation: ${value} } is eased; a stepped one renders a few frames a second`);
  }
});
