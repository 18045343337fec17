// Which fold row shows a given event (a search hit's message). PURE.

/** The seqs of the events a row shows: its own, the assistant message it finalised, a tool's
 * result (a summarized row stays in the list, marked out of context). */
function shows(item, seq) {
  return item.seq === seq || item.msgSeq === seq || item.result?.seq === seq;
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
