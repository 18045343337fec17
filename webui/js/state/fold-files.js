// What the agent's file tools changed, per turn, and the reverts / fork restores of those changes
// (docs/architecture.md, "Checkpoints and undo"). Part of the pure SessionFold.
//
// A turn-end row gets `files` (the paths the turn changed, by any tool, in order), `changes`
// (every FileChange with its diff: a file tool's own `change`, and the `changes` the snapshots
// found around a shell command), `unrecorded` (why a step's snapshots could not be taken: what it
// changed is not known, docs/architecture.md "Snapshots"), `ranBash` and `reverted`; a
// `files/restored` event is a row
//   restored {id, kind: "restored", seq, cause: "revert"|"fork", turn, files, error, forkSessionId}

/** A tool result's `change`, `changes` and `snapshotError` (or any tool call of the turn): remembered for its turn-end. */
export function noteTool(fold, turn, name, change, changes, snapshotError = null) {
  if (typeof turn !== "number") return;
  const t = fold.turnState(turn);
  t.files ??= [];
  t.changes ??= [];
  t.unrecorded ??= [];
  if (typeof snapshotError === "string" && snapshotError && !t.unrecorded.includes(snapshotError)) t.unrecorded.push(snapshotError);
  for (const c of [change, ...(Array.isArray(changes) ? changes : [])]) {
    if (!c?.path) continue;
    t.changes.push(c);
    if (!t.files.includes(c.path)) t.files.push(c.path);
  }
  if (name === "bash") t.ranBash = true;
}

/** Fields the turn-end row takes from its turn. */
export function turnFiles(fold, turn) {
  const t = fold.turnState(turn);
  return { files: [...(t.files ?? [])], changes: [...(t.changes ?? [])], unrecorded: [...(t.unrecorded ?? [])], ranBash: !!t.ranBash, reverted: !!t.reverted };
}

export function filesRestored(fold, ev, d) {
  const files = Array.isArray(d.files) ? d.files : [];
  fold.add({ id: `f:${ev.seq}`, kind: "restored", seq: ev.seq, cause: d.cause, turn: d.turn, files, error: d.error ?? null, forkSessionId: d.forkSessionId ?? null });
  if (d.cause !== "revert" || d.error || typeof d.turn !== "number") return;
  const t = fold.turnState(d.turn);
  t.reverted = true;
  const end = t.endItemId && fold.get(t.endItemId);
  if (end) {
    end.reverted = true;
    fold.touch(end);
  }
}
