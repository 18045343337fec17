// Fold rows for subagents (PURE, used by SessionFold; docs/architecture.md, "Subagents"):
//   - `subagent/spawned {callId, sessionId, label, agentPreset}` in a parent: the `task` tool row
//     of that call learns its child (`tool.subagent`), so its card links to the conversation;
//   - the message a child was started with (source plugin "task") is a user row marked
//     `fromParent`: the parent agent wrote it, not the person;
//   - `subagent/descriptor` in a child renders nothing (the header says whose subagent it is).

import { toolRunningOrNew } from "./fold-tools.js";

export function subagentSpawned(fold, ev, d) {
  const tool = toolRunningOrNew(fold, ev, d.callId, "task");
  tool.subagent = { sessionId: d.sessionId, label: d.label ?? "", agentPreset: d.agentPreset ?? null };
  fold.touch(tool);
}

/** A user/message whose source is the parent's `task` call. */
export function isTaskPrompt(data) {
  const source = data?.source ?? {};
  return source.kind === "plugin" && source.plugin === "task";
}
