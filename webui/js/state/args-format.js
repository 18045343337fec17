// Readable tool arguments (approval cards). Pure: no DOM.
//
// prettyTokens() pretty-prints like JSON.stringify(v, null, 2) but shows string values verbatim:
// no escaping, and a string with line breaks becomes a block of real lines indented under its
// `"key":` (no quotes, no trailing comma) instead of one line full of `\n` and `\"`.

/**
 * @returns {{kind: "key"|"string"|"block"|"literal"|"punct", text: string}[]} tokens whose texts
 * concatenate to the whole rendering.
 */
export function prettyTokens(value) {
  const out = [];
  const put = (kind, text) => out.push({ kind, text });
  const walk = (v, indent) => {
    if (typeof v === "string") {
      if (/\r?\n/.test(v)) {
        const lines = v.replace(/\r?\n$/, "").split(/\r?\n/);
        put("block", lines.map((line) => `${indent}  ${line}`).join("\n"));
        return "block";
      }
      put("string", `"${v}"`);
      return "string";
    }
    if (v === null || typeof v !== "object") {
      put("literal", JSON.stringify(v) ?? String(v));
      return "literal";
    }
    const isArray = Array.isArray(v);
    const entries = isArray ? v.map((x) => [null, x]) : Object.entries(v);
    if (entries.length === 0) {
      put("punct", isArray ? "[]" : "{}");
      return "punct";
    }
    put("punct", isArray ? "[\n" : "{\n");
    entries.forEach(([key, x], i) => {
      const multiline = isMultiline(x); // its lines follow, indented one level more
      if (key !== null) {
        put("punct", `${indent}  `);
        put("key", `"${key}"`);
        put("punct", multiline ? ":\n" : ": ");
      } else if (!multiline) put("punct", `${indent}  `);
      walk(x, `${indent}  `);
      put("punct", i < entries.length - 1 && !multiline ? ",\n" : "\n");
    });
    put("punct", indent + (isArray ? "]" : "}"));
    return "punct";
  };
  walk(value, "");
  return out;
}

function isMultiline(v) {
  return typeof v === "string" && /\r?\n/.test(v);
}

/** The whole text of prettyTokens(). */
export function prettyText(value) {
  return prettyTokens(value)
    .map((t) => t.text)
    .join("");
}

/** A shallow copy of `args` without `names` (the arguments a tool-specific view already shows). */
export function otherArgs(args, names) {
  if (!args || typeof args !== "object") return {};
  const drop = new Set(names);
  return Object.fromEntries(Object.entries(args).filter(([k]) => !drop.has(k)));
}

export function lineCount(text) {
  if (!text) return 0;
  return String(text).replace(/\r?\n$/, "").split(/\r?\n/).length;
}
