// Goal and veto rows of the SessionFold (docs/architecture.md, "Goals", "Prompt gates").
// PURE: no DOM, no I/O.
//   blocked  {id, kind, seq, turn, content, reason}   a person's prompt a prompt gate refused
//   context rows of a goal round carry goalRound {round, max} ("working toward the goal — round
//   3 of 10"); the wrap-up notice (plugin tool-goal) is a context row too.

import { t } from "../i18n/i18n.js";

/** Log-only events that render no row: goal changes (the goal bar shows the goal from its
 *  projection). Hook records are rows of their own (fold-hooks.js). */
export const GOAL_SILENT = ["goal/change"];

export function promptBlocked(fold, ev, d) {
  fold.add({
    id: `b:${ev.seq}`,
    kind: "blocked",
    seq: ev.seq,
    turn: fold.activeTurn,
    content: Array.isArray(d.content) ? d.content : [],
    reason: typeof d.reason === "string" ? d.reason : "",
  });
}

const ROUND_LINE = /^Round: (\d+)\/(\d+)\s*$/m;

/** {round, max} of a goal round's message, from its source and its `Round: n/N` line. */
export function goalRoundOf(source, text) {
  if (source?.kind !== "goal") return null;
  const m = ROUND_LINE.exec(text ?? "");
  const round = Number.isInteger(source.round) ? source.round : m ? Number(m[1]) : null;
  const max = m ? Number(m[2]) : null;
  return round === null ? null : { round, max };
}

/** "Working toward the goal — round 3 of 10". */
export function goalRoundLabel(goalRound) {
  if (!goalRound) return t("goal.working");
  return goalRound.max ? t("goal.roundOf", { round: goalRound.round, max: goalRound.max }) : t("goal.round", { round: goalRound.round });
}

/** The round of the newest goal round's context row of `goalId` in the fold (null: none seen). */
export function liveRound(items, goalId) {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it.kind === "context" && it.goalRound && (!goalId || it.goalId === goalId)) return it.goalRound.round;
  }
  return null;
}

/** How long an active goal's session must have been idle before Resume is offered on it: an
 * armed goal starts its next round a second after the last one (host/engine/agent/goals/driver.py),
 * a disarmed one (after a restart) never does. */
export const RESUME_AFTER_IDLE_MS = 2500;

/** What the goal bar shows for a `goal` projection value (null: nothing; complete hides it).
 * `idleMs`: how long the session has been idle (null: it is running). */
export function goalBarModel(value, round, hiddenId, idleMs = null) {
  const goal = value?.goal;
  if (!goal || goal.phase === "complete" || goal.id === hiddenId) return null;
  const used = Math.max(value.roundsStarted ?? 0, round ?? 0);
  return {
    ref: { id: goal.id, revision: goal.revision },
    objective: goal.objective,
    phase: goal.phase,
    reason: goal.blockedReason?.message ?? null,
    rounds: t("goal.rounds", { used: Math.min(used, goal.maxGoalRounds), count: goal.maxGoalRounds }),
    canPause: goal.phase === "active",
    // on active only once the session has stayed idle: after a restart an active goal is disarmed
    canResume: goal.phase !== "active" || (idleMs !== null && idleMs >= RESUME_AFTER_IDLE_MS),
  };
}
