"""The method map: each unary method registered once; carriers, clients and schemas derive from it.

A method `"<domain>.<verb>"` is served at `POST /api/<domain>.<verb>` and implemented by
`api.<domain>.<snake_case(verb)>(RpcRequest[request]) -> RpcResponse[value]`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel

from contract import (
    commands,
    credentials,
    files,
    finder,
    goals,
    hooks,
    host,
    jobs,
    llm,
    mcp,
    permissions,
    presets,
    sessions,
    settings,
    skills,
    subagents,
    workspaces,
)


@dataclass(frozen=True)
class Method:
    key: str
    request: type[BaseModel]
    value: type[BaseModel]
    version: int = 1
    privileged: bool = False
    """Privileged methods are served only to the local window or loopback hosts
    (docs/architecture.md, "Method map")."""
    user_paced: bool = False
    """The answer waits for the person (a folder picker, a command they run): clients exempt
    such calls from the unary timeout."""

    @property
    def domain(self) -> str:
        return self.key.split(".", 1)[0]

    @property
    def attr(self) -> str:
        """The Python attribute implementing it: `selectModel` → `select_model`."""
        verb = self.key.split(".", 1)[1]
        return re.sub(r"(?<!^)(?=[A-Z])", "_", verb).lower()


_s = sessions
_p = presets
_w = workspaces
_a = subagents
_METHODS = (
    Method("session.list", _s.ListRequest, _s.ListValue),
    Method("session.create", _s.CreateRequest, _s.CreateValue),
    Method("session.history", _s.HistoryRequest, _s.HistoryValue),
    Method("session.prompt", _s.PromptRequest, _s.Accepted),
    Method("session.cancel", _s.CancelRequest, _s.Accepted),
    Method("session.rename", _s.RenameRequest, _s.RenameValue),
    Method("session.fork", _s.ForkRequest, _s.SessionRef),
    Method("session.search", _s.SearchRequest, _s.SearchValue),
    Method("session.models", _s.SessionRef, _s.ModelsValue),
    Method("session.selectModel", _s.SelectModelRequest, _s.SelectModelValue),
    Method("session.updateQueue", _s.UpdateQueueRequest, _s.Accepted),
    Method("session.attachment", _s.AttachmentRequest, _s.AttachmentValue),
    Method("session.delete", _s.SessionRef, _s.SessionDeleted, 2, True),
    Method("host.describe", host.DescribeRequest, host.DescribeValue),
    Method("host.pickDirectory", host.PickDirectoryRequest, host.PickDirectoryValue, 2, True, True),
    Method("host.listDirectory", host.ListDirectoryRequest, host.DirectoryListing, 2),
    Method("host.createDirectory", host.CreateDirectoryRequest, host.DirectoryPath, 2),
    Method("host.openPath", host.OpenPathRequest, host.OpenPathValue, 2, True),
    Method("workspace.list", _w.WorkspaceListRequest, _w.WorkspaceListValue, 2),
    Method("workspace.create", _w.WorkspaceCreateRequest, _w.WorkspaceCreateValue, 2),
    Method("workspace.rename", _w.WorkspaceRenameRequest, _w.WorkspaceValue, 2),
    Method("workspace.delete", _w.WorkspaceRef, _w.WorkspaceDeleted, 2),
    Method("workspace.insertSessionBefore", _w.InsertSessionBeforeRequest, _w.WorkspaceValue, 2),
    Method("workspace.archiveSession", _w.ArchiveRequest, _w.ArchivedValue, 2),
    Method("workspace.unarchiveSession", _w.ArchiveRequest, _w.ArchivedValue, 2),
    Method("job.list", jobs.JobListRequest, jobs.JobListValue, 2),
    Method("job.stop", jobs.JobRef, _s.Accepted, 2),
    Method("job.output", jobs.JobOutputRequest, jobs.JobOutputValue, 2),
    Method("agentPreset.list", _p.PresetListRequest, _p.PresetListValue, 2),
    Method("agentPreset.select", _p.PresetSelectRequest, _p.PresetRefValue, 2),
    Method("agentPreset.read", _p.PresetRequest, _p.PresetReadValue, 2, True),
    Method("agentPreset.copy", _p.PresetCopyRequest, _p.PresetRefValue, 2, True),
    Method("agentPreset.openDocument", _p.PresetRequest, _p.PresetOpenValue, 2, True),
    Method("agentPreset.remove", _p.PresetRequest, _p.PresetRemoved, 2, True),
    Method("skill.list", skills.SkillListRequest, skills.SkillListValue, 2),
    Method("command.list", commands.CommandListRequest, commands.CommandListValue, 2),
    Method("command.execute", commands.CommandExecuteRequest, commands.CommandExecuteValue, 2, False, True),
    Method("settings.describe", settings.SettingsDescribeRequest, settings.SettingsDescribeValue, 2, True),
    Method("settings.openDocument", settings.OpenDocumentRequest, settings.Opened, 2, True),
    Method("settings.update", settings.UpdateRequest, settings.SettingsNamespaceView, 2, True),
    Method("settings.replace", settings.ReplaceRequest, settings.SettingsNamespaceView, 2, True),
    Method("settings.mutate", settings.MutateRequest, settings.SettingsNamespaceView, 2, True),
    Method("settings.resetDocument", settings.ResetDocumentRequest, settings.ResetDocumentValue, 2, True),
    Method(
        "credentials.describe",
        credentials.CredentialsDescribeRequest,
        credentials.CredentialsDescribeValue,
        2,
        True,
    ),
    Method("credentials.set", credentials.SetRequest, credentials.Done, 2, True),
    Method("credentials.unset", credentials.UnsetRequest, credentials.Done, 2, True),
    Method("llm.providers", llm.ProvidersRequest, llm.ProvidersValue, 2),
    Method("llm.models", llm.LlmModelsRequest, llm.LlmModelsValue, 2),
    Method("llm.discoverModels", llm.DiscoverModelsRequest, llm.DiscoverModelsValue, 2, True),
    Method("llm.localModels", llm.LocalModelsRequest, llm.LocalModelsValue, 1),
    Method("llm.downloadModel", llm.DownloadModelRequest, llm.DownloadModelValue, 1, True),
    Method("llm.pauseDownload", llm.DownloadRequest, llm.DownloadValue, 1, True),
    Method("llm.resumeDownload", llm.DownloadRequest, llm.DownloadValue, 1, True),
    Method("llm.cancelDownload", llm.DownloadRequest, llm.DownloadValue, 1, True),
    Method("llm.removeModel", llm.RemoveModelRequest, llm.RemoveModelValue, 1, True),
    Method("llm.discoverLocal", llm.DiscoverLocalRequest, llm.DiscoverLocalValue, 1, True),
    Method("permission.revoke", permissions.RevokeRequest, permissions.RevokeValue, 2),
    Method("permission.set", permissions.PermissionSetRequest, permissions.PermissionSetValue, 2, True),
    Method("files.revertTurn", files.RevertTurnRequest, files.RevertTurnValue, 2),
    Method("files.restorePreview", files.RestorePreviewRequest, files.RestorePreviewValue, 2),
    Method("files.spaceUsed", files.SpaceUsedRequest, files.SpaceUsedValue, 2),
    Method("files.freeSpace", files.FreeSpaceRequest, files.FreeSpaceValue, 2, True),
    # review and context (docs/decisions.md, "Review and context"): read-only, not privileged
    Method("files.gitStatus", files.GitStatusRequest, files.GitStatusValue, 3),
    Method("subagent.list", _a.SubagentListRequest, _a.SubagentListValue, 3),
    Method("subagent.history", _a.SubagentHistoryRequest, _s.HistoryValue, 3),
    Method("subagent.prompt", _a.SubagentPromptRequest, _a.SubagentPromptValue, 3),
    Method("subagent.interrupt", _a.SubagentInterruptRequest, _s.Accepted, 3),
    # goals (docs/architecture.md, "Goals")
    Method("goal.create", goals.GoalCreateRequest, goals.GoalRefValue, 3),
    Method("goal.edit", goals.GoalEditRequest, goals.GoalRefValue, 3),
    Method("goal.pause", goals.GoalRefRequest, goals.GoalRefValue, 3),
    Method("goal.resume", goals.GoalRefRequest, goals.GoalRefValue, 3),
    Method("goal.complete", goals.GoalRefRequest, goals.GoalRefValue, 3),
    Method("goal.clear", goals.GoalRefRequest, goals.GoalCleared, 3),
    # MCP servers and folder trust (docs/decisions.md, "MCP servers")
    Method("workspace.setTrust", _w.SetTrustRequest, _w.WorkspaceValue, 3, True),
    Method("mcp.list", mcp.McpListRequest, mcp.McpListValue, 3),
    Method("mcp.addEditorServers", mcp.McpAddEditorServersRequest, mcp.McpListValue, 3, True),
    Method("mcp.restart", mcp.McpServerRef, mcp.McpServerValue, 3),
    Method("mcp.setEnabled", mcp.McpSetEnabledRequest, mcp.McpServerValue, 3, True),
    Method("mcp.approve", mcp.McpApproveRequest, mcp.McpApproved, 3, True),
    Method("mcp.openUserFile", mcp.McpOpenUserFileRequest, mcp.McpOpened, 3, True),
    Method("hooks.approve", hooks.HooksApproveRequest, hooks.HooksApproved, 3, True),
    # `@` in the composer (docs/architecture.md, "The @ finder"): read-only, not privileged
    Method("finder.find", finder.FindRequest, finder.FindValue, 3),
)

METHODS: dict[str, Method] = {m.key: m for m in _METHODS}
