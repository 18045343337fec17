"""The method map: each unary method registered once, with every per-method policy in its row.

A method `"<domain>.<verb>"` is served at `POST /api/<domain>.<verb>` and implemented by
`api.<domain>.<snake_case(verb)>(RpcRequest[request]) -> RpcResponse[value]`. Each row is a
typed handle, `Method[Request, Value]`, bound to a constant named after its key
(`session.selectModel` → `SESSION_SELECT_MODEL`): `client.call(SESSION_LIST, ...)` returns
`RpcResponse[ListValue]` (docs/architecture.md, "Method map").
"""

from __future__ import annotations

import re
from dataclasses import KW_ONLY, dataclass
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from contract import (
    automations,
    commands,
    credentials,
    file_tree,
    files,
    finder,
    git,
    goals,
    hooks,
    host,
    jobs,
    llm,
    lsp,
    mcp,
    permissions,
    presets,
    remotes,
    sessions,
    settings,
    skills,
    subagents,
    terminals,
    workspaces,
    worktrees,
)

Req = TypeVar("Req", bound=BaseModel, covariant=True)
Val = TypeVar("Val", bound=BaseModel, covariant=True)

SessionUse = Literal["reads", "changes"]
"""What a method does to the session its request names (`sessionId`): `reads` changes nothing
in it (it may find the session's folder through it), `changes` changes its log, its agent or
what it runs."""


@dataclass(frozen=True)
class Method(Generic[Req, Val]):
    """One row of the map; the policies are keywords (docs/architecture.md, "Method map")."""

    key: str
    request: type[Req]
    value: type[Val]
    _: KW_ONLY
    privileged: bool = False
    """Served only to the local window or loopback hosts, never to a `--trusted-host` name."""
    user_paced: bool = False
    """The answer waits for the person (a folder picker, a command they run): clients exempt
    such calls from the unary timeout."""
    session: SessionUse | None = None
    """Required exactly when the request carries `sessionId` (see `policy_problems`)."""
    subagent_fenced: bool = False
    """On a subagent's session it answers `agent-busy`: people message a child through its
    parent (`subagent.prompt`), and it goes with its parent (docs/architecture.md, "Subagents")."""
    unfenced_because: str = ""
    """Why a method that `changes` a session stays open on a subagent's session."""

    @property
    def domain(self) -> str:
        return self.key.split(".", 1)[0]

    @property
    def attr(self) -> str:
        """The Python attribute implementing it: `selectModel` → `select_model`."""
        verb = self.key.split(".", 1)[1]
        return re.sub(r"(?<!^)(?=[A-Z])", "_", verb).lower()

    @property
    def constant(self) -> str:
        """The name of its handle in this module: `session.selectModel` → `SESSION_SELECT_MODEL`."""
        return "_".join(re.sub(r"(?<!^)(?=[A-Z])", "_", part).upper() for part in self.key.split(".", 1))


AnyMethod = Method[BaseModel, BaseModel]
"""Any row: what the carrier, the schemas and the clients hold when the models do not matter
(a row's models are read-only, so `Method[ListRequest, ListValue]` is one)."""


def policy_problems(m: AnyMethod) -> list[str]:
    """What is wrong with a row's session policy ([] when nothing): a method whose request names
    a session says what it does to it, and one that changes it is fenced or says why not."""
    names_session = "session_id" in m.request.model_fields
    problems = []
    if names_session and m.session is None:
        problems.append(f"{m.key}: its request carries sessionId: say session='reads' or 'changes'")
    if not names_session and (m.session is not None or m.subagent_fenced):
        problems.append(f"{m.key}: its request carries no sessionId: no session policy applies")
    if m.session == "changes" and not m.subagent_fenced and not m.unfenced_because.strip():
        problems.append(f"{m.key}: changes a session: subagent_fenced=True, or unfenced_because='why'")
    if m.unfenced_because and (m.subagent_fenced or m.session != "changes"):
        problems.append(f"{m.key}: unfenced_because is only for a method that changes a session unfenced")
    return problems


_s = sessions
_p = presets
_w = workspaces
_a = subagents
# why a method that changes a session is open to a subagent's session (`unfenced_because`), each
# reason written once
_NEW_SESSION = "it makes a top-level session; an existing id is only checked (`session-conflict`)"
_SIDEBAR_ONLY = "it changes the sidebar's lists, not the session's log or agent"
_HALTS_A_JOB = "a person may halt what any agent left running; the agent is sent nothing"
_TIGHTENS = "a person takes back a grant on any session: it only tightens what runs unasked"
_SETS_PERMISSIONS = "a person sets what any session may run unasked; loosening is privileged"
_PROJECT_WIDE = "the session only locates its project: the servers are the project's, shared by its sessions"


def _puts_back(what: str) -> str:
    """The reason of the three reverts of the Changes view."""
    return f"it puts {what} back, never drives the agent, refuses while it works"


_R = TypeVar("_R", bound=BaseModel)
_V = TypeVar("_V", bound=BaseModel)


def _privileged_change(key: str, request: type[_R], value: type[_V]) -> Method[_R, _V]:
    """The row of a method that changes the session it names and is privileged: fenced on a
    subagent's session (people reach a child through its parent), so nothing that loosens or
    reaches outside the folder can be aimed at a child directly."""
    return Method(key, request, value, privileged=True, session="changes", subagent_fenced=True)


SESSION_LIST = Method("session.list", _s.ListRequest, _s.ListValue)
SESSION_CREATE = Method(
    "session.create",
    _s.CreateRequest,
    _s.CreateValue,
    session="changes",
    unfenced_because=_NEW_SESSION,
)
SESSION_HISTORY = Method("session.history", _s.HistoryRequest, _s.HistoryValue, session="reads")
SESSION_PROMPT = Method(
    "session.prompt", _s.PromptRequest, _s.Accepted, session="changes", subagent_fenced=True
)
SESSION_CANCEL = Method(
    "session.cancel", _s.CancelRequest, _s.Accepted, session="changes", subagent_fenced=True
)
SESSION_MARK_SEEN = Method("session.markSeen", _s.SessionRef, _s.Accepted, session="reads")
"""A window shows the session: its finished turns are read (docs/decisions.md, "Parallel
sessions and attention"); the log is not touched."""
SESSION_RENAME = Method(
    "session.rename", _s.RenameRequest, _s.RenameValue, session="changes", subagent_fenced=True
)
SESSION_FORK = Method("session.fork", _s.ForkRequest, _s.SessionRef, session="reads")
SESSION_SEARCH = Method("session.search", _s.SearchRequest, _s.SearchValue, session="reads")
SESSION_MODELS = Method(
    "session.models", _s.SessionRef, _s.ModelsValue, session="reads", subagent_fenced=True
)
SESSION_SELECT_MODEL = Method(
    "session.selectModel", _s.SelectModelRequest, _s.SelectModelValue, session="changes", subagent_fenced=True
)
SESSION_UPDATE_QUEUE = Method(
    "session.updateQueue", _s.UpdateQueueRequest, _s.Accepted, session="changes", subagent_fenced=True
)
SESSION_ATTACHMENT = Method("session.attachment", _s.AttachmentRequest, _s.AttachmentValue, session="reads")
SESSION_DELETE = _privileged_change("session.delete", _s.SessionRef, _s.SessionDeleted)
HOST_DESCRIBE = Method("host.describe", host.DescribeRequest, host.DescribeValue)
HOST_PICK_DIRECTORY = Method(
    "host.pickDirectory", host.PickDirectoryRequest, host.PickDirectoryValue, privileged=True, user_paced=True
)
HOST_LIST_DIRECTORY = Method("host.listDirectory", host.ListDirectoryRequest, host.DirectoryListing)
HOST_CREATE_DIRECTORY = Method("host.createDirectory", host.CreateDirectoryRequest, host.DirectoryPath)
HOST_OPEN_PATH = Method("host.openPath", host.OpenPathRequest, host.OpenPathValue, privileged=True)
HOST_FOCUS = Method("host.focus", host.FocusRequest, host.FocusValue)
WORKSPACE_LIST = Method("workspace.list", _w.WorkspaceListRequest, _w.WorkspaceListValue)
WORKSPACE_CREATE = Method("workspace.create", _w.WorkspaceCreateRequest, _w.WorkspaceCreateValue)
WORKSPACE_RENAME = Method("workspace.rename", _w.WorkspaceRenameRequest, _w.WorkspaceValue)
WORKSPACE_DELETE = Method("workspace.delete", _w.WorkspaceRef, _w.WorkspaceDeleted)
WORKSPACE_INSERT_SESSION_BEFORE = Method(
    "workspace.insertSessionBefore",
    _w.InsertSessionBeforeRequest,
    _w.WorkspaceValue,
    session="changes",
    unfenced_because=_SIDEBAR_ONLY,
)
WORKSPACE_ARCHIVE_SESSION = Method(
    "workspace.archiveSession",
    _w.ArchiveRequest,
    _w.ArchivedValue,
    session="changes",
    unfenced_because=_SIDEBAR_ONLY,
)
WORKSPACE_UNARCHIVE_SESSION = Method(
    "workspace.unarchiveSession",
    _w.ArchiveRequest,
    _w.ArchivedValue,
    session="changes",
    unfenced_because=_SIDEBAR_ONLY,
)
JOB_LIST = Method("job.list", jobs.JobListRequest, jobs.JobListValue, session="reads")
JOB_STOP = Method(
    "job.stop",
    jobs.JobRef,
    _s.Accepted,
    session="changes",
    unfenced_because=_HALTS_A_JOB,
)
JOB_OUTPUT = Method("job.output", jobs.JobOutputRequest, jobs.JobOutputValue, session="reads")
AGENT_PRESET_LIST = Method("agentPreset.list", _p.PresetListRequest, _p.PresetListValue)
AGENT_PRESET_SELECT = Method(
    "agentPreset.select", _p.PresetSelectRequest, _p.PresetRefValue, session="changes", subagent_fenced=True
)
AGENT_PRESET_READ = Method("agentPreset.read", _p.PresetRequest, _p.PresetReadValue, privileged=True)
AGENT_PRESET_COPY = Method("agentPreset.copy", _p.PresetCopyRequest, _p.PresetRefValue, privileged=True)
AGENT_PRESET_OPEN_DOCUMENT = Method(
    "agentPreset.openDocument", _p.PresetRequest, _p.PresetOpenValue, privileged=True
)
AGENT_PRESET_REMOVE = Method("agentPreset.remove", _p.PresetRequest, _p.PresetRemoved, privileged=True)
SKILL_LIST = Method("skill.list", skills.SkillListRequest, skills.SkillListValue, session="reads")
COMMAND_LIST = Method(
    "command.list",
    commands.CommandListRequest,
    commands.CommandListValue,
    session="reads",
    subagent_fenced=True,
)
COMMAND_EXECUTE = Method(
    "command.execute",
    commands.CommandExecuteRequest,
    commands.CommandExecuteValue,
    user_paced=True,
    session="changes",
    subagent_fenced=True,
)
SETTINGS_DESCRIBE = Method(
    "settings.describe", settings.SettingsDescribeRequest, settings.SettingsDescribeValue, privileged=True
)
SETTINGS_OPEN_DOCUMENT = Method(
    "settings.openDocument", settings.OpenDocumentRequest, settings.Opened, privileged=True
)
SETTINGS_UPDATE = Method(
    "settings.update", settings.UpdateRequest, settings.SettingsNamespaceView, privileged=True
)
SETTINGS_REPLACE = Method(
    "settings.replace", settings.ReplaceRequest, settings.SettingsNamespaceView, privileged=True
)
SETTINGS_MUTATE = Method(
    "settings.mutate", settings.MutateRequest, settings.SettingsNamespaceView, privileged=True
)
SETTINGS_RESET_DOCUMENT = Method(
    "settings.resetDocument", settings.ResetDocumentRequest, settings.ResetDocumentValue, privileged=True
)
CREDENTIALS_DESCRIBE = Method(
    "credentials.describe",
    credentials.CredentialsDescribeRequest,
    credentials.CredentialsDescribeValue,
    privileged=True,
)
CREDENTIALS_SET = Method("credentials.set", credentials.SetRequest, credentials.Done, privileged=True)
CREDENTIALS_UNSET = Method("credentials.unset", credentials.UnsetRequest, credentials.Done, privileged=True)
LLM_PROVIDERS = Method("llm.providers", llm.ProvidersRequest, llm.ProvidersValue)
LLM_MODELS = Method("llm.models", llm.LlmModelsRequest, llm.LlmModelsValue)
LLM_DISCOVER_MODELS = Method(
    "llm.discoverModels", llm.DiscoverModelsRequest, llm.DiscoverModelsValue, privileged=True
)
LLM_LOCAL_MODELS = Method("llm.localModels", llm.LocalModelsRequest, llm.LocalModelsValue)
LLM_DOWNLOAD_MODEL = Method(
    "llm.downloadModel", llm.DownloadModelRequest, llm.DownloadModelValue, privileged=True
)
LLM_PAUSE_DOWNLOAD = Method("llm.pauseDownload", llm.DownloadRequest, llm.DownloadValue, privileged=True)
LLM_RESUME_DOWNLOAD = Method("llm.resumeDownload", llm.DownloadRequest, llm.DownloadValue, privileged=True)
LLM_CANCEL_DOWNLOAD = Method("llm.cancelDownload", llm.DownloadRequest, llm.DownloadValue, privileged=True)
LLM_REMOVE_MODEL = Method("llm.removeModel", llm.RemoveModelRequest, llm.RemoveModelValue, privileged=True)
LLM_DISCOVER_LOCAL = Method(
    "llm.discoverLocal", llm.DiscoverLocalRequest, llm.DiscoverLocalValue, privileged=True
)
PERMISSION_REVOKE = Method(
    "permission.revoke",
    permissions.RevokeRequest,
    permissions.RevokeValue,
    session="changes",
    unfenced_because=_TIGHTENS,
)
PERMISSION_SET = Method(
    "permission.set",
    permissions.PermissionSetRequest,
    permissions.PermissionSetValue,
    privileged=True,
    session="changes",
    unfenced_because=_SETS_PERMISSIONS,
)
FILES_REVERT_TURN = Method(
    "files.revertTurn",
    files.RevertTurnRequest,
    files.RevertTurnValue,
    session="changes",
    unfenced_because=_puts_back("files"),
)
FILES_RESTORE_PREVIEW = Method(
    "files.restorePreview", files.RestorePreviewRequest, files.RestorePreviewValue, session="reads"
)
FILES_SPACE_USED = Method("files.spaceUsed", files.SpaceUsedRequest, files.SpaceUsedValue)
FILES_FREE_SPACE = Method("files.freeSpace", files.FreeSpaceRequest, files.FreeSpaceValue, privileged=True)
# review and context (docs/decisions.md, "Review and context"): read-only, not privileged
FILES_GIT_STATUS = Method("files.gitStatus", files.GitStatusRequest, files.GitStatusValue, session="reads")
# the Changes view (docs/decisions.md, "The Changes view"): a revert puts back the person's own
# earlier content and loosens nothing, so it is not privileged
FILES_SESSION_CHANGES = Method(
    "files.sessionChanges", files.SessionChangesRequest, files.SessionChangesValue, session="reads"
)
FILES_REVERT_FILE = Method(
    "files.revertFile",
    files.RevertFileRequest,
    files.RevertChangeValue,
    session="changes",
    unfenced_because=_puts_back("a file"),
)
FILES_REVERT_HUNK = Method(
    "files.revertHunk",
    files.RevertHunkRequest,
    files.RevertChangeValue,
    session="changes",
    unfenced_because=_puts_back("a hunk"),
)
SUBAGENT_LIST = Method("subagent.list", _a.SubagentListRequest, _a.SubagentListValue)
SUBAGENT_HISTORY = Method("subagent.history", _a.SubagentHistoryRequest, _s.HistoryValue)
SUBAGENT_PROMPT = Method("subagent.prompt", _a.SubagentPromptRequest, _a.SubagentPromptValue)
SUBAGENT_INTERRUPT = Method("subagent.interrupt", _a.SubagentInterruptRequest, _s.Accepted)
# goals (docs/architecture.md, "Goals")
GOAL_CREATE = Method(
    "goal.create", goals.GoalCreateRequest, goals.GoalRefValue, session="changes", subagent_fenced=True
)
GOAL_EDIT = Method(
    "goal.edit", goals.GoalEditRequest, goals.GoalRefValue, session="changes", subagent_fenced=True
)
GOAL_PAUSE = Method(
    "goal.pause", goals.GoalRefRequest, goals.GoalRefValue, session="changes", subagent_fenced=True
)
GOAL_RESUME = Method(
    "goal.resume", goals.GoalRefRequest, goals.GoalRefValue, session="changes", subagent_fenced=True
)
GOAL_COMPLETE = Method(
    "goal.complete", goals.GoalRefRequest, goals.GoalRefValue, session="changes", subagent_fenced=True
)
GOAL_CLEAR = Method(
    "goal.clear", goals.GoalRefRequest, goals.GoalCleared, session="changes", subagent_fenced=True
)
# MCP servers and folder trust (docs/decisions.md, "MCP servers")
WORKSPACE_SET_TRUST = Method("workspace.setTrust", _w.SetTrustRequest, _w.WorkspaceValue, privileged=True)
MCP_LIST = Method("mcp.list", mcp.McpListRequest, mcp.McpListValue, session="reads")
MCP_ADD_EDITOR_SERVERS = Method(
    "mcp.addEditorServers",
    mcp.McpAddEditorServersRequest,
    mcp.McpListValue,
    privileged=True,
    session="changes",
    unfenced_because=_PROJECT_WIDE,
)
MCP_RESTART = Method(
    "mcp.restart",
    mcp.McpServerRef,
    mcp.McpServerValue,
    session="changes",
    unfenced_because=_PROJECT_WIDE,
)
MCP_SET_ENABLED = Method(
    "mcp.setEnabled",
    mcp.McpSetEnabledRequest,
    mcp.McpServerValue,
    privileged=True,
    session="changes",
    unfenced_because=_PROJECT_WIDE,
)
MCP_APPROVE = Method("mcp.approve", mcp.McpApproveRequest, mcp.McpApproved, privileged=True)
MCP_OPEN_USER_FILE = Method("mcp.openUserFile", mcp.McpOpenUserFileRequest, mcp.McpOpened, privileged=True)
HOOKS_APPROVE = Method("hooks.approve", hooks.HooksApproveRequest, hooks.HooksApproved, privileged=True)
# import in the app (docs/decisions.md, "Import in the app"): runs nothing, loosens nothing
SESSION_IMPORT = Method("session.import", _s.ImportRequest, _s.ImportValue)
# an endpoint's key slot follows its name (docs/decisions.md, "Settings in the person's words")
CREDENTIALS_MOVE = Method("credentials.move", credentials.MoveRequest, credentials.Done, privileged=True)
# `@` in the composer (docs/architecture.md, "The @ finder"): read-only, not privileged
FINDER_FIND = Method("finder.find", finder.FindRequest, finder.FindValue, session="reads")
# rewind in place (docs/decisions.md, "Rewind in place"): changes what the agent is sent next
SESSION_REWIND = Method(
    "session.rewind", _s.RewindRequest, _s.RewindValue, session="changes", subagent_fenced=True
)
# the language servers Settings lists (docs/decisions.md, "Language servers"): reads only
LSP_STATUS = Method("lsp.status", lsp.LspStatusRequest, lsp.LspStatusValue)
# remote hosts over SSH (docs/decisions.md, "Remote hosts"): privileged where they change
# anything — they run ssh as the person, write known_hosts and start a server elsewhere
_r = remotes
REMOTE_LIST = Method("remote.list", _r.RemoteListRequest, _r.RemoteListValue)
REMOTE_ADD = Method("remote.add", _r.RemoteAddRequest, _r.RemoteAddValue, privileged=True)
REMOTE_UPDATE = Method("remote.update", _r.RemoteUpdateRequest, _r.RemoteHostView, privileged=True)
REMOTE_REMOVE = Method("remote.remove", _r.RemoteRef, _r.RemoteDone, privileged=True)
REMOTE_TEST = Method("remote.test", _r.RemoteRef, _r.RemoteTestValue, privileged=True, user_paced=True)
REMOTE_CONNECT = Method(
    "remote.connect", _r.RemoteRef, _r.RemoteConnectValue, privileged=True, user_paced=True
)
REMOTE_DISCONNECT = Method("remote.disconnect", _r.RemoteRef, _r.RemoteDone, privileged=True)
REMOTE_TRUST_HOST_KEY = Method("remote.trustHostKey", _r.TrustHostKeyRequest, _r.RemoteDone, privileged=True)

# worktree sessions (docs/decisions.md, "Worktree sessions"): what changes the person's checkout
# or branches, or names a command or folder the host runs or writes in, is privileged; reads are
# not
_wt = worktrees
WORKTREE_LIST = Method("worktree.list", _wt.WorktreeListRequest, _wt.WorktreeListValue)
WORKTREE_OPTIONS = Method("worktree.options", _wt.WorktreeOptionsRequest, _wt.WorktreeOptionsValue)
WORKTREE_SPACE_USED = Method("worktree.spaceUsed", _wt.WorktreeSpaceRequest, _wt.WorktreeSpaceValue)
WORKTREE_APPLY = _privileged_change("worktree.apply", _wt.WorktreeSessionRequest, _wt.WorktreeApplyValue)
WORKTREE_MERGE = _privileged_change("worktree.merge", _wt.WorktreeSessionRequest, _wt.WorktreeMergeValue)
WORKTREE_REMOVE = _privileged_change("worktree.remove", _wt.WorktreeRemoveRequest, _wt.WorktreeRemoveValue)
WORKTREE_ADOPT = _privileged_change("worktree.adopt", _wt.WorktreeAdoptRequest, _wt.WorktreeState)
WORKTREE_CONFIGURE = Method(
    "worktree.configure", _wt.WorktreeConfigureRequest, _wt.WorktreeSettingsView, privileged=True
)
# the Files pane (docs/decisions.md, "Terminal and files"): read-only inside the session's folder,
# not privileged (like finder.find)
FILES_TREE = Method("files.tree", file_tree.TreeRequest, file_tree.TreeValue, session="reads")
FILES_READ = Method("files.read", file_tree.ReadRequest, file_tree.ReadValue, session="reads")
# the person's own shell (docs/decisions.md, "Terminal and files"): it runs outside the sandbox
# with the person's rights, so every method is privileged
_t = terminals
TERMINAL_OPEN = Method(
    "terminal.open", _t.TerminalOpenRequest, _t.TerminalOpenValue, privileged=True, session="reads"
)
TERMINAL_INPUT = Method("terminal.input", _t.TerminalInputRequest, _t.TerminalDone, privileged=True)
TERMINAL_RESIZE = Method("terminal.resize", _t.TerminalResizeRequest, _t.TerminalDone, privileged=True)
TERMINAL_CLOSE = Method("terminal.close", _t.TerminalRef, _t.TerminalDone, privileged=True)
TERMINAL_LIST = Method(
    "terminal.list", _t.TerminalListRequest, _t.TerminalListValue, privileged=True, session="reads"
)
TERMINAL_ATTACH = Method("terminal.attach", _t.TerminalAttachRequest, _t.TerminalAttachValue, privileged=True)
TERMINAL_ACK = Method("terminal.ack", _t.TerminalAckRequest, _t.TerminalDone, privileged=True)

# automations (docs/decisions/automations.md): what makes, changes or starts a run — a prompt that
# runs unattended later — or removes a run's worktree is privileged; reading the inbox is not
_au = automations
AUTOMATION_CREATE = Method(
    "automation.create", _au.AutomationCreateRequest, _au.AutomationCreated, privileged=True
)
AUTOMATION_UPDATE = Method(
    "automation.update", _au.AutomationUpdateRequest, _au.AutomationDone, privileged=True
)
AUTOMATION_DELETE = Method("automation.delete", _au.AutomationRef, _au.AutomationDone, privileged=True)
AUTOMATION_LIST = Method("automation.list", _au.AutomationListRequest, _au.AutomationListValue)
AUTOMATION_RUN_NOW = Method(
    "automation.runNow", _au.AutomationRef, _au.AutomationRunNowValue, privileged=True
)
AUTOMATION_RUNS = Method("automation.runs", _au.AutomationRunsRequest, _au.AutomationRunsValue)
AUTOMATION_MARK_READ = Method("automation.markRead", _au.RunRef, _au.AutomationDone)
AUTOMATION_ARCHIVE_RUN = Method("automation.archiveRun", _au.RunRef, _au.AutomationDone)
AUTOMATION_DISCARD_RUN = Method("automation.discardRun", _au.RunRef, _au.AutomationDone, privileged=True)
# the review pane (docs/decisions/review-pane.md): git on the person's repository, in the
# sandbox with only the git directory writable (a discard writes the files through the undo
# journal); open on a subagent's session like files.revertHunk: none of them drives the agent
_g = git
GIT_STATUS = Method("git.status", _g.ReviewStatusRequest, _g.ReviewStatusValue, session="reads")
GIT_STAGE = Method(
    "git.stage",
    _g.ReviewChangeRequest,
    _g.ReviewChangeValue,
    session="changes",
    unfenced_because="it changes the repository's index, never drives the agent",
)
GIT_UNSTAGE = Method(
    "git.unstage",
    _g.ReviewChangeRequest,
    _g.ReviewChangeValue,
    session="changes",
    unfenced_because="it changes the repository's index, never drives the agent",
)
GIT_DISCARD = Method(
    "git.discard",
    _g.ReviewChangeRequest,
    _g.DiscardValue,
    session="changes",
    unfenced_because="it puts files back as the index holds them, never drives the agent",
)
GIT_UNDO_DISCARD = Method(
    "git.undoDiscard",
    _g.UndoDiscardRequest,
    _g.ReviewChangeValue,
    session="changes",
    unfenced_because="it puts back what a discard replaced, never drives the agent",
)
# end of the review pane's block
# commit, log, push, pull request (docs/decisions/commit-and-push.md): drafting and reading change
# nothing; a commit changes the person's branch and push / pullRequest use their credentials
# outside the sandbox, so those three are privileged
GIT_DRAFT_MESSAGE = Method("git.draftMessage", _g.GitSessionRequest, _g.DraftMessageValue, session="reads")
GIT_COMMIT = Method(
    "git.commit",
    _g.CommitRequest,
    _g.CommitValue,
    privileged=True,
    session="reads",
)
GIT_LOG = Method("git.log", _g.LogRequest, _g.LogValue, session="reads")
GIT_PUSH = Method(
    "git.push", _g.GitSessionRequest, _g.PushValue, privileged=True, user_paced=True, session="reads"
)
GIT_PULL_REQUEST = Method(
    "git.pullRequest",
    _g.PullRequestRequest,
    _g.PullRequestValue,
    privileged=True,
    user_paced=True,
    session="reads",
)


def _collect(namespace: dict[str, Any]) -> dict[str, AnyMethod]:
    """Every row of this module in order, by key; a handle must be named after its key."""
    found: dict[str, AnyMethod] = {}
    for name, value in namespace.items():
        if isinstance(value, Method):
            if name != value.constant:
                raise TypeError(f"the handle of {value.key} must be named {value.constant}, not {name}")
            found[value.key] = value
    return found


METHODS: dict[str, AnyMethod] = _collect(globals())
