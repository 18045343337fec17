// Line diff for tool cards (edit_file / write_file) and tolerant reading of tool arguments. Pure.

/**
 * Myers-free, simple LCS line diff, bounded: inputs beyond `limit` lines fall back to
 * "all removed, all added". Returns [{op: " "|"-"|"+", text}].
 */
export function lineDiff(oldText, newText, limit = 2000) {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  if (a.length * b.length > limit * limit || a.length > limit || b.length > limit) {
    return [...a.map((text) => ({ op: "-", text })), ...b.map((text) => ({ op: "+", text }))];
  }
  // trim common prefix/suffix first (the usual edit touches a few lines)
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const A = a.slice(pre, a.length - suf);
  const B = b.slice(pre, b.length - suf);
  const n = A.length;
  const m = B.length;
  const L = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) L[i][j] = A[i] === B[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  }
  const mid = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (A[i] === B[j]) {
      mid.push({ op: " ", text: A[i] });
      i++;
      j++;
    } else if (L[i + 1][j] >= L[i][j + 1]) mid.push({ op: "-", text: A[i++] });
    else mid.push({ op: "+", text: B[j++] });
  }
  while (i < n) mid.push({ op: "-", text: A[i++] });
  while (j < m) mid.push({ op: "+", text: B[j++] });
  return [...a.slice(0, pre).map((text) => ({ op: " ", text })), ...mid, ...a.slice(a.length - suf).map((text) => ({ op: " ", text }))];
}

function splitLines(text) {
  if (text === undefined || text === null || text === "") return [];
  const lines = String(text).split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Keep `context` unchanged lines around changes; collapsed runs become {op:"…", count}. */
export function withContext(diff, context = 3) {
  const keep = diff.map(() => false);
  diff.forEach((d, idx) => {
    if (d.op === " ") return;
    for (let k = Math.max(0, idx - context); k <= Math.min(diff.length - 1, idx + context); k++) keep[k] = true;
  });
  const out = [];
  let skipped = 0;
  diff.forEach((d, idx) => {
    if (keep[idx]) {
      if (skipped) out.push({ op: "…", count: skipped });
      skipped = 0;
      out.push(d);
    } else skipped++;
  });
  if (skipped) out.push({ op: "…", count: skipped });
  return out;
}

/** Parse tool arguments (a raw JSON string that may be partial or malformed). */
export function parseArgs(raw) {
  if (raw && typeof raw === "object") return raw;
  if (typeof raw !== "string" || raw.trim() === "") return {};
  try {
    const v = JSON.parse(raw);
    return v && typeof v === "object" ? v : { value: v };
  } catch {
    return null;
  }
}

const pick = (obj, names) => {
  if (!obj) return undefined;
  for (const n of names) if (typeof obj[n] === "string") return obj[n];
  return undefined;
};

/** The argument spellings describeTool() reads, per role. */
export const ARG_NAMES = {
  path: ["path", "file_path", "filePath", "file"],
  command: ["command", "cmd"],
  old: ["old_string", "oldString", "old_text", "oldText", "old", "search"],
  new: ["new_string", "newString", "new_text", "newText", "new", "replace"],
  content: ["content", "text", "contents"],
};

/** What a tool card shows, read tolerantly from the known tools' argument names. */
export function describeTool(name, rawArgs) {
  const args = parseArgs(rawArgs);
  const path = pick(args, ARG_NAMES.path);
  switch (name) {
    case "bash":
      return { kind: "bash", summary: pick(args, ARG_NAMES.command) ?? "", args };
    case "edit_file":
      return {
        kind: "diff",
        summary: path ?? "",
        path,
        old: pick(args, ARG_NAMES.old) ?? "",
        new: pick(args, ARG_NAMES.new) ?? "",
        args,
      };
    case "write_file":
      return { kind: "diff", summary: path ?? "", path, old: "", new: pick(args, ARG_NAMES.content) ?? "", args };
    case "read_file":
    case "list_dir":
      return { kind: "generic", summary: path ?? pick(args, ["dir", "directory"]) ?? "", args };
    case "task":
      return { kind: "task", summary: pick(args, ["description"]) ?? "", args };
    case "glob":
    case "grep":
      return { kind: "generic", summary: pick(args, ["pattern", "query"]) ?? "", args };
    default:
      return { kind: "generic", summary: "", args };
  }
}
