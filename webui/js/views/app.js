// The application shell: owns the connection, the session manager and the state controllers;
// the views are built by app-views.js and wired by app-wiring.js.

import { ConnectionController } from "../state/connection.js";
import { SessionManager } from "../state/session-manager.js";
import { classifyProblem, describeError } from "../state/problems.js";
import { connectHost, newRemoteSession } from "./remote-hosts.js";
import { TurnCalls } from "../state/turn-calls.js";
import { ConfigCalls } from "../state/config-calls.js";
import { HostCalls } from "../state/host-calls.js";
import { WorktreeCalls } from "../state/worktree-calls.js";
import { RemoteHosts } from "../state/remote-hosts.js";
import { AutomationCalls } from "../state/automation-calls.js";
import { rememberSession } from "../state/last-session.js";
import { WorkspaceState, recentWorkspaces } from "../state/workspaces.js";
import { liveRound } from "../state/fold-goals.js";
import { buildViews } from "./app-views.js";
import { wireApp } from "./app-wiring.js";
import { retryTurn, sendPrompt, stopTurn } from "./turn-actions.js";
import { renderTodos } from "./topbar.js";
import { downloadExport } from "./keyboard.js";
import { forkFrom } from "./undo.js";
import { renderEmpty } from "./welcome.js";
import { checkUiSettings, notificationsOf } from "./theme.js";
import { onScreen } from "./notify.js";
import { parentLine, subagentOf } from "./subagents.js";
import { t } from "../i18n/i18n.js";

const $ = (id) => document.getElementById(id);

export class App {
  /** The client reaches the state modules only; views get the controllers (app-views.js). */
  constructor(client) {
    this.client = client;
    this.workspaces = new WorkspaceState({ client });
    this.manager = new SessionManager({ client, workspaces: this.workspaces });
    this.connection = new ConnectionController({ client });
    this.sessionUnsubs = [];
    this.todosOpen = false;
    this.jobsOpen = false;
    this.changesOpen = false;
    this.mcpOpen = false;
    this.lastStop = { at: 0, sessionId: null };
    this.creating = null; // the session being made by New session or Fork (`making`)
    this.turns = new TurnCalls(client);
    this.config = new ConfigCalls(client);
    this.host = new HostCalls(client);
    this.worktrees = new WorktreeCalls(client);
    this.remotes = new RemoteHosts({ client });
    this.automations = new AutomationCalls(client); // docs/decisions/automations.md
    buildViews(this);
    wireApp(this);
  }

  start() {
    this.renderAll();
    this.connection.start();
  }

  // ---- sessions ---------------------------------------------------------------------------

  /** Show a session; with `atSeq` (a search hit), scrolled to and marking that message. */
  open(sessionId, atSeq, query) {
    this.toggleSidebar(false);
    // a search hit: the session opens straight at the hit, not at its tail first (nor pulls a
    // tail it would throw away: docs/decisions/scroll-frames.md)
    this.revealNext = atSeq !== undefined;
    let s;
    try {
      s = this.manager.activeId === sessionId ? this.manager.active : this.manager.open(sessionId);
    } finally {
      this.revealNext = false;
    }
    if (atSeq !== undefined) this.conversation.reveal(atSeq);
    if (query) this.findBar.show(query, atSeq); // "n of N" of that search in this session
    return s;
  }

  /** New session: in `workspaceId`, else in the open session's workspace (Ungrouped when it is
   * not in one); with none open, in the last workspace used, else in a folder the person picks
   * now: never in the folder the app was launched from (docs/decisions.md, "Review and context"). */
  async newSession(workspaceId) {
    if (this.connection.status.state !== "connected") return null;
    const m = this.manager;
    const remote = m.activeId && !workspaceId ? m.summaries.get(m.activeId) : null;
    if (remote?.hostId && remote.cwd) return this.newRemoteSession(remote.hostId, remote.cwd);
    let wid = workspaceId ?? (m.activeId ? this.workspaces.of(m.activeId)?.workspaceId : null) ?? null;
    if (!wid && !m.activeId) {
      const last = recentWorkspaces(this.workspaces.items, m.summaries.values(), 1)[0];
      if (!last) return this.actions.openFolder(); // it comes back here with the chosen folder
      wid = last.workspaceId;
    }
    const s = await this.createIn(wid);
    this.toggleSidebar(false);
    if (s) this.composer.focus();
    return s;
  }

  /** One session made at a time: a second click, or a message sent meanwhile, gets the session
   * being made (`creating`, views/turn-actions.js), not a second one or the previous session. */
  createIn(workspaceId) {
    return this.creating ?? this.making(this.manager.newSession(workspaceId));
  }

  /** `session`: a promise of the session being made (New session, Fork), or null when it was not
   * made; a message sent meanwhile waits for it and goes there. */
  making(session) {
    const made = session.finally(() => {
      if (this.creating === made) this.creating = null;
    });
    this.creating = made;
    return made;
  }

  /** A session on a remote host: in `cwd` there, or in a folder of it the person picks now. */
  async newRemoteSession(hostId, cwd) {
    let made;
    if (cwd) {
      const r = await this.remotes.createSession(hostId, cwd);
      if (!r.ok) {
        this.status.toast(describeError(r.error));
        return null;
      }
      made = { sessionId: r.value.sessionId, cwd };
    } else {
      made = await newRemoteSession({ remotes: this.remotes, hostId, toast: (m) => this.status.toast(m) });
    }
    if (!made) return null;
    if (!this.manager.summaries.has(made.sessionId)) {
      this.manager.addSummary({ sessionId: made.sessionId, updatedAt: Date.now(), running: false, blank: true, cwd: made.cwd, hostId });
    }
    const s = this.open(made.sessionId);
    this.composer.focus();
    return s;
  }

  /** `harnessdesk --remote TARGET [PATH]`: connect that host (asking what must be asked) and
   * open a session there in PATH, or its home. */
  async openRemote(target, path) {
    let host = this.remotes.items.find((h) => h.target === target);
    if (!host) {
      const added = await this.remotes.add(target);
      if (!added.ok) return this.status.toast(describeError(added.error));
      host = this.remotes.get(added.value.hostId);
    }
    const r = await connectHost(this.remotes, host.hostId);
    if (!r.ok) return this.status.toast(describeError(r.error));
    const home = path ? null : await this.remotes.listDirectory(host.hostId);
    return this.newRemoteSession(host.hostId, path ?? (home?.ok ? home.value.path : null));
  }

  /** The desktop shell asks (`harnessdesk PATH` handed to this window): show that session. */
  openFromShell(sessionId) {
    this.open(sessionId);
    this.workspaces.load().catch(() => {});
  }

  canOpenPath() {
    return !!this.manager.hostInfo?.canOpenPath;
  }

  bindSession(session) {
    for (const u of this.sessionUnsubs) u();
    this.sessionUnsubs = [];
    const sid = session?.sessionId ?? null;
    history.replaceState(null, "", sid ? `#session=${encodeURIComponent(sid)}` : location.pathname + location.search);
    if (sid) rememberSession(sid);
    if (sid && onScreen()) this.manager.markSeen(sid); // its finished turns are read now
    const revealing = this.revealNext && !!session;
    this.conversation.setSession(session, { reveal: revealing });
    this.findBar.sessionChanged(sid);
    this.rail.setSession(session);
    this.composer.recall.reset();
    this.cards.setSession(sid);
    this.terminalPane.setSession(sid);
    this.filesPane.setSession(sid);
    if (!revealing) this.conversation.jumpToLatest();
    this.queue.set(sid, sid ? this.manager.visibleQueue(sid) : [], this.running());
    this.steerChips.set(sid, sid ? this.manager.visibleQueue(sid) : []);
    this.composer.setWaiting(sid ? this.manager.visibleQueue(sid).length : 0);
    this.modelPicker.setSession(subagentOf(this.manager, sid) ? null : sid); // a subagent runs its parent's choice
    this.renderModelNotes();
    this.status.setProblem("model-unavailable", false);
    if (session) {
      this.sessionUnsubs.push(
        session.on("ops", (ops) => this.onOps(session, ops)),
        session.on("state", () => this.renderAll()),
      );
    }
    this.sidebar.render();
    this.renderAll();
  }

  onOps(session, ops) {
    for (const op of ops) {
      if (op.op !== "add") continue;
      const item = session.fold.get(op.id);
      if (item?.kind === "turn-end" && item.reason?.kind === "error") {
        const kind = classifyProblem(item.reason.error);
        if (kind) this.status.setProblem(kind, true, item.reason.error?.details?.model ?? "");
      }
      if (item?.kind === "turn-end" && item.reason?.kind === "completed") this.status.setProblem("model-unavailable", false);
      // a turn may have changed files, a revert or restore put them back
      if (item?.kind === "turn-end" || item?.kind === "restored") this.topbar.git.refresh();
      if (item?.kind === "turn-end" || item?.kind === "restored") this.changes.refresh();
    }
    if (ops.some((o) => o.op === "meta" || o.op === "reset")) this.renderAll();
  }

  running() {
    const m = this.manager;
    const s = m.active;
    if (!s) return false;
    if (m.summaries.get(s.sessionId)?.running) return true;
    // a detached page (a search hit far up) may end inside a turn long finished: only the
    // host's word counts then (docs/decisions.md, "A day's work without friction")
    return !s.detached && s.fold.activeTurn !== null;
  }

  // ---- actions ----------------------------------------------------------------------------

  /** Send a prompt to the open session (a new one when none is open); false when refused. */
  send(mode, content, attach = []) {
    return sendPrompt(this, mode, content, attach);
  }

  /** Stop the running turn (views/turn-actions.js). */
  stop(options) {
    return stopTurn(this, options);
  }

  /** Fork at a turn, offering to restore the files later turns changed (views/undo.js). */
  fork(atSeq, btn) {
    return forkFrom(this, atSeq, btn);
  }

  retry(turnEnd, btn) {
    return retryTurn(this, turnEnd, btn);
  }

  /** Export a session and say where the file went: the path, with "Show in folder" where the
   * host can open one (the window), else the file's name in the browser's downloads. */
  async exportSession(sessionId) {
    let saved;
    try {
      saved = await downloadExport(this.host, sessionId);
    } catch (e) {
      this.status.toast(t("export.failed", { reason: e.message }));
      return;
    }
    if (saved.cancelled) return;
    if (!saved.path) return this.status.toast(t("export.downloaded", { name: saved.name }), "info");
    const folder = saved.path.replace(/[\\/][^\\/]*$/, "") || "/";
    const show = this.canOpenPath() ? { label: t("export.showInFolder"), testid: "export-show-folder", run: () => this.actions.reveal(folder) } : null;
    this.status.toast(t("export.savedTo", { path: saved.path }), "info", show);
  }

  checkProvider() {
    return this.providers.refresh();
  }

  /** The window's own settings: the theme and the welcome notice (views/theme.js). */
  checkUiSettings() {
    this.configNotice.check();
    return checkUiSettings(this.config, this.onboarding).then((describe) => this.notifier.setEnabled(notificationsOf(describe)));
  }

  // ---- layout -----------------------------------------------------------------------------

  /** Open/close the sidebar drawer (narrow windows only); returns true when it closed it. */
  toggleSidebar(force) {
    const app = $("app");
    if (!matchMedia("(max-width: 50rem)").matches) {
      app.classList.remove("sidebar-open");
      return false;
    }
    const was = app.classList.contains("sidebar-open");
    const next = force === undefined ? !was : force;
    app.classList.toggle("sidebar-open", next);
    return was && !next;
  }

  toggleTodos() {
    this.todosOpen = !this.todosOpen;
    this.renderAll();
  }

  toggleJobs() {
    this.jobsOpen = !this.jobsOpen;
    this.renderAll();
  }

  toggleChanges(force) {
    this.changesOpen = force === undefined ? !this.changesOpen : force;
    this.renderAll();
  }

  /** Open the Changes view at `path` (a turn's file list links here), or at lines of it (`at`:
   * {start, end, side}, a review comment's chip). */
  showChanges(path, at = null) {
    this.changesOpen = true;
    this.renderAll();
    if (path) this.changesPanel.reveal(path, at);
  }

  toggleMcp() {
    this.mcpOpen = !this.mcpOpen;
    this.renderAll();
  }

  renderHeader() {
    const m = this.manager;
    const s = m.active;
    const summary = s ? m.summaries.get(s.sessionId) : null;
    const title = s?.title ?? summary?.title;
    const preset = summary?.agentPreset ?? s?.fold.preset ?? null;
    if (preset && !this.presets.value) this.presets.load();
    const jobs = s ? m.jobs.get(s.sessionId) ?? [] : [];
    const context = s?.projections.get("context")?.value ?? null;
    const live = { preset: preset && this.presets.name(preset), instructions: s?.projections.get("instructions")?.value ?? null, plan: !!s?.projections.get("plan")?.value?.active, permissions: s?.projections.get("permissions")?.value };
    const child = subagentOf(m, s?.sessionId);
    const subagentLine = child ? parentLine(m, child, (id) => this.open(id)) : null;
    this.topbar.update({ sessionId: s?.sessionId ?? null, summary, title, running: this.running(), home: m.hostInfo?.home, todos: s?.fold.todos, todosOpen: this.todosOpen, ...live, chatOnly: this.chatOnly(s, preset), context, jobs, jobsOpen: this.jobsOpen, subagentLine });
    this.jobsPanel.set(s?.sessionId ?? null, jobs, this.jobsOpen);
    this.changes.set(s?.sessionId ?? null);
    this.review.set(s?.sessionId ?? null);
    this.topbar.updateChanges(this.changes.count, this.changesOpen && !!s);
    this.changesPanel.set(this.changesOpen && !!s);
    this.mcpPanel.set(s?.sessionId ?? null, this.mcpOpen);
    this.topbar.updateMcp(s ? this.mcpPanel.value : null, this.mcpOpen);
    const goal = s?.projections.get("goal")?.value;
    this.goalBar.set(s?.sessionId ?? null, goal, s ? liveRound(s.fold.items, goal?.goal?.id) : null, this.running());
    this.notifier.setBase(s ? title || summary?.provisionalTitle : null);
  }

  renderAll() {
    const s = this.manager.active;
    this.renderHeader();
    this.renderArchived();
    this.composer.setRunning(this.renderActivity());
    const todos = s?.fold.todos ?? null;
    const panel = $("todo-panel");
    panel.hidden = !(todos && todos.length && this.todosOpen);
    if (!panel.hidden) renderTodos(panel, todos);
    this.renderEmpty(s);
  }

  /** "Working…" or "Waiting for your approval/answer" under the conversation; returns running. */
  renderActivity() {
    const s = this.manager.active;
    const running = this.running();
    const attention = s ? this.manager.summaries.get(s.sessionId)?.attention : null;
    this.conversation.setActivity(running, s ? this.manager.waitingFor(s.sessionId) : null, !!s?.fold.compacting, attention?.state === "waiting" ? attention.ahead ?? 0 : null);
    this.queue.setRunning(running);
    return running;
  }

  renderEmpty(s) {
    renderEmpty(this, s);
  }

  renderArchived() {
    const sid = this.manager.activeId;
    this.archivedNote.set(sid, !!sid && this.workspaces.isArchived(sid));
  }

  /** Whether nothing can run in session `s`: its model cannot use tools, or it runs the
   * shipped Chat preset (no tools at all). */
  chatOnly(s, preset) {
    if (!s) return false;
    const provider = this.modelPicker.value?.current?.provider ?? this.providers.defaultSelection?.provider;
    return !!this.providers.chatOnly(provider) || preset === "chat";
  }

  /** Name the model new sessions start on (welcome, notice) and say when the model the composer
   * sends to is chat-only. */
  renderModelNotes() {
    const s = this.manager.active;
    const provider = (s && this.modelPicker.value?.current?.provider) || this.providers.defaultSelection?.provider;
    this.composer.setChatOnly(this.providers.chatOnly(provider));
    if (s) this.renderHeader(); // the shield says "Chat only" while the model cannot act
    this.onboarding.setStartsOn(this.providers.startsOn());
    this.onboarding.setMode(this.providers.newSessionMode);
    if (!s) this.renderEmpty(s);
  }
}
