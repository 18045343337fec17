// Hook rows of the SessionFold (docs/decisions.md, "Hook rows"). PURE: no DOM, no I/O.
//   hook  {id, kind, seq, turn, point, handlerId, dialect, matcher, command,
//          status: "running"|"done", decision, exitCode, reason, durationMs}
// `hook/invoked` adds the row; the next `hook/result` of the same turn and handler fills it in
// (one handler can fire several times in a turn: once per tool call).

import { number, t } from "../i18n/i18n.js";

const key = (d) => `${d.turn}:${d.handlerId}`;

export function hookInvoked(fold, ev, d) {
  const item = fold.add({
    id: `k:${ev.seq}`,
    kind: "hook",
    seq: ev.seq,
    turn: Number.isInteger(d.turn) ? d.turn : fold.activeTurn,
    point: String(d.point ?? ""),
    handlerId: String(d.handlerId ?? ""),
    dialect: d.dialect ?? "claude",
    matcher: typeof d.matcher === "string" ? d.matcher : null,
    command: typeof d.command === "string" ? d.command : null,
    status: "running",
    decision: null,
    exitCode: null,
    reason: null,
    durationMs: null,
  });
  const open = fold.openHooks.get(key(d)) ?? [];
  open.push(item.id);
  fold.openHooks.set(key(d), open);
}

export function hookResult(fold, ev, d) {
  const open = fold.openHooks.get(key(d));
  const id = open?.shift();
  let item = id ? fold.byId.get(id) : null;
  if (!item) {
    // a history page that starts between the two records: the result stands alone
    hookInvoked(fold, { seq: ev.seq }, d);
    item = fold.byId.get(fold.openHooks.get(key(d)).shift());
  }
  item.status = "done";
  item.decision = typeof d.decision === "string" ? d.decision : "pass";
  item.exitCode = Number.isInteger(d.exitCode) ? d.exitCode : null;
  item.reason = typeof d.stderrSummary === "string" ? d.stderrSummary : null;
  item.durationMs = typeof d.durationMs === "number" ? d.durationMs : null;
  fold.touch(item);
}

const REFUSED = new Set(["deny", "block", "stop"]);
const HOOK_DECISIONS = new Set(["pass", "allow", "deny", "block", "stop", "ask", "error", "context"]);

/** How the row is coloured: "refused" (deny/block/stop), "ask", "error", "ok" or "running". */
export function hookTone(item) {
  if (item.status !== "done") return "running";
  if (REFUSED.has(item.decision)) return "refused";
  if (item.decision === "ask") return "ask";
  if (item.decision === "error") return "error";
  return "ok";
}

/** "denied · exit 2 · 41 ms" — the row's outcome line. */
export function hookOutcome(item) {
  if (item.status !== "done") return t("hook.running");
  const parts = [HOOK_DECISIONS.has(item.decision) ? t(`hook.decision.${item.decision}`) : item.decision];
  parts.push(item.exitCode === null ? t("hook.noExit") : t("hook.exit", { code: String(item.exitCode) }));
  if (item.durationMs !== null) parts.push(item.durationMs < 1000 ? t("hook.ms", { ms: Math.round(item.durationMs) }) : t("hook.s", { s: number(item.durationMs / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) }));
  return parts.join(" · ");
}
