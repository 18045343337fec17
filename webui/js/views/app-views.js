// The application's views, built once for App (views/app.js): each gets the state controllers
// it needs (state/turn-calls.js, config-calls.js, host-calls.js), never the client
// (docs/architecture.md, "Clients"). Split from App's constructor so app.js stays readable.

import { FindBar } from "./find-bar.js";
import { SessionRail } from "./session-rail.js";
import { Catalogues } from "../state/catalogue.js";
import { sentTexts } from "../state/recall.js";
import { ArchivedNote } from "./archived-note.js";
import { modelName } from "../state/host-words.js";
import { runClient, runCommand } from "./commands.js";
import { ComposerView } from "./composer.js";
import { ConfigFileNotice } from "./config-notice.js";
import { ConversationView } from "./conversation.js";
import { editAndResend } from "./edit-resend.js";
import { rewindTo } from "./rewind.js";
import { GoalBar } from "./goal-bar.js";
import { HelpDialog } from "./help-dialog.js";
import { JobsPanel } from "./jobs-panel.js";
import { ChangesPanel } from "./changes-panel.js";
import { ChangesState } from "../state/changes.js";
import { ReviewState } from "../state/review.js";
import { FinderQueries } from "../state/finder.js";
import { ImportArchive } from "./import-archive.js";
import { ImportState } from "../state/importer.js";
import { McpPanel } from "./mcp-panel.js";
import { ModelPicker } from "./model-picker.js";
import { Notifier } from "./notify.js";
import { OnboardingNotice } from "./onboarding.js";
import { PendingCardsView } from "./pending-cards.js";
import { PresetPicker } from "./preset-picker.js";
import { PresetViewer } from "./preset-viewer.js";
import { ProviderState } from "./provider-state.js";
import { QueueView } from "./queue-view.js";
import { SettingsDialog } from "./settings-dialog.js";
import { SecretPrompt, connectHost } from "./remote-hosts.js";
import { describeError } from "../state/problems.js";
import { SidebarView } from "./sidebar.js";
import { StatusView } from "./status.js";
import { SteerChips } from "./steer-chips.js";
import { subagentOf } from "./subagents.js";
import { TopBar } from "./topbar.js";
import { revertTurn } from "./undo.js";
import { WorkspaceActions } from "./workspace-actions.js";
import { WorktreeMenu } from "./worktree-menu.js";
import { WorktreePanel } from "./worktree-panel.js";
import { TerminalsState } from "../state/terminals.js";
import { TerminalPane } from "./terminal-pane.js";
import { FileTreeState } from "../state/file-tree.js";
import { FilesPane } from "./files-pane.js";
import { Panes } from "./panes.js";
import { AutomationsDialog } from "./automations-dialog.js";
import { RunInbox } from "./run-inbox.js";

const $ = (id) => document.getElementById(id);

/** Build every view of `app` (its state and controllers exist already) onto `app`. */
export function buildViews(app) {
  const { turns, config, host } = app;
  const toast = (m, tone, action) => app.status.toast(m, tone, action);
  app.status = new StatusView({ banners: $("banners"), overlay: $("overlay"), toasts: $("toasts") }, {
    retryNow: () => app.connection.retryNow(),
    openSettings: () => app.settings.open(),
  });
  app.providers = new ProviderState({ config, status: app.status, changed: () => app.renderModelNotes() });
  app.settings = new SettingsDialog({ config, onChanged: () => app.checkProvider(), servers: () => app.providers.servers, lookForServers: () => app.providers.lookForServers(), pickFile: () => app.actions.picker.chooseFile("gguf"), remotes: app.remotes, worktreeSpace: () => app.worktrees.spaceUsed() });
  app.secretPrompt = new SecretPrompt({ remotes: app.remotes });
  app.onboarding = new OnboardingNotice($("banners"), { config, openSettings: () => app.settings.open() });
  app.configNotice = new ConfigFileNotice($("banners"), { config, toast });
  app.modelPicker = new ModelPicker({ turns, config, toast, servers: () => app.providers.servers, serverAdded: () => app.providers.lookForServers(), onProblem: (kind, detail) => app.status.setProblem("model-unavailable", kind === "model-unavailable", detail), changed: () => app.renderModelNotes() });
  app.actions = new WorkspaceActions({
    host,
    manager: app.manager,
    workspaces: app.workspaces,
    toast,
    newSession: (wid) => app.newSession(wid),
    exportSession: (id) => app.exportSession(id),
    worktrees: app.worktrees,
  });
  const a = app.actions;
  app.importer = new ImportArchive({ state: new ImportState({ client: app.client }), manager: app.manager, workspaces: app.workspaces, picker: a.picker, toast, open: (id) => app.open(id), home: () => app.manager.hostInfo?.home });
  app.archivedNote = new ArchivedNote($("banners"), { unarchive: (id) => a.unarchive(id) });
  app.sidebar = new SidebarView($("sidebar-body"), {
    manager: app.manager,
    workspaces: app.workspaces,
    turns,
    toast,
    openSession: (id, atSeq, query) => app.open(id, atSeq, query),
    newSession: () => app.newSession(),
    newSessionIn: (wid) => app.newSession(wid),
    openFolder: () => a.openFolder(),
    exportSession: (id) => app.exportSession(id),
    archive: (id) => a.archive(id),
    unarchive: (id) => a.unarchive(id),
    deleteSession: (id) => a.deleteSession(id),
    revealFolder: (path) => a.reveal(path),
    canOpenPath: () => app.canOpenPath(),
    removeWorkspace: (w) => a.removeWorkspace(w),
    moveSession: (wid, sid, before) => a.moveSession(wid, sid, before),
    focusComposer: () => app.composer.focus(),
    remotes: app.remotes,
    newRemoteSession: (hostId) => app.newRemoteSession(hostId),
    connectHost: async (hostId) => {
      const r = await connectHost(app.remotes, hostId);
      if (!r.ok) toast(describeError(r.error));
    },
  });
  // automations and the inbox of their runs (docs/decisions/automations.md)
  const openRun = async (run) => {
    if (!app.manager.summaries.has(run.sessionId)) await app.manager.refreshList().catch(() => {});
    app.open(run.sessionId);
    app.showChanges(); // a run is reviewed in its Changes view: the review pane in a repository
  };
  app.automationsDialog = new AutomationsDialog({
    calls: app.automations,
    toast,
    folder: () => app.manager.active?.cwd ?? app.manager.summaries.get(app.manager.activeId)?.cwd ?? null,
    // what the model menu lists for the open session (else the host's default), as the wire's provider/model
    models: () => {
      const listed = (app.modelPicker?.value?.groups ?? []).flatMap((g) => g.models.map((m) => ({ value: `${g.id}/${m.id}`, label: modelName(g.id, m) })));
      const d = app.providers.defaultSelection;
      return listed.length || !d?.model ? listed : [{ value: `${d.provider}/${d.model}`, label: d.model }];
    },
    presets: async () => {
      const r = await app.config.listPresets();
      return r.ok ? r.value.presets.filter((p) => !p.broken) : [];
    },
    changed: () => app.runInbox.soon(),
  });
  app.runInbox = new RunInbox({ calls: app.automations, toast, openRun, openAutomations: () => app.automationsDialog.open() });
  $("sidebar-body").insertBefore(app.runInbox.el, $("sidebar-body").querySelector(".session-nav"));
  app.worktreeMenu = new WorktreeMenu({ worktrees: app.worktrees, manager: app.manager, toast });
  app.topbar = new TopBar($("topbar"), {
    turns,
    toast,
    worktreeMenu: app.worktreeMenu,
    modelPicker: app.modelPicker,
    toggleSidebar: () => app.toggleSidebar(),
    toggleTodos: () => app.toggleTodos(),
    toggleJobs: () => app.toggleJobs(),
    toggleChanges: () => app.toggleChanges(),
    toggleMcp: () => app.toggleMcp(),
    exportSession: (id) => app.exportSession(id),
    renameSession: (id) => app.sidebar.startRename(id),
  });
  app.conversation = new ConversationView($("conversation"), {
    turns,
    tailSlot: $("pending-cards"),
    onFork: (seq, btn) => app.fork(seq, btn),
    onRetry: (item, btn) => app.retry(item, btn),
    onRevert: (item, btn) => revertTurn(app, item, btn),
    openChanges: (path, at) => app.showChanges(path, at),
    onEditResend: (item, btn) => editAndResend(app, item, btn),
    onRewind: (item, btn) => rewindTo(app, item, btn),
    openPath: (path) => a.reveal(path),
    canOpenPath: () => app.canOpenPath(),
    cwdOf: (sid) => app.manager.summaries.get(sid)?.cwd ?? null,
    openSession: (id) => app.open(id),
  });
  app.rail = new SessionRail(document.querySelector(".log-wrap"), app.conversation);
  app.findBar = new FindBar(document.querySelector(".log-wrap"), { turns, conversation: app.conversation, sessionId: () => app.manager.activeId, focusAway: () => app.composer.focus() });
  app.cards = new PendingCardsView($("pending-cards"), app.manager, { focusComposer: () => app.composer.focus(), addRule: (rule) => app.config.addRule(rule) });
  app.cards.openSession = (id) => app.open(id);
  app.queue = new QueueView($("queue"), { turns, toast, stopAll: () => app.stop({ clearQueue: true }) });
  app.jobsPanel = new JobsPanel($("jobs-panel"), { turns, toast });
  app.changes = new ChangesState({ client: app.client }); // the Changes view (docs/architecture.md, "The Changes view")
  app.review = new ReviewState({ client: app.client }); // the review pane (docs/decisions/review-pane.md)
  app.changesPanel = new ChangesPanel($("changes-panel"), { state: app.changes, review: app.review, toast, close: () => app.toggleChanges(false), send: (content) => app.send("queue", content), showSeq: (seq) => app.conversation.showSeq(seq), sessionTitle: () => app.manager.summaries.get(app.manager.activeId)?.title ?? null });
  app.changes.on("change", () => app.topbar.updateChanges(app.changes.count, app.changesOpen));
  app.mcpPanel = new McpPanel($("mcp-panel"), { turns, config, toast, changed: (v) => app.topbar.updateMcp(v, app.mcpOpen) });
  app.goalBar = new GoalBar($("goal-bar"), { turns });
  app.catalogues = new Catalogues({ client: app.client });
  app.presetViewer = new PresetViewer({ config, toast, changed: () => app.presets.invalidate(), entry: async (id) => (await app.presets.load())?.presets.find((p) => p.id === id) });
  app.presets = new PresetPicker({ config, toast, view: (id) => app.presetViewer.open(id), selected: (sid, preset) => app.manager.patchSummary(sid, { agentPreset: preset }), loaded: () => app.renderHeader() });
  app.help = new HelpDialog();
  const catalogueSession = () => (subagentOf(app.manager, app.manager.activeId) ? null : app.manager.activeId);
  app.composer = new ComposerView($("composer"), {
    send: (mode, content, attach) => app.send(mode, content, attach),
    finder: new FinderQueries(app.client, () => app.manager.activeId),
    stop: () => app.stop(),
    toast,
    catalogue: () => app.catalogues.get(catalogueSession()),
    refreshCatalogue: () => app.catalogues.refresh(catalogueSession()),
    runCommand: (line) => runCommand(app, line),
    runClient: (name) => runClient(app, name),
    sentTexts: () => sentTexts(app.manager.active?.fold.items ?? []),
  });
  app.steerChips = new SteerChips(app.composer.chips, { turns, toast });
  app.worktreePanel = new WorktreePanel({
    worktrees: app.worktrees,
    workspaces: app.workspaces,
    manager: app.manager,
    toast,
    draft: () => app.composer.input.value,
    onDraft: (listener) => app.composer.input.addEventListener("input", listener),
  });
  buildPanes(app, toast);
  app.notifier = new Notifier({ onFocus: () => app.manager.markSeen(app.manager.activeId) });
  app.emptyState = $("empty-state");
}

/** The Terminal and Files panes and their layout (docs/decisions.md, "Terminal and files"). */
function buildPanes(app, toast) {
  app.terminals = new TerminalsState({ client: app.client });
  app.terminalPane = new TerminalPane($("terminal-pane"), {
    state: app.terminals,
    toast,
    quote: (text) => app.composer.insertText(text),
    hide: () => app.panes.toggle("terminal", false),
  });
  app.fileTree = new FileTreeState({ client: app.client });
  const cwd = () => app.manager.summaries.get(app.manager.activeId)?.cwd ?? null;
  app.filesPane = new FilesPane($("files-pane"), {
    state: app.fileTree,
    toast,
    hide: () => app.panes.toggle("files", false),
    attach: (path, size) => app.composer.attachPath(path, size),
    openPath: (path) => app.actions.reveal(path, { editor: true }),
    canOpen: () => app.canOpenPath(),
    cwd,
  });
  app.panes = new Panes({
    terminal: { root: $("terminal-pane"), pane: app.terminalPane },
    files: { root: $("files-pane"), pane: app.filesPane },
    topActions: $("topbar").querySelector(".top-actions"),
    toggleReview: () => app.toggleChanges(),
  });
}
