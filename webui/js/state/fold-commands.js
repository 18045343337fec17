// Fold rows for presets, skills and commands (PURE, used by SessionFold):
//   command  {id, kind, seq, commandId, name, args, status: "running"|"success"|"error"|"interrupted", text}
//   skill    {id, kind, seq, name, text}      (a /name skill the host added to the conversation)
// Context the host adds for the model alone (the skills catalogue, plan-mode notices) renders
// no row: it is not something the person said or needs to read. Approval notices repeat the
// person's own answer, which the tool card already shows (docs/decisions.md, "UX pass").

/** Plugins whose user-role messages are model context, never shown as the person's words. */
const MODEL_CONTEXT = new Set(["skills", "plan-mode", "approvals"]);

/** How a user/message is shown: "user" (a bubble), "skill" (a compact row) or "hidden". */
export function userMessageKind(data) {
  const source = data?.source ?? {};
  if (source.kind === "skill-invocation") return "skill";
  if (source.kind === "plugin" && MODEL_CONTEXT.has(source.plugin)) return "hidden";
  return "user";
}

export function skillRow(fold, ev, d) {
  const text = (Array.isArray(d.content) ? d.content : []).filter((b) => b?.type === "text").map((b) => b.text).join("\n");
  fold.add({ id: `k:${ev.seq}`, kind: "skill", seq: ev.seq, name: d.source?.name ?? "skill", text });
}

export function commandRun(fold, ev, d) {
  const item = fold.add({ id: `c:${d.commandId}`, kind: "command", seq: ev.seq, commandId: d.commandId, name: d.name, args: d.args ?? null, status: "running", text: null });
  fold.commands.set(d.commandId, item.id);
}

export function commandDone(fold, ev, d) {
  const id = fold.commands.get(d.commandId);
  const item = id ? fold.get(id) : null;
  if (!item) {
    // The page began after the run (history paging): show the result on its own.
    fold.add({ id: `c:${d.commandId}@${ev.seq}`, kind: "command", seq: ev.seq, commandId: d.commandId, name: null, args: null, status: d.kind, text: d.text ?? null });
    return;
  }
  item.status = d.kind === "error" || d.kind === "interrupted" ? d.kind : "success";
  item.text = d.text ?? null;
  fold.touch(item);
}

/** agent-preset/selected: state only (the header shows the preset; a blank session stays
 * empty, so its preset picker stays up). */
export function presetSelected(fold, ev, d) {
  fold.preset = d.agentPreset ?? null;
  fold.ops.push({ op: "meta" });
}
