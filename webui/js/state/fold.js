// SessionFold (docs/architecture.md, "Web UI"): raw session events → a view tree.
// PURE: no DOM, no I/O, no clock.
// History pages and live frames go through the same apply(), so folding a log in one go or in
// pieces gives the same tree.
//
// The tree is a flat, ordered list of rows (`items`) plus session-level state:
//   user       {id, kind, seq, turn, steering, messageId, content}
//   assistant  {id, kind, seq, turn, step, partial, blocks:[{index, type:"text"|"reasoning", text, partial}], interrupted, usage}
//   tool       {id, kind, seq, turn, step, callId, name, arguments, status, result, approval, subagent?,
//               callView?, resultView?}   (the host's views, when it sent them)
//   turn-end   {id, kind, seq, turn, reason, usage, userItemId, files, changes, unrecorded, ranBash, reverted}
//   restored   {id, kind, seq, cause, turn, files, error, forkSessionId}   (see fold-files.js)
//   notice     {id, kind, seq, text, tone}
//   summary    {id, kind, seq, count, tokens, text, manual, shadowed: [row ids]}   (compaction;
//              the covered rows stay, with outOfContext: true)
//   context    {id, kind, seq, plugin, text}   (context the host gave the agent)
//   raw        {id, kind, seq, type, data}     (unknown event types)
//   blocked    {id, kind, seq, turn, content, reason}   (a prompt a prompt gate refused: fold-goals.js)
//   hook       {id, kind, seq, turn, point, command, decision, exitCode, reason, durationMs} (fold-hooks.js)
//   command, skill                             (see fold-commands.js)
//   todos (last todo/write wins), title, model (newest request/header), preset (newest
//   agent-preset/selected in the window), activeTurn, compacting (a compaction is running).
// Changes since the last takeOps(): [{op:"add"|"update", id}] or [{op:"reset"}] (after removals).

import { applyChunk, applyAssistantMessage, closePartials } from "./fold-assistant.js";
import { toolRunning, toolForCall, toolForResult, toolsOfTurn } from "./fold-tools.js";
import { commandDone, commandRun, presetSelected, skillRow, userMessageKind } from "./fold-commands.js";
import { compactBracket, compactSummary, contextRow, replaceWithSummary } from "./fold-compact.js";
import { filesRestored, noteTool, turnFiles } from "./fold-files.js";
import { isTaskPrompt, subagentSpawned } from "./fold-subagents.js";
import { GOAL_SILENT, promptBlocked } from "./fold-goals.js";
import { markRetry } from "./fold-retry.js";
import { hookInvoked, hookResult } from "./fold-hooks.js";
import { t } from "../i18n/i18n.js";

/** A notice row's words: its key and params (rendered in the language shown, views/rows.js) and
 * the text they make now. */
export function notice(key, params) {
  return { key, params, text: t(key, params) };
}
const notice_ = notice;

/** An approval's outcome in words ("allowed once", …). */
export function outcomeWords(outcome) {
  return OUTCOMES.has(outcome) ? t(`approval.outcome.${outcome}`) : outcome;
}
const OUTCOMES = new Set(["allowed-once", "allowed-always", "rejected", "cancelled", "unavailable"]);

/** Known event types that change state but render no row of their own. */
const SILENT = new Set(["step/start", "step/end", "plan/mode", "permission/preset", "sandbox/mode", "approval/policy", "agent/inbox/spliced", "subagent/descriptor", ...GOAL_SILENT]);
// (the session's permissions are shown by the shield in the header, from its projection)

export class SessionFold {
  constructor() {
    this.reset();
  }

  reset() {
    this.items = [];
    this.byId = new Map();
    this.todos = null;
    this.title = null;
    this.model = null;
    this.activeTurn = null;
    this.compacting = null;
    this.pendingSummary = null;
    this.lastSeq = -1;
    this.firstSeq = null;
    this.turns = new Map(); // turn → {userItemId, stepUsage: Map<step, usage>, endItemId}
    this.partials = new Map(); // "turn:step" → assistant item id (still streaming)
    this.stepTools = new Map(); // "turn:step" → tool row ids by position (fold-tools.js)
    this.toolRows = []; // every tool row id, in order
    this.turnTools = new Map(); // turn → its tool row ids: a turn's end looks up only its own
    this.approvalTools = new Map(); // approval id → tool row id
    this.approvals = new Map(); // approval id → {id, toolName, callId, reason, outcome}
    this.commands = new Map(); // commandId → item id
    this.openHooks = new Map(); // "turn:handlerId" → hook row ids still waiting for their result
    this.preset = null;
    this.ops = [];
    this.resetPending = false;
  }

  /** Fold many events (in seq order). */
  applyAll(events) {
    for (const ev of events) this.apply(ev);
    return this;
  }

  /** The change list since the last call. */
  takeOps() {
    const ops = this.resetPending ? [{ op: "reset" }] : this.ops;
    this.ops = [];
    this.resetPending = false;
    return ops;
  }

  /** A plain, JSON-comparable picture of the tree (tests, debugging). */
  snapshot() {
    return JSON.parse(
      JSON.stringify({ items: this.items, todos: this.todos, title: this.title, model: this.model, activeTurn: this.activeTurn }),
    );
  }

  get(id) {
    return this.byId.get(id);
  }

  // ---- row bookkeeping --------------------------------------------------------------------

  add(item) {
    if (this.byId.has(item.id)) item.id = `${item.id}@${item.seq}`;
    this.items.push(item);
    this.byId.set(item.id, item);
    this.ops.push({ op: "add", id: item.id });
    return item;
  }

  touch(item) {
    const last = this.ops[this.ops.length - 1];
    if (last && last.id === item.id) return;
    this.ops.push({ op: "update", id: item.id });
  }

  turnState(turn) {
    let t = this.turns.get(turn);
    if (!t) this.turns.set(turn, (t = { userItemId: null, stepUsage: new Map(), endItemId: null }));
    return t;
  }

  setUsage(turn, step, usage) {
    if (!usage || typeof turn !== "number") return;
    const t = this.turnState(turn);
    t.stepUsage.set(step, { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 });
    if (t.endItemId) {
      const end = this.byId.get(t.endItemId);
      end.usage = this.turnUsage(turn);
      this.touch(end);
    }
  }

  turnUsage(turn) {
    const t = this.turns.get(turn);
    if (!t || t.stepUsage.size === 0) return null;
    let inputTokens = 0;
    let outputTokens = 0;
    for (const u of t.stepUsage.values()) {
      inputTokens += u.inputTokens;
      outputTokens += u.outputTokens;
    }
    return { inputTokens, outputTokens };
  }

  // ---- the fold ---------------------------------------------------------------------------

  apply(ev) {
    if (ev.seq <= this.lastSeq) return; // duplicate (the Session guarantees contiguity)
    if (this.firstSeq === null) this.firstSeq = ev.seq;
    this.lastSeq = ev.seq;
    const d = ev.data ?? {};
    switch (ev.type) {
      case "turn/start":
        this.activeTurn = d.turn;
        this.turnState(d.turn);
        this.ops.push({ op: "meta" });
        return;
      case "turn/end":
        return this.turnEnd(ev, d);
      case "request/header":
        this.model = { provider: d.provider, model: d.model, ...(d.reasoningEffort ? { reasoningEffort: d.reasoningEffort } : {}) };
        this.ops.push({ op: "meta" });
        return;
      case "request/retry":
        this.add({ id: `n:${ev.seq}`, kind: "notice", seq: ev.seq, tone: "warn", ...notice("notice.retry", { attempt: d.attempt, reason: d.reason }) });
        return;
      case "user/message": {
        const shown = userMessageKind(d);
        if (shown === "hidden") return;
        if (shown === "skill") return skillRow(this, ev, d);
        return this.userMessage(ev, d);
      }
      case "steering/message":
        return this.userMessage(ev, d);
      case "command/run":
        return commandRun(this, ev, d);
      case "command/done":
        return commandDone(this, ev, d);
      case "agent-preset/selected":
        return presetSelected(this, ev, d);
      case "assistant/chunk":
        return applyChunk(this, ev, d);
      case "assistant/message":
        return applyAssistantMessage(this, ev, d);
      case "tool/call": {
        const tool = toolForCall(this, ev, d);
        tool.arguments = d.arguments ?? tool.arguments;
        tool.name = d.name ?? tool.name;
        if (ev.view?.for === "call") tool.callView = ev.view.view; // the host's card (tool-views.js)
        if (tool.status === "streaming" || tool.status === "pending") tool.status = "running";
        this.touch(tool);
        return;
      }
      case "tool/result":
        return this.toolResult(ev, d);
      case "subagent/spawned":
        return subagentSpawned(this, ev, d);
      case "prompt/blocked":
        return promptBlocked(this, ev, d);
      case "hook/invoked":
        return hookInvoked(this, ev, d);
      case "hook/result":
        return hookResult(this, ev, d);
      case "todo/write":
        this.todos = Array.isArray(d.todos) ? d.todos.map((t) => ({ content: t.content, status: t.status })) : [];
        this.ops.push({ op: "meta" });
        return;
      case "approval/asked":
        return this.approvalAsked(ev, d);
      case "approval/decided":
        return this.approvalDecided(ev, d);
      case "session/title":
        this.title = d.title;
        this.ops.push({ op: "meta" });
        return;
      case "compact/start":
      case "compact/end":
        return compactBracket(this, ev, d);
      case "compact/summary":
        return compactSummary(this, ev, d);
      case "files/restored":
        return filesRestored(this, ev, d);
      case "job/lost":
        this.add({ id: `n:${ev.seq}`, kind: "notice", seq: ev.seq, tone: "warn", ...(d.detail ? notice("notice.jobLost", { id: d.jobId, label: d.label, detail: d.detail }) : notice("notice.jobLostClosed", { id: d.jobId, label: d.label })) });
        return;
      case "session/end-seed":
        this.add({ id: `n:${ev.seq}`, kind: "notice", seq: ev.seq, tone: "info", ...notice("notice.forked") });
        return;
      default:
        if (SILENT.has(ev.type)) return;
        this.add({ id: `r:${ev.seq}`, kind: "raw", seq: ev.seq, type: ev.type, data: d });
    }
  }

  userMessage(ev, d) {
    if (ev.surfaceOp && typeof ev.surfaceOp === "object" && ev.surfaceOp.op === "replace") return replaceWithSummary(this, ev, d);
    const fromParent = isTaskPrompt(d);
    if (ev.type === "user/message" && d.source?.kind && d.source.kind !== "user" && !fromParent) return contextRow(this, ev, d);
    const turn = this.activeTurn;
    const item = {
      id: `u:${ev.seq}`,
      kind: "user",
      seq: ev.seq,
      turn,
      steering: ev.type === "steering/message",
      messageId: d.id,
      content: Array.isArray(d.content) ? d.content : [],
      ...(fromParent ? { fromParent: true } : {}),
    };
    this.add(item);
    if (!item.steering && !fromParent) markRetry(this, item);
    if (turn !== null && !item.steering) {
      const t = this.turnState(turn);
      if (!t.userItemId) t.userItemId = item.id;
    }
  }

  turnEnd(ev, d) {
    closePartials(this, d.turn);
    const reason = d.reason ?? { kind: "completed" };
    for (const tool of toolsOfTurn(this, d.turn)) {
      if (["streaming", "pending", "running", "awaiting-approval"].includes(tool.status)) {
        tool.status = "cancelled";
        this.touch(tool);
      }
    }
    const t = this.turnState(d.turn);
    const item = this.add({
      id: `e:${ev.seq}`,
      kind: "turn-end",
      seq: ev.seq,
      turn: d.turn,
      reason,
      usage: this.turnUsage(d.turn),
      userItemId: t.userItemId,
      ...turnFiles(this, d.turn),
    });
    t.endItemId = item.id;
    if (reason.kind === "interrupted") {
      for (const it of this.items) {
        if (it.kind === "assistant" && it.turn === d.turn && !it.interrupted) {
          it.interrupted = true;
          this.touch(it);
        }
      }
    }
    if (this.activeTurn === d.turn) this.activeTurn = null;
    this.ops.push({ op: "meta" });
  }

  toolResult(ev, d) {
    const msg = d.message ?? {};
    const content = Array.isArray(msg.content) ? msg.content : [];
    const resultBlock = content.find((b) => b && b.type === "tool-result");
    const callId = msg.source?.callId ?? resultBlock?.toolCallId ?? `unknown-${ev.seq}`;
    const text = content
      .map((b) => (b?.type === "tool-result" ? b.content : b?.type === "text" ? b.text : ""))
      .filter(Boolean)
      .join("\n");
    const isError = !!(d.error || resultBlock?.isError);
    const tool = toolForResult(this, ev, d, callId, d.error?.name ?? null);
    tool.result = { content: text, isError, errorCode: d.error?.code ?? null, seq: ev.seq, change: d.change ?? null, changes: d.changes ?? null };
    if (ev.view?.for === "result") tool.resultView = ev.view.view;
    noteTool(this, d.turn, tool.name, d.change, d.changes, d.snapshotError);
    tool.status = tool.approval?.outcome === "rejected" ? "rejected" : isError ? "error" : "done";
    this.touch(tool);
  }

  approvalAsked(ev, d) {
    const a = { id: d.id, toolName: d.toolName, callId: d.callId ?? null, reason: d.reason ?? null, why: d.why ?? null, outcome: null, seq: ev.seq, preview: d.preview ?? null };
    this.approvals.set(d.id, a);
    const tool = toolRunning(this, a.callId);
    if (tool) {
      this.approvalTools.set(d.id, tool.id);
      tool.approval = a;
      if (!tool.result) tool.status = "awaiting-approval";
      this.touch(tool);
    } else {
      this.add({ id: `n:${ev.seq}`, kind: "notice", seq: ev.seq, tone: "info", ...(d.reason ? notice("notice.approvalAskedWhy", { tool: d.toolName, reason: d.reason }) : notice("notice.approvalAsked", { tool: d.toolName })), approvalId: d.id });
    }
  }

  approvalDecided(ev, d) {
    const a = this.approvals.get(d.id);
    if (!a) {
      this.add({ id: `n:${ev.seq}`, kind: "notice", seq: ev.seq, tone: "info", ...notice("notice.approvalOutcome", { id: d.id, outcome: outcomeWords(d.outcome) }) });
      return;
    }
    a.outcome = d.outcome;
    a.note = d.note ?? null;
    const tool = this.byId.get(this.approvalTools.get(d.id));
    if (tool) {
      if (!tool.result) tool.status = d.outcome.startsWith("allowed") ? "running" : d.outcome === "rejected" ? "rejected" : "cancelled";
      this.touch(tool);
      return;
    }
    const notice = this.items.find((it) => it.kind === "notice" && it.approvalId === d.id);
    if (notice) {
      Object.assign(notice, notice_("notice.approvalFor", { tool: a.toolName, outcome: outcomeWords(d.outcome) }));
      this.touch(notice);
    }
  }
}
