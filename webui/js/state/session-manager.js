// SessionManager: the session list, the open sessions, pending approvals/questions, queues.
// Routes mux and host frames; rebuild() re-lists sessions and reopens open sessions. No DOM.
//
// Events: "list" (summaries changed), "active" (active session changed), "pending"
// (approvals/questions changed; arg {added?: entry}), "queue" (sessionId), "jobs" (sessionId),
// "agent-error" ({sessionId, message}), "config" (settings/credentials/models changed),
// "model-status" ({model, state}: the built-in model loading on the first local turn),
// "attention" ({sessionId, attention, previous}: a session's attention state changed), "error"
// (message).

import { Emitter } from "./emitter.js";
import { isTransportFailure, transportErrorOf } from "../client/errors.js";
import { Session, withView } from "./session.js";
import { reusableBlank, provisionalTitle, contentText, ListSequence, FORK_SUFFIX } from "./session-list.js";
import { blankMember } from "./workspaces.js";
import { t } from "../i18n/i18n.js";

const MAX_OPEN = 6;

export class SessionManager extends Emitter {
  constructor({ client, workspaces = null, now = () => Date.now() }) {
    super();
    this.client = client;
    this.workspaces = workspaces; // WorkspaceState, for "New session" in a workspace
    this.now = now;
    this.summaries = new Map();
    this.sessions = new Map(); // open sessions, most recently used last
    this.activeId = null;
    this.pending = new Map(); // rpcId → {rpcId, kind, sessionId, frame, state, error}
    this.queues = new Map(); // sessionId → QueuedInboxItem[] (placement queued | steering | context)
    this.jobs = new Map(); // sessionId → JobView[] (absent: none)
    this.hostInfo = null;
    this.listLoaded = false;
    this.listOrder = new ListSequence(); // list answers vs. adds/removes in between
    this.muxStreamId = null; // the mux stream's name (stream/opened), for host.focus
  }

  get active() {
    return this.activeId ? this.sessions.get(this.activeId) ?? null : null;
  }

  // ---- list -------------------------------------------------------------------------------

  async refreshList() {
    const ticket = this.listOrder.begin();
    try {
      return await this.applyList(ticket, await this.client.call("session.list", {}));
    } finally {
      this.listOrder.end(ticket);
    }
  }

  applyList(ticket, r) {
    if (isTransportFailure(r)) throw transportErrorOf(r.error); // rebuild() fails: the app reconnects
    if (this.listOrder.stale(ticket)) return true; // a newer answer is already shown
    if (!r.ok) {
      this.emit("error", t("sessions.listFailed", { reason: r.error.message }));
      return false;
    }
    const next = new Map();
    for (const s of r.value.items) {
      const open = this.sessions.get(s.sessionId);
      const title = open?.projections.get("title")?.value ?? s.projections?.values?.title ?? s.title;
      const provisional = this.summaries.get(s.sessionId)?.provisionalTitle;
      next.set(s.sessionId, { ...s, ...(title ? { title } : {}), ...(!title && provisional ? { provisionalTitle: provisional } : {}) });
    }
    this.summaries = this.listOrder.merge(ticket, next, this.summaries);
    this.listLoaded = true;
    this.emit("list");
    return true;
  }

  /** A session known before any list answer names it (a frame, create, fork). */
  addSummary(summary) {
    this.summaries.set(summary.sessionId, summary);
    this.listOrder.note(summary.sessionId, summary);
    this.emit("list");
  }

  patchSummary(sessionId, patch) {
    const cur = this.summaries.get(sessionId);
    if (!cur) return;
    this.summaries.set(sessionId, { ...cur, ...patch });
    this.listOrder.notePatch(sessionId, patch);
    this.emit("list");
  }

  /** The connection dropped: pending cards stay visible but must be confirmed by a replay; queues
   * and jobs come again as baselines when the mux reopens (absent = none). */
  markPendingStale() {
    for (const p of this.pending.values()) p.stale = true;
    const sessions = new Set([...this.queues.keys(), ...this.jobs.keys()]);
    this.queues.clear();
    this.jobs.clear();
    for (const sid of sessions) {
      this.emit("queue", sid);
      this.emit("jobs", sid);
    }
  }

  /** The input a person sees waiting (queued and steering; injected context stays hidden). */
  visibleQueue(sessionId) {
    return (this.queues.get(sessionId) ?? []).filter((i) => i.placement !== "context");
  }

  /** Reconnect = rebuild: list again, reopen every open session. */
  async rebuild(describe) {
    this.hostInfo = describe ?? this.hostInfo;
    // Every attached session's pending requests were replayed when the mux opened; the rest
    // were settled while we were away.
    let dropped = false;
    for (const [id, p] of this.pending) {
      if (p.stale) {
        this.pending.delete(id);
        dropped = true;
      }
    }
    if (dropped) this.emit("pending", {});
    await this.refreshList();
    await Promise.all([...this.sessions.values()].map((s) => s.reopen()));
  }

  // ---- opening ----------------------------------------------------------------------------

  open(sessionId) {
    let s = this.sessions.get(sessionId);
    for (const [id, other] of this.sessions) if (id !== sessionId) other.sleep();
    if (s) {
      this.sessions.delete(sessionId); // move to most-recent
      this.sessions.set(sessionId, s);
      s.wake();
    } else {
      s = new Session({ sessionId, client: this.client });
      const session = s;
      s.on("ops", () => this.noteProvisionalTitle(session));
      this.sessions.set(sessionId, s);
      s.open();
      this.evict();
    }
    this.activeId = sessionId;
    this.sendFocus();
    this.emit("active", s);
    return s;
  }

  /**
   * Tell the host which session is shown: the mux then streams that session's chunks only
   * (docs/decisions/performance-under-load.md); the others sleep and re-pull their tail when
   * shown again. A lost call costs only bandwidth, so its answer is not awaited.
   */
  sendFocus() {
    if (!this.muxStreamId) return;
    const payload = { streamId: this.muxStreamId, sessionIds: this.activeId ? [this.activeId] : [] };
    Promise.resolve(this.client.call("host.focus", payload)).catch(() => {});
  }

  /**
   * Until the host titles a session (after its first completed turn), name it after its first
   * user message. Only when the fold holds the session's beginning; the host's title wins.
   */
  noteProvisionalTitle(session) {
    const cur = this.summaries.get(session.sessionId);
    if (!cur || cur.title || cur.provisionalTitle || session.hasMore) return;
    const first = session.fold.items.find((it) => it.kind === "user" && !it.steering);
    const title = first ? provisionalTitle(contentText(first.content)) : null;
    if (title) this.patchSummary(session.sessionId, { provisionalTitle: title });
  }

  evict() {
    for (const [id, s] of this.sessions) {
      if (this.sessions.size <= MAX_OPEN) break;
      if (id === this.activeId) continue;
      s.close();
      this.sessions.delete(id);
    }
  }

  /**
   * "New session": reuse a blank one when there is one, else session.create. In a workspace
   * (`workspaceId`) only that workspace's blank session is reused and the new one joins it;
   * without one, an Ungrouped blank session in the host's folder.
   */
  async newSession(workspaceId = null) {
    const ws = this.workspaces;
    const workspace = workspaceId ? ws?.get(workspaceId) : null;
    const members = new Set(ws ? ws.items.flatMap((w) => w.sessionIds).concat(ws.archived) : []);
    const blank = workspace ? blankMember(workspace, this.summaries.values(), ws.archived) : reusableBlank(this.summaries.values(), this.hostInfo?.cwd ?? null, members);
    if (blank) return this.open(blank.sessionId);
    const r = await this.client.call("session.create", workspace ? { workspaceId } : {});
    let id = r.ok ? r.value.sessionId : null;
    if (!r.ok) {
      this.emit("error", t("sessions.createFailed", { reason: r.error.message }));
      if (r.error.code !== "workspace-attach-failed") return null;
      id = r.error.details.sessionId; // it exists, just outside the workspace
    }
    if (!this.summaries.has(id)) {
      this.addSummary({ sessionId: id, updatedAt: this.now(), running: false, blank: true, cwd: workspace?.path ?? this.hostInfo?.cwd });
    }
    return this.open(id);
  }

  /** Fork (opening the child); `restoreFiles` also puts the files later turns changed back. */
  async fork(sessionId, atSeq, { restoreFiles = false } = {}) {
    const payload = atSeq === undefined ? { sessionId } : { sessionId, atSeq };
    const r = await this.client.call("session.fork", restoreFiles ? { ...payload, restoreFiles } : payload);
    if (!r.ok) return r;
    const child = r.value.sessionId;
    const parent = this.summaries.get(sessionId);
    if (!this.summaries.has(child)) {
      this.addSummary({
        sessionId: child,
        updatedAt: this.now(),
        running: false,
        blank: false,
        parentSessionId: sessionId,
        cwd: parent?.cwd,
        title: parent?.title ? parent.title + FORK_SUFFIX : undefined, // as the host names it
      });
    }
    this.open(child);
    this.refreshList();
    return r;
  }

  async rename(sessionId, title) {
    const r = await this.client.call("session.rename", { sessionId, title });
    if (r.ok) {
      this.patchSummary(sessionId, { title: r.value.title });
      this.sessions.get(sessionId)?.onProjection("title", r.value.title, r.value.seq);
    }
    return r;
  }

  // ---- frames -----------------------------------------------------------------------------

  handleMux(msg) {
    const f = msg.payload;
    switch (f.type) {
      case "stream/opened":
        this.muxStreamId = f.streamId;
        this.sendFocus();
        return;
      case "session/event": {
        this.sessions.get(f.sessionId)?.acceptLive(withView(f.event, f.view));
        const t = f.event.type;
        if (t === "user/message" || t === "turn/end") {
          const cur = this.summaries.get(f.sessionId);
          if (cur && (cur.blank || t === "turn/end")) this.patchSummary(f.sessionId, { blank: false, updatedAt: f.event.time });
        }
        return;
      }
      case "session/subscribed":
        // The host re-sends this session's still-pending requests right after this frame.
        for (const [id, p] of this.pending) if (concerns(p, f.sessionId)) this.pending.delete(id);
        this.emit("pending", {});
        this.sessions.get(f.sessionId)?.onSubscribed(f.lastSeq);
        return;
      case "approval/requested":
      case "question/requested": {
        const known = this.pending.get(msg.rpcId);
        const entry = { rpcId: msg.rpcId, kind: f.type.split("/")[0], sessionId: f.sessionId, frame: f, state: known?.state ?? "open", error: null, stale: false };
        this.pending.set(msg.rpcId, entry);
        this.emit("pending", known ? {} : { added: entry });
        return;
      }
      case "approval/resolved":
        for (const [id, p] of this.pending) {
          if (p.kind === "approval" && p.sessionId === f.sessionId && p.frame.approvalId === f.approvalId) this.pending.delete(id);
        }
        this.emit("pending", {});
        return;
      case "question/resolved":
        this.pending.delete(f.questionRpcId);
        this.emit("pending", {});
        return;
      case "session/queue":
        this.queues.set(f.sessionId, f.items);
        this.emit("queue", f.sessionId);
        return;
      case "session/jobs":
        if (f.jobs.length) this.jobs.set(f.sessionId, f.jobs);
        else this.jobs.delete(f.sessionId);
        this.emit("jobs", f.sessionId);
        return;
      case "session/projection": {
        const s = this.sessions.get(f.sessionId);
        const fresh = s ? s.onProjection(f.key, f.value, f.seq) : true;
        if (fresh && f.key === "title" && typeof f.value === "string") this.patchSummary(f.sessionId, { title: f.value });
        if (fresh && f.key === "worktree") this.patchSummary(f.sessionId, { worktree: f.value ?? null }); // its branch and state
        return;
      }
      default:
        return;
    }
  }

  handleHost(msg) {
    const f = msg.payload;
    switch (f.type) {
      case "host/session-added":
        if (!this.summaries.has(f.sessionId)) {
          this.addSummary({
            sessionId: f.sessionId,
            updatedAt: this.now(),
            running: false,
            blank: f.blank,
            ...(f.parentSessionId ? { parentSessionId: f.parentSessionId } : {}),
            ...(f.cwd ? { cwd: f.cwd } : {}),
            ...(f.agentPreset ? { agentPreset: f.agentPreset } : {}),
            ...(f.origin ? { origin: f.origin } : {}),
            ...(f.hostId ? { hostId: f.hostId } : {}),
          });
          if (f.origin) this.refreshList(); // a subagent is titled from its start (its task)
        }
        return;
      case "host/session-removed":
        this.summaries.delete(f.sessionId);
        this.listOrder.note(f.sessionId, null);
        this.sessions.get(f.sessionId)?.close();
        this.sessions.delete(f.sessionId);
        if (this.activeId === f.sessionId) {
          this.activeId = null;
          this.sendFocus();
          this.emit("active", null);
        }
        this.emit("list");
        return;
      case "host/session-status": {
        const cur = this.summaries.get(f.sessionId);
        if (cur) this.patchSummary(f.sessionId, { running: f.running, ...(f.running ? { blank: false } : {}) });
        else this.refreshList();
        return;
      }
      case "host/session-attention": {
        // what the session asks of the person, from the host (docs/decisions.md, "Parallel
        // sessions and attention"): every window and tab shows the same state
        const cur = this.summaries.get(f.sessionId);
        if (!cur) {
          this.refreshList();
          return;
        }
        const previous = cur.attention?.state ?? "idle";
        this.patchSummary(f.sessionId, { attention: f.attention.state === "idle" ? undefined : f.attention });
        this.emit("attention", { sessionId: f.sessionId, attention: f.attention, previous });
        return;
      }
      case "host/agent-error":
        this.emit("agent-error", { sessionId: f.sessionId, message: f.message });
        return;
      case "host/session-preset-changed":
        if (this.summaries.has(f.sessionId)) this.patchSummary(f.sessionId, { agentPreset: f.agentPreset });
        this.emit("catalogue", f.sessionId);
        return;
      case "host/commands-changed":
        this.emit("catalogue", null);
        return;
      case "host/model-status":
        this.emit("model-status", { model: f.model, state: f.state });
        return;
      case "host/mcp-changed":
        this.emit("mcp", f.project);
      case "host/model-download": // progress: only the model library redraws (an install also sends host/models-changed)
        this.emit("model-download", f);
        return;
      default:
        this.emit("config", f.type);
    }
  }

  /** The window shows this session to the person: its finished turns are read, in every window. */
  markSeen(sessionId) {
    const cur = this.summaries.get(sessionId);
    if (cur?.attention?.state !== "done-unread") return;
    this.client.call("session.markSeen", { sessionId }).catch(() => {});
  }

  // ---- answers ----------------------------------------------------------------------------

  /** The approvals and questions a session shows: its own, and those its subagents ask (they
   * are answered in the parent; a subagent's own conversation shows its own too). */
  pendingFor(sessionId) {
    return [...this.pending.values()].filter((p) => concerns(p, sessionId));
  }

  /**
   * What the agent in this session waits on: "approval", "question" or null. Only cards still
   * open count: once an answer is on its way the agent is working again.
   */
  waitingFor(sessionId) {
    let waiting = null;
    for (const p of this.pending.values()) {
      if (!concerns(p, sessionId) || p.state !== "open") continue;
      if (p.kind === "approval") return "approval";
      waiting = "question";
    }
    return waiting;
  }

  /** Send an answer. The card goes away on the matching resolved frame (at once if no longer pending). */
  /** The person dismissed a question card: the agent hears `cancelled` (a lost answer is dropped). */
  dismiss(rpcId) {
    const cancelled = { code: "cancelled", message: "dismissed by the user", details: {} };
    return this.client.respond(rpcId, { ok: false, error: cancelled }).catch(() => {});
  }

  async answer(rpcId, value) {
    const entry = this.pending.get(rpcId);
    if (!entry) return { accepted: false, reason: "not-pending" };
    entry.state = "sending";
    entry.error = null;
    this.emit("pending", {});
    let receipt;
    try {
      receipt = await this.client.respond(rpcId, { ok: true, value });
    } catch (err) {
      entry.state = "open";
      entry.error = err?.message ?? String(err);
      this.emit("pending", {});
      return { accepted: false, reason: "transport" };
    }
    if (receipt.accepted) entry.state = "sent";
    else if (receipt.reason === "not-pending") this.pending.delete(rpcId);
    else {
      entry.state = "open";
      entry.error = t("cards.answerRefused");
    }
    this.emit("pending", {});
    return receipt;
  }

  /** `note` goes with a rejection only: the agent reads it in the tool result. */
  answerApproval(rpcId, outcome, note = null) {
    const entry = this.pending.get(rpcId);
    if (!entry) return Promise.resolve({ accepted: false, reason: "not-pending" });
    const value = { sessionId: entry.sessionId, approvalId: entry.frame.approvalId, outcome };
    return this.answer(rpcId, outcome === "rejected" && note ? { ...value, note } : value);
  }
}

/** Whether a pending request is shown in `sessionId`: asked there, or by it as a subagent. */
function concerns(entry, sessionId) {
  return entry.sessionId === sessionId || entry.frame?.subagent?.sessionId === sessionId;
}
