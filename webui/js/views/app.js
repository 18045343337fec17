// The application shell: wires the connection, the session manager and every view together.

import { ConnectionController } from "../state/connection.js";
import { SessionManager } from "../state/session-manager.js";
import { classifyProblem } from "../state/problems.js";
import { SidebarView } from "./sidebar.js";
import { ConversationView } from "./conversation.js";
import { ComposerView } from "./composer.js";
import { QueueView } from "./queue-view.js";
import { SteerChips } from "./steer-chips.js";
import { editAndResend } from "./edit-resend.js";
import { retryTurn, sendPrompt, stopTurn } from "./turn-actions.js";
import { sentTexts } from "../state/recall.js";
import { FinderQueries } from "../state/finder.js";
import { PendingCardsView } from "./pending-cards.js";
import { ModelPicker } from "./model-picker.js";
import { TopBar, renderTodos } from "./topbar.js";
import { JobsPanel } from "./jobs-panel.js";
import { ChangesPanel } from "./changes-panel.js";
import { ChangesState } from "../state/changes.js";
import { McpPanel } from "./mcp-panel.js";
import { StatusView } from "./status.js";
import { SettingsDialog } from "./settings-dialog.js";
import { OnboardingNotice } from "./onboarding.js";
import { Notifier } from "./notify.js";
import { installShortcuts, downloadExport } from "./keyboard.js";
import { Catalogues } from "../state/catalogue.js";
import { lastSession, rememberSession } from "../state/last-session.js";
import { PresetPicker } from "./preset-picker.js";
import { PresetViewer } from "./preset-viewer.js";
import { HelpDialog } from "./help-dialog.js";
import { runClient, runCommand } from "./commands.js";
import { forkFrom, revertTurn } from "./undo.js";
import { WorkspaceState, recentWorkspaces } from "../state/workspaces.js";
import { WorkspaceActions } from "./workspace-actions.js";
import { ImportArchive } from "./import-archive.js";
import { renderEmpty } from "./welcome.js";
import { ArchivedNote } from "./archived-note.js";
import { ProviderState } from "./provider-state.js";
import { checkUiSettings } from "./theme.js";
import { ConfigFileNotice } from "./config-notice.js";
import { parentLine, subagentOf } from "./subagents.js";
import { GoalBar } from "./goal-bar.js";
import { liveRound } from "../state/fold-goals.js";

const $ = (id) => document.getElementById(id);

export class App {
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
    const toast = (m, tone, action) => this.status.toast(m, tone, action);
    this.status = new StatusView({ banners: $("banners"), overlay: $("overlay"), toasts: $("toasts") }, {
      retryNow: () => this.connection.retryNow(),
      openSettings: () => this.settings.open(),
    });
    this.providers = new ProviderState({ client, status: this.status, changed: () => this.renderModelNotes() });
    this.settings = new SettingsDialog({ client, onChanged: () => this.checkProvider(), servers: () => this.providers.servers, lookForServers: () => this.providers.lookForServers() });
    this.onboarding = new OnboardingNotice($("banners"), { client, openSettings: () => this.settings.open() });
    this.configNotice = new ConfigFileNotice($("banners"), { client, toast });
    this.modelPicker = new ModelPicker({ client, toast, servers: () => this.providers.servers, serverAdded: () => this.providers.lookForServers(), onProblem: (kind, detail) => this.status.setProblem("model-unavailable", kind === "model-unavailable", detail), changed: () => this.renderModelNotes() });
    this.actions = new WorkspaceActions({
      client,
      manager: this.manager,
      workspaces: this.workspaces,
      toast,
      newSession: (wid) => this.newSession(wid),
      exportSession: (id) => this.exportSession(id),
    });
    const a = this.actions;
    this.importer = new ImportArchive({ client, manager: this.manager, workspaces: this.workspaces, picker: a.picker, toast, open: (id) => this.open(id), home: () => this.manager.hostInfo?.home });
    this.archivedNote = new ArchivedNote($("banners"), { unarchive: (id) => a.unarchive(id) });
    this.sidebar = new SidebarView($("sidebar-body"), {
      manager: this.manager,
      workspaces: this.workspaces,
      client,
      toast,
      openSession: (id, atSeq) => this.open(id, atSeq),
      newSession: () => this.newSession(),
      newSessionIn: (wid) => this.newSession(wid),
      openFolder: () => a.openFolder(),
      exportSession: (id) => this.exportSession(id),
      archive: (id) => a.archive(id),
      unarchive: (id) => a.unarchive(id),
      deleteSession: (id) => a.deleteSession(id),
      revealFolder: (path) => a.reveal(path),
      canOpenPath: () => this.canOpenPath(),
      removeWorkspace: (w) => a.removeWorkspace(w),
      moveSession: (wid, sid, before) => a.moveSession(wid, sid, before),
      focusComposer: () => this.composer.focus(),
    });
    this.topbar = new TopBar($("topbar"), {
      client,
      toast,
      modelPicker: this.modelPicker,
      toggleSidebar: () => this.toggleSidebar(),
      toggleTodos: () => this.toggleTodos(),
      toggleJobs: () => this.toggleJobs(),
      toggleChanges: () => this.toggleChanges(),
      toggleMcp: () => this.toggleMcp(),
      exportSession: (id) => this.exportSession(id),
      renameSession: (id) => this.sidebar.startRename(id),
    });
    this.conversation = new ConversationView($("conversation"), {
      client,
      tailSlot: $("pending-cards"),
      onFork: (seq, btn) => this.fork(seq, btn),
      onRetry: (item, btn) => this.retry(item, btn),
      onRevert: (item, btn) => revertTurn(this, item, btn),
      openChanges: (path) => this.showChanges(path),
      onEditResend: (item, btn) => editAndResend(this, item, btn),
      openPath: (path) => a.reveal(path),
      canOpenPath: () => this.canOpenPath(),
      cwdOf: (sid) => this.manager.summaries.get(sid)?.cwd ?? null,
      openSession: (id) => this.open(id),
    });
    this.cards = new PendingCardsView($("pending-cards"), this.manager, { focusComposer: () => this.composer.focus() });
    this.cards.openSession = (id) => this.open(id);
    this.queue = new QueueView($("queue"), { client, toast, stopAll: () => this.stop({ clearQueue: true }) });
    this.jobsPanel = new JobsPanel($("jobs-panel"), { client, toast });
    this.changes = new ChangesState({ client }); // the Changes view (docs/architecture.md, "The Changes view")
    this.changesPanel = new ChangesPanel($("changes-panel"), { state: this.changes, toast, close: () => this.toggleChanges(false) });
    this.changes.on("change", () => this.topbar.updateChanges(this.changes.count, this.changesOpen));
    this.mcpPanel = new McpPanel($("mcp-panel"), { client, toast, changed: (v) => this.topbar.updateMcp(v, this.mcpOpen) });
    this.goalBar = new GoalBar($("goal-bar"), { client });
    this.catalogues = new Catalogues({ client });
    this.presetViewer = new PresetViewer({ client, toast, changed: () => this.presets.invalidate(), entry: async (id) => (await this.presets.load())?.presets.find((p) => p.id === id) });
    this.presets = new PresetPicker({ client, toast, view: (id) => this.presetViewer.open(id), selected: (sid, preset) => this.manager.patchSummary(sid, { agentPreset: preset }), loaded: () => this.renderHeader() });
    this.help = new HelpDialog();
    this.composer = new ComposerView($("composer"), {
      send: (mode, content, attach) => this.send(mode, content, attach),
      finder: new FinderQueries(client, () => this.manager.activeId),
      stop: () => this.stop(),
      toast,
      catalogue: () => this.catalogues.get(subagentOf(this.manager, this.manager.activeId) ? null : this.manager.activeId),
      refreshCatalogue: () => this.catalogues.refresh(subagentOf(this.manager, this.manager.activeId) ? null : this.manager.activeId),
      runCommand: (line) => runCommand(this, line),
      runClient: (name) => runClient(this, name),
      sentTexts: () => sentTexts(this.manager.active?.fold.items ?? []),
    });
    this.steerChips = new SteerChips(this.composer.chips, { client, toast });
    this.notifier = new Notifier();
    this.emptyState = $("empty-state");
    this.wire();
  }

  start() {
    this.renderAll();
    this.connection.start();
  }

  wire() {
    const c = this.connection;
    const m = this.manager;
    c.on("status", (s) => {
      this.status.setConnection(s);
      this.composer.setEnabled(s.state === "connected" || !!s.describe);
      $("sidebar").querySelector(".new-session").disabled = s.state !== "connected";
    });
    c.on("lost", () => m.markPendingStale());
    c.on("mux", (msg) => m.handleMux(msg));
    c.on("host", (msg) => this.workspaces.handleHost(msg.payload) || m.handleHost(msg));
    c.on("connected", async (describe) => {
      const first = !m.listLoaded;
      try {
        await Promise.all([m.rebuild(describe), this.workspaces.load()]);
      } catch (err) {
        // A call failed mid-rebuild (the host blipped): rebuild again rather than stay half-built.
        if (c.status.state === "connected") c.reconnect(`rebuild failed: ${err?.message ?? err}`);
        return;
      }
      if (first) {
        // the URL's session (a reload, `harnessdesk PATH`), else the one open when the app last
        // closed (docs/decisions.md, "Review and context, part 2")
        const wanted = new URLSearchParams(location.hash.slice(1)).get("session") ?? lastSession();
        if (wanted && m.summaries.has(wanted)) this.open(wanted);
      }
      this.checkProvider();
      if (first) this.providers.lookForServers().then(() => this.modelPicker.refresh());
      this.checkUiSettings();
      this.renderAll();
    });
    this.workspaces.on("change", () => {
      this.sidebar.render();
      this.renderArchived();
      this.renderEmpty(this.manager.active);
    });
    m.on("list", () => {
      this.sidebar.render();
      this.renderAll(); // a summary's running flag can flip after the turn/end: update Stop and "Working…" too
    });
    m.on("active", (s) => this.bindSession(s));
    m.on("pending", ({ added }) => {
      const pinned = this.conversation.isPinned();
      this.cards.render();
      this.renderActivity();
      if (pinned || added?.sessionId === m.activeId) this.conversation.jumpToLatest();
      this.sidebar.render();
      if (added) {
        const what = added.kind === "approval" ? `Approval needed: ${added.frame.toolName}` : "The agent has a question";
        this.notifier.attention("HarnessDesk", what, () => this.open(added.sessionId));
      }
    });
    m.on("queue", (sid) => {
      if (sid !== m.activeId) return;
      this.queue.set(sid, m.visibleQueue(sid), this.running());
      this.steerChips.set(sid, m.visibleQueue(sid));
      this.composer.setWaiting(m.visibleQueue(sid).length);
    });
    m.on("jobs", (sid) => sid === m.activeId && this.renderAll());
    m.on("mcp", (project) => this.mcpPanel.changed(project));
    m.on("agent-error", ({ sessionId, message }) => {
      this.status.toast(`${sessionId === m.activeId ? "" : "Another session: "}${message}`);
    });
    m.on("config", (type) => {
      if (type === "host/config-file-changed") this.configNotice.check();
      if (type === "host/settings-changed") {
        this.checkUiSettings();
        this.presets.invalidate(); // the default agent preset may have changed
      }
      this.checkProvider();
      this.modelPicker.refresh();
      this.settings.changed();
    });
    m.on("model-status", (s) => this.status.setModelStatus(s));
    m.on("model-download", (f) => this.settings.library.onFrame(f));
    m.on("error", (msg) => this.status.toast(msg));
    m.on("catalogue", (sid) => {
      this.catalogues.invalidate(sid);
      if (sid === null) this.presets.invalidate();
      else if (sid === m.activeId) this.presets.show(sid, m.summaries.get(sid)?.agentPreset);
    });
    installShortcuts({
      newSession: () => this.newSession(),
      focusSearch: () => {
        this.toggleSidebar(true);
        this.sidebar.focusSearch();
      },
      cancelTurn: () => this.running() && this.stop({ escape: true }),
      closeSidebar: () => this.toggleSidebar(false),
    });
    $("open-settings").addEventListener("click", () => this.settings.open());
    $("import-archive").addEventListener("click", () => this.importer.choose());
    $("scrim").addEventListener("click", () => this.toggleSidebar(false));
  }

  // ---- sessions ---------------------------------------------------------------------------

  /** Show a session; with `atSeq` (a search hit), scrolled to and marking that message. */
  open(sessionId, atSeq) {
    this.toggleSidebar(false);
    const s = this.manager.activeId === sessionId ? this.manager.active : this.manager.open(sessionId);
    if (atSeq !== undefined) this.conversation.reveal(atSeq);
    return s;
  }

  /** New session: in `workspaceId`, else in the open session's workspace (Ungrouped when it is
   * not in one); with none open, in the last workspace used, else in a folder the person picks
   * now: never in the folder the app was launched from (docs/decisions.md, "Review and context"). */
  async newSession(workspaceId) {
    if (this.connection.status.state !== "connected") return null;
    const m = this.manager;
    let wid = workspaceId ?? (m.activeId ? this.workspaces.of(m.activeId)?.workspaceId : null) ?? null;
    if (!wid && !m.activeId) {
      const last = recentWorkspaces(this.workspaces.items, m.summaries.values(), 1)[0];
      if (!last) return this.actions.openFolder(); // it comes back here with the chosen folder
      wid = last.workspaceId;
    }
    const s = await m.newSession(wid);
    this.toggleSidebar(false);
    if (s) this.composer.focus();
    return s;
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
    this.conversation.setSession(session);
    this.composer.recall.reset();
    this.cards.setSession(sid);
    this.conversation.jumpToLatest();
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
      if (item?.kind === "turn-end") this.topbar.git.refresh(); // the turn may have changed files
      if (item?.kind === "turn-end" || item?.kind === "restored") this.changes.refresh();
    }
    if (ops.some((o) => o.op === "meta" || o.op === "reset")) this.renderAll();
  }

  running() {
    const m = this.manager;
    const s = m.active;
    if (!s) return false;
    return !!m.summaries.get(s.sessionId)?.running || s.fold.activeTurn !== null;
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

  async exportSession(sessionId) {
    try {
      await downloadExport(this.client, sessionId);
    } catch (e) {
      this.status.toast(`Export failed: ${e.message}`);
    }
  }

  checkProvider() {
    return this.providers.refresh();
  }

  /** The window's own settings: the theme and the welcome notice (views/theme.js). */
  checkUiSettings() {
    this.configNotice.check();
    return checkUiSettings(this.client, this.onboarding);
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

  /** Open the Changes view at `path` (a turn's file list links here). */
  showChanges(path) {
    this.changesOpen = true;
    this.renderAll();
    if (path) this.changesPanel.reveal(path);
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
    this.topbar.update({ sessionId: s?.sessionId ?? null, summary, title, running: this.running(), home: m.hostInfo?.home, todos: s?.fold.todos, todosOpen: this.todosOpen, ...live, context, jobs, jobsOpen: this.jobsOpen, subagentLine });
    this.jobsPanel.set(s?.sessionId ?? null, jobs, this.jobsOpen);
    this.changes.set(s?.sessionId ?? null);
    this.topbar.updateChanges(this.changes.count, this.changesOpen && !!s);
    this.changesPanel.set(this.changesOpen && !!s);
    this.mcpPanel.set(s?.sessionId ?? null, this.mcpOpen);
    this.topbar.updateMcp(s ? this.mcpPanel.value : null, this.mcpOpen);
    const goal = s?.projections.get("goal")?.value;
    this.goalBar.set(s?.sessionId ?? null, goal, s ? liveRound(s.fold.items, goal?.goal?.id) : null);
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
    this.conversation.setActivity(running, s ? this.manager.waitingFor(s.sessionId) : null, !!s?.fold.compacting);
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

  /** Name the model new sessions start on (welcome, notice) and say when the model the composer
   * sends to is chat-only. */
  renderModelNotes() {
    const s = this.manager.active;
    const provider = (s && this.modelPicker.value?.current?.provider) || this.providers.defaultSelection?.provider;
    this.composer.setChatOnly(this.providers.chatOnly(provider));
    this.onboarding.setStartsOn(this.providers.startsOn());
    if (!s) this.renderEmpty(s);
  }
}
