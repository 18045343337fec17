// No import cycle among the web UI's modules: a module that imports one that imports it back
// sees the other half uninitialised while the graph loads (and the reader cannot tell which way
// the dependency runs). Reads every module's static `import … from` / `export … from` under
// webui/js (the vendored libraries are not ours) and fails naming each cycle found.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../webui/js");
const STATIC_IMPORT = /^\s*(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']/gm;

function modules(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith(".js") ? [path] : [];
  });
}

/** module (relative to webui/js) → the modules under webui/js it imports statically */
function importGraph(root = ROOT) {
  const graph = new Map();
  for (const file of modules(root)) {
    const targets = [];
    for (const match of readFileSync(file, "utf8").matchAll(STATIC_IMPORT)) {
      const spec = match[1] ?? match[2];
      if (!spec.startsWith(".")) continue;
      const target = resolve(dirname(file), spec);
      if (target.startsWith(root)) targets.push(relative(root, target));
    }
    graph.set(relative(root, file), targets);
  }
  return graph;
}

/** The cycles a depth-first walk of `graph` meets (at least one whenever there is any), each
 * once, starting at its smallest module name. */
function cycles(graph) {
  const found = new Map();
  const state = new Map(); // 1: on the current path, 2: done
  const path = [];
  const visit = (node) => {
    state.set(node, 1);
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 1) {
        const loop = path.slice(path.indexOf(next));
        const start = loop.indexOf([...loop].sort()[0]);
        const key = [...loop.slice(start), ...loop.slice(0, start)];
        found.set(key.join(" → "), key);
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    path.pop();
    state.set(node, 2);
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return [...found.keys()].map((k) => `${k} → ${k.split(" → ")[0]}`);
}

test("the check finds a cycle where there is one", () => {
  const graph = new Map([
    ["a.js", ["b.js"]],
    ["b.js", ["c.js"]],
    ["c.js", ["a.js", "d.js"]],
    ["d.js", []],
  ]);
  assert.deepEqual(cycles(graph), ["a.js → b.js → c.js → a.js"]);
  assert.deepEqual(cycles(new Map([["a.js", ["b.js"]], ["b.js", []]])), []);
});

test("the web UI's modules import each other in one direction only", () => {
  const graph = importGraph();
  assert.ok(graph.size > 50, `read ${graph.size} modules`); // the walk found the tree
  assert.ok(graph.get("views/tool-card.js").length > 0);
  assert.deepEqual(cycles(graph), []);
});
