// Compaction and injected context in the fold (docs/architecture.md, "Compaction"). PURE.
//
// compact/summary names the surface events a summary replaces (shadowedSeqs); the replacing
// user/message that follows becomes a `summary` row right after the rows that show those events.
// The covered rows (and whatever sits between them: turn footers, notices) stay visible, marked
// `outOfContext`; the summary row lists their ids in `shadowed`. Nothing is lost from the log.
// A user/message that the host injected (a job's end, an approval notice) is a `context` row.

import { goalRoundOf } from "./fold-goals.js";
import { t } from "../i18n/i18n.js";

function notice(key, params) {
  return { key, params, text: t(key, params) }; // as state/fold.js does
}

/** The seqs of the surface events a row shows (user, assistant, tool, summary and context rows). */
function surfaceSeqs(item) {
  switch (item.kind) {
    case "user":
    case "summary":
    case "context":
    case "skill":
      return [item.seq];
    case "assistant":
      return item.msgSeq === undefined ? [] : [item.msgSeq];
    case "tool":
      return [item.msgSeq, item.result?.seq].filter((s) => s !== undefined && s !== null);
    default:
      return [];
  }
}

/** compact/summary: remember what the next replacement shadows. */
export function compactSummary(fold, ev, d) {
  fold.pendingSummary = {
    seq: ev.seq,
    compactionId: d.compactionId ?? null,
    shadowed: Array.isArray(d.shadowedSeqs) ? d.shadowedSeqs : [],
    tokens: d.shadowedTokenCount ?? 0,
    text: (d.summary ?? []).filter((b) => b?.type === "text").map((b) => b.text).join("\n"),
  };
}

/** compact/start and compact/end: the "summarizing" state, and a notice when it failed or crash
 * repair closed it (`interrupted`: never a spinner after a restart). */
export function compactBracket(fold, ev, d) {
  if (ev.type === "compact/start") {
    fold.compacting = { turn: d.turn ?? null, compactionId: d.compactionId ?? null };
  } else {
    fold.compacting = null;
    if (d.interrupted) {
      fold.add({ id: `n:${ev.seq}`, kind: "notice", seq: ev.seq, tone: "warn", ...notice("notice.compactInterrupted") });
    } else if (d.error) {
      fold.add({ id: `n:${ev.seq}`, kind: "notice", seq: ev.seq, tone: "warn", ...notice("notice.compactFailed", { error: d.error }) });
    }
  }
  fold.ops.push({ op: "meta" });
}

/** The replacing user/message: a summary row where the compaction happened (after the rows it
 * covers); the covered rows stay in place, marked `outOfContext` (no longer sent to the model),
 * so the history stays readable (docs/decisions.md, "Review and context, part 2"). */
export function replaceWithSummary(fold, ev, d) {
  const pending = fold.pendingSummary && (!d.source?.compactionId || fold.pendingSummary.compactionId === d.source.compactionId) ? fold.pendingSummary : null;
  fold.pendingSummary = null;
  const shadowedSeqs = new Set(pending?.shadowed ?? ev.sourceEventSeqs ?? []);
  const text = (d.content ?? []).filter((b) => b?.type === "text").map((b) => b.text).join("\n");
  const item = {
    id: `z:${ev.seq}`,
    kind: "summary",
    seq: ev.seq,
    summarySeq: pending?.seq ?? null,
    count: shadowedSeqs.size,
    tokens: pending?.tokens ?? 0,
    text: pending?.text || text,
    manual: !!d.source?.sourceCommandId,
    shadowed: [],
  };
  const covered = (it) => surfaceSeqs(it).some((s) => shadowedSeqs.has(s));
  const first = fold.items.findIndex(covered);
  let last = -1;
  for (let i = fold.items.length - 1; i >= 0; i--) {
    if (covered(fold.items[i])) {
      last = i;
      break;
    }
  }
  // A covered turn's footer (and notices) are out of context with it, up to the first row still
  // on the surface.
  if (last >= 0) while (last + 1 < fold.items.length && surfaceSeqs(fold.items[last + 1]).length === 0) last++;
  if (first >= 0) {
    for (let i = first; i <= last; i++) {
      const row = fold.items[i];
      row.outOfContext = true;
      item.shadowed.push(row.id);
    }
  }
  // Not loaded yet (older pages): the summary opens what is loaded.
  fold.items.splice(first < 0 ? 0 : last + 1, 0, item);
  fold.byId.set(item.id, item);
  fold.resetPending = true;
}

/** A user/message the host injected as context for the agent. */
export function contextRow(fold, ev, d) {
  const text = (d.content ?? []).filter((b) => b?.type === "text").map((b) => b.text).join("\n");
  const goalRound = goalRoundOf(d.source, text);
  fold.add({ id: `x:${ev.seq}`, kind: "context", seq: ev.seq, plugin: d.source?.plugin ?? d.source?.kind ?? "host", text, ...(goalRound ? { goalRound, goalId: d.source.goalId } : {}) });
}
