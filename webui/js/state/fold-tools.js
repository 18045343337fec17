// Tool rows in the fold, keyed by the event that made them, never by the provider's call id
// (docs/decisions.md, "UX pass"). PURE.
//
// A tool row's key is (turn, step, position): position is the call's ordinal among the tool
// calls of that step's answer (the nth tool-call block of the stream, or of the assistant
// message). Providers reuse call ids (`call_0` in every answer, or one id for two calls) and
// some send none; the call id is only used to pair a `tool/call` / `tool/result` with a row of
// the same step, and then the first row that has not had one yet wins.

const stepKey = (turn, step) => `${turn ?? "?"}:${step ?? "?"}`;

function rowsOf(fold, turn, step) {
  const k = stepKey(turn, step);
  let rows = fold.stepTools.get(k);
  if (!rows) fold.stepTools.set(k, (rows = []));
  return rows;
}

/** The tool row at `position` of its step, created (after the rows so far) when missing. */
export function toolAt(fold, ev, turn, step, position, callId, name) {
  const rows = rowsOf(fold, turn, step);
  while (rows.length <= position) {
    const n = rows.length;
    const tool = fold.add({
      id: `t:${stepKey(turn, step)}:${n}`,
      kind: "tool",
      seq: ev.seq,
      turn: turn ?? null,
      step: step ?? null,
      position: n,
      callId: n === position ? callId ?? null : null,
      name: n === position ? name ?? "" : "",
      arguments: "",
      status: "streaming",
      called: false,
      result: null,
      approval: null,
    });
    rows.push(tool.id);
    fold.toolRows.push(tool.id);
    const ofTurn = fold.turnTools.get(tool.turn);
    if (ofTurn) ofTurn.push(tool.id);
    else fold.turnTools.set(tool.turn, [tool.id]);
  }
  const tool = fold.byId.get(rows[position]);
  if (callId && !tool.callId) tool.callId = callId;
  if (name && !tool.name) tool.name = name;
  return tool;
}

/** A new row after the step's others (an event whose call this window never saw). */
function appended(fold, ev, turn, step, callId, name) {
  return toolAt(fold, ev, turn, step, rowsOf(fold, turn, step).length, callId, name);
}

/** The row a tool-call block of a streamed answer lives in (`chunkIndex` → position). */
export function toolForBlock(fold, ev, item, chunkIndex, callId, name) {
  let position = item.toolIndex[chunkIndex];
  if (position === undefined) {
    position = Object.keys(item.toolIndex).length;
    item.toolIndex[chunkIndex] = position;
  }
  return toolAt(fold, ev, item.turn, item.step, position, callId, name);
}

/** `tool/call`: the step's first row with this id that has not started, else a new row. */
export function toolForCall(fold, ev, d) {
  const rows = rowsOf(fold, d.turn, d.step).map((id) => fold.byId.get(id));
  const open = rows.filter((t) => !t.called && !t.result);
  const tool = open.find((t) => t.callId === d.callId) ?? open.find((t) => !t.callId) ?? appended(fold, ev, d.turn, d.step, d.callId, d.name);
  tool.called = true;
  return tool;
}

/** `tool/result`: the step's first started row with this id and no result, else a new row. */
export function toolForResult(fold, ev, d, callId, name) {
  const rows = rowsOf(fold, d.turn, d.step).map((id) => fold.byId.get(id));
  const waiting = rows.filter((t) => !t.result && t.callId === callId);
  return waiting.find((t) => t.called) ?? waiting[0] ?? appended(fold, ev, d.turn, d.step, callId, name);
}

/** Events that name no step (`approval/asked`, `subagent/spawned`) happen while their call
 * runs: the newest started row with that id and no result yet. */
export function toolRunning(fold, callId) {
  if (!callId) return null;
  for (let i = fold.toolRows.length - 1; i >= 0; i--) {
    const t = fold.byId.get(fold.toolRows[i]);
    if (t && t.callId === callId && t.called && !t.result) return t;
  }
  return null;
}

/** The rows of one turn (turn end closes what is still open): its own list, not a scan of every
 * tool row (that made folding a long session quadratic in its turns). */
export function toolsOfTurn(fold, turn) {
  return (fold.turnTools.get(turn ?? null) ?? []).map((id) => fold.byId.get(id)).filter((t) => t && t.turn === turn);
}

/** The running row for `callId`, else a row of its own (the page began after the call). */
export function toolRunningOrNew(fold, ev, callId, name) {
  return toolRunning(fold, callId) ?? appended(fold, ev, null, null, callId, name);
}
