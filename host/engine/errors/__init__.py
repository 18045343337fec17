"""The engine's business failures: one exception per RpcError code, each carrying its details.

Raise them anywhere in the engine; `host/api/registry.py` answers them as typed RpcErrors in one
place, and the CLI prints their message. A new code is a line in `contract.errors.ERROR_DETAILS`
plus a class in this package's module for its domain, named in the imports and `__all__` below
(`tests/api/test_registry.py` checks that every business code has exactly one). Callers import
from `host.engine.errors` only, never from a domain module.
"""

from __future__ import annotations

from host.engine.errors.agents import (
    AgentPresetConflict,
    AgentPresetInvalid,
    AgentPresetLocked,
    AgentPresetNotFound,
    AgentPresetReadOnly,
    LocalModelNotFound,
    ModelDiscoveryFailed,
    ModelDownloadNotFound,
    ModelDownloadRefused,
    ModelUnavailable,
)
from host.engine.errors.base import EngineError
from host.engine.errors.changes import (
    RevertConflict,
    RevertUnavailable,
    RewindUnavailable,
)
from host.engine.errors.commits import (
    AuthFailed,
    GitFailed,
    GitIdentityMissing,
    NoRemote,
    NothingStaged,
    PushRejected,
)
from host.engine.errors.mcp import (
    McpServerChanged,
    McpServerNotFound,
)
from host.engine.errors.remotes import (
    HostKeyChanged,
    HostKeyUnknown,
    RemoteConnectFailed,
    RemoteHostNotFound,
    RemoteUnavailable,
)
from host.engine.errors.review import RepositoryUntrusted, StaleDiff
from host.engine.errors.sessions import (
    AgentBusy,
    ArchiveInvalid,
    AttachmentError,
    ForkUnavailable,
    JobNotFound,
    QueueItemNotFound,
    SessionAlreadyHere,
    SessionConflict,
    SessionNotFound,
    SteerUnavailable,
    TitleInvalid,
)
from host.engine.errors.settings import (
    CredentialRejected,
    InvalidTimeZone,
    PrivilegeRequired,
    SettingsConflict,
    SettingsNotExposed,
    SettingsRejected,
)
from host.engine.errors.subagents import (
    SubagentCatalogDiagnostic,
    SubagentDeliveryUnavailable,
    SubagentNotFound,
    SubagentNotResumable,
    SubagentParentUnavailable,
    SubagentUnauthorized,
)
from host.engine.errors.terminals import (
    NotAFile,
    OutsideFolder,
    TerminalNotFound,
    TooLarge,
)
from host.engine.errors.workspaces import (
    DirectoryCreateFailed,
    DirectoryExists,
    DirectoryPickerUnavailable,
    DirectoryUnreadable,
    HostActionFailed,
    WorkspaceAttachFailed,
    WorkspaceInvalidPath,
    WorkspaceMoveInvalid,
    WorkspaceNameConflict,
    WorkspaceNotFound,
)
from host.engine.errors.worktrees import (
    NotARepository,
    WorktreeConflict,
    WorktreeDirty,
    WorktreeFailed,
    WorktreeUnmerged,
    WorktreeUntrusted,
)

__all__ = [
    "AgentBusy",
    "AgentPresetConflict",
    "AgentPresetInvalid",
    "AgentPresetLocked",
    "AgentPresetNotFound",
    "AgentPresetReadOnly",
    "ArchiveInvalid",
    "AttachmentError",
    "AuthFailed",
    "CredentialRejected",
    "DirectoryCreateFailed",
    "DirectoryExists",
    "DirectoryPickerUnavailable",
    "DirectoryUnreadable",
    "EngineError",
    "ForkUnavailable",
    "GitFailed",
    "GitIdentityMissing",
    "HostActionFailed",
    "HostKeyChanged",
    "HostKeyUnknown",
    "InvalidTimeZone",
    "JobNotFound",
    "LocalModelNotFound",
    "McpServerChanged",
    "McpServerNotFound",
    "ModelDiscoveryFailed",
    "ModelDownloadNotFound",
    "ModelDownloadRefused",
    "ModelUnavailable",
    "NoRemote",
    "NotAFile",
    "NotARepository",
    "NothingStaged",
    "OutsideFolder",
    "PrivilegeRequired",
    "PushRejected",
    "QueueItemNotFound",
    "RemoteConnectFailed",
    "RemoteHostNotFound",
    "RemoteUnavailable",
    # the review pane
    "RepositoryUntrusted",
    "RevertConflict",
    "RevertUnavailable",
    "RewindUnavailable",
    "SessionAlreadyHere",
    "SessionConflict",
    "SessionNotFound",
    "SettingsConflict",
    "SettingsNotExposed",
    "SettingsRejected",
    "StaleDiff",
    "SteerUnavailable",
    "SubagentCatalogDiagnostic",
    "SubagentDeliveryUnavailable",
    "SubagentNotFound",
    "SubagentNotResumable",
    "SubagentParentUnavailable",
    "SubagentUnauthorized",
    "TerminalNotFound",
    "TitleInvalid",
    "TooLarge",
    "WorkspaceAttachFailed",
    "WorkspaceInvalidPath",
    "WorkspaceMoveInvalid",
    "WorkspaceNameConflict",
    "WorkspaceNotFound",
    "WorktreeConflict",
    "WorktreeDirty",
    "WorktreeFailed",
    "WorktreeUnmerged",
    "WorktreeUntrusted",
]
