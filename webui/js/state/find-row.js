// Which fold row shows a given event (a search hit's message). PURE.

/** The seqs of the events a row shows: its own, the assistant message it finalised, a tool's
 * result, and for a summary the rows it replaced. */
function shows(item, seq) {
  if (item.seq === seq || item.msgSeq === seq || item.result?.seq === seq) return true;
  return item.kind === "summary" && (item.shadowed ?? []).some((it) => shows(it, seq));
}

/** Index of the row showing event `seq`; else the last row that starts before it; else -1. */
export function rowIndexForSeq(items, seq) {
  let before = -1;
  for (let i = 0; i < items.length; i++) {
    if (shows(items[i], seq)) return i;
    if (items[i].seq <= seq) before = i;
  }
  return before;
}
