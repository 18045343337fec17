// A unified diff (the `diff` of a FileChange, computed by the host) → rows with line numbers. Pure.

/**
 * Rows: {kind: "hunk", text} for an `@@` line, {kind: "add"|"del"|"ctx", text, oldNo, newNo}
 * for a line (the number is null on the side it is absent from), {kind: "meta", text} for
 * anything else (`\ No newline at end of file`). The `---`/`+++` header is skipped.
 */
export function parseUnifiedDiff(text) {
  const rows = [];
  if (typeof text !== "string" || text === "") return rows;
  let oldNo = 0;
  let newNo = 0;
  let inHunk = false;
  for (const line of text.split("\n")) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      inHunk = true;
      rows.push({ kind: "hunk", text: line });
    } else if (!inHunk) {
      if (!line.startsWith("--- ") && !line.startsWith("+++ ") && line !== "") rows.push({ kind: "meta", text: line });
    } else if (line.startsWith("+")) {
      rows.push({ kind: "add", text: line.slice(1), oldNo: null, newNo: newNo++ });
    } else if (line.startsWith("-")) {
      rows.push({ kind: "del", text: line.slice(1), oldNo: oldNo++, newNo: null });
    } else if (line.startsWith(" ") || line === "") {
      rows.push({ kind: "ctx", text: line.slice(1), oldNo: oldNo++, newNo: newNo++ });
    } else {
      rows.push({ kind: "meta", text: line });
    }
  }
  return rows;
}

/** "+3 −1" style counts of a FileChange, and whether it created the file. */
export function changeSummary(change) {
  const created = !change?.before;
  const parts = [];
  if (change?.added) parts.push(`+${change.added}`);
  if (change?.removed) parts.push(`−${change.removed}`);
  return { created, stat: parts.join(" ") };
}
