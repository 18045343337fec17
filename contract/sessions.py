"""The `session.*` domain: each method's request payload and response value, once."""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any, Literal, Union

from pydantic import Field, SerializerFunctionWrapHandler, field_validator, model_serializer, model_validator

from contract._base import WireModel
from contract.content import AttachmentRef, MediaType
from contract.filechange import FileConflict, RestoredFile
from contract.host import is_fully_qualified
from contract.llm import ModelCatalogFailure, ModelProviderGroup
from contract.paths import HostPath
from contract.remotes import HostId
from contract.views import HistoryEntry
from contract.worktrees import WorktreeSpec, WorktreeState

SessionId = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:-]+$")]

SessionOrigin = Literal["subagent", "acp"]
ORIGINS: frozenset[str] = frozenset({"subagent", "acp"})

MAX_SEQ = 2**63 - 1
"""Seqs are stored as SQLite integers (64 bits): a larger one is a bad request, not a crash."""


class Projections(WireModel):
    """A projection baseline: `values` by key as of the event `asOfSeq` (-1: an empty log, or a
    cached value whose seq is not known). A key absent from `values` is not mounted there."""

    as_of_seq: int = Field(ge=-1)
    values: dict[str, Any]


AttentionState = Literal["running", "waiting", "needs-you", "failed", "done-unread", "idle"]


class Attention(WireModel):
    """What a session asks of the person (docs/decisions.md, "Parallel sessions and attention")."""

    state: AttentionState
    pending: int = Field(default=0, ge=0, description="approvals and questions waiting (needs-you)")
    ahead: int | None = Field(default=None, ge=0, description="turns before this one in line (waiting)")


class SessionSummary(WireModel):
    session_id: SessionId
    updated_at: int = Field(ge=0, description="ms since epoch of the last real activity")
    running: bool
    blank: bool
    title: str | None = None
    parent_session_id: str | None = None
    cwd: str | None = None
    agent_preset: str | None = None
    origin: SessionOrigin | None = None
    """`subagent`: a child a `task` call started (its parent is `parentSessionId`); absent for a
    session a person started or forked."""
    projections: Projections | None = None
    """The row's projection baseline (`title`, and `goal` for an attached session with goals);
    absent when there is nothing to say. `title` above mirrors `values.title`."""
    attention: Attention | None = None
    """Absent: `idle`. Changes arrive as `host/session-attention` frames."""
    worktree: WorktreeState | None = None
    """The git worktree the session works in (its branch, ahead/behind of its base, uncommitted
    changes); absent (null) for a session in the person's own checkout (docs/decisions.md,
    "Worktree sessions")."""
    host_id: str | None = None
    """The remote host the session lives on (docs/decisions.md, "Remote hosts"); null: this one."""

    @model_serializer(mode="wrap")
    def _keep_host(self, handler: SerializerFunctionWrapHandler) -> Any:
        """`hostId: null` names this host, `worktree: null` a session in the person's own checkout:
        never dropped by `exclude_none` (issues 43 and 41's wire)."""
        data = handler(self)
        if isinstance(data, dict):
            data.setdefault("hostId", None)
            data.setdefault("worktree", None)
        return data


class SessionRef(WireModel):
    session_id: SessionId


# session.list
class ListRequest(WireModel):
    cursor: str | None = Field(
        default=None,
        description="accepted for compatibility and ignored: the list is never paged (docs/decisions.md)",
    )


class ListValue(WireModel):
    items: list[SessionSummary]


# session.create
class CreateRequest(WireModel):
    """`workspaceId` puts the session in that workspace (its cwd = the workspace path); `cwd`
    alone leaves it Ungrouped; neither = the host's cwd. Both at once is a bad request."""

    workspace_id: str | None = Field(default=None, min_length=1, max_length=200)
    cwd: HostPath | None = Field(default=None, min_length=1)
    session_id: SessionId | None = None
    agent_preset: str | None = None
    origin: Literal["acp"] | None = Field(
        default=None, description="`acp`: an editor drives the session over ACP (its sidebar row says so)"
    )
    worktree: WorktreeSpec | None = Field(
        default=None,
        description="work in a git worktree of the folder's repository (`not-a-repository` outside one)",
    )
    host_id: HostId | None = Field(
        default=None,
        description="a remote host's id (remote.list): the call is made there; absent: this host",
    )

    @field_validator("cwd")
    @classmethod
    def _absolute(cls, v: str | None) -> str | None:
        if v is not None and not is_fully_qualified(v) and not v.startswith("~"):
            raise ValueError("cwd must be an absolute path (or start with ~)")
        return v

    @model_validator(mode="after")
    def _one_place(self) -> CreateRequest:
        if self.workspace_id is not None and self.cwd is not None:
            raise ValueError("send workspaceId or cwd, not both")
        return self


class CreateValue(WireModel):
    session_id: SessionId
    agent_preset: str | None = None
    """The preset the session runs (the default when the request named none)."""


# session.history
class HistoryRequest(WireModel):
    session_id: SessionId
    before_seq: int | None = Field(default=None, ge=0, le=MAX_SEQ)
    max_messages: int = Field(default=50, gt=0, le=10_000)


class HistoryValue(WireModel):
    events: list[HistoryEntry]
    has_more: bool
    projections: Projections | None = None


# session.prompt
class TextInput(WireModel):
    type: Literal["text"] = "text"
    text: str


class ImageInput(WireModel):
    type: Literal["image"] = "image"
    media_type: MediaType
    data: str = Field(description="base64")
    name: str | None = None


class ReviewCommentInput(WireModel):
    """A comment on lines of a diff in the review pane (docs/decisions/review-pane.md): the model
    reads it as text naming the file and the lines with the excerpt; clients show a chip that
    links back to the lines."""

    type: Literal["review-comment"] = "review-comment"
    path: str = Field(min_length=1, max_length=4096)
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    side: Literal["new", "old"]
    body: str = Field(min_length=1, max_length=20_000)
    excerpt: str = Field(default="", max_length=100_000)

    @model_validator(mode="after")
    def _ordered(self) -> ReviewCommentInput:
        if self.end_line < self.start_line:
            raise ValueError("endLine comes before startLine")
        return self


PromptContent = Annotated[Union[TextInput, ImageInput, ReviewCommentInput], Field(discriminator="type")]

MAX_ATTACHMENTS = 20


class AttachInput(WireModel):
    """A file or folder of the session's folder to send with the prompt: a file's content
    (cut at `finder.find`'s `attachCapBytes`) or a folder's listing, as a text part the model
    reads; or an MCP resource (`server` and `uri`), read at send time under the same cap
    (docs/architecture.md, "The @ finder")."""

    path: str | None = Field(default=None, min_length=1, max_length=4096)
    server: str | None = Field(default=None, min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")
    uri: str | None = Field(default=None, min_length=1, max_length=4096)

    @model_validator(mode="after")
    def _one_thing(self) -> AttachInput:
        if (self.path is None) == (self.server is None and self.uri is None):
            raise ValueError("send a path, or a server and a uri")
        if (self.server is None) != (self.uri is None):
            raise ValueError("a resource needs both server and uri")
        return self


class PromptRequest(WireModel):
    session_id: SessionId
    mode: Literal["queue", "steer"]
    content: list[PromptContent] = Field(min_length=1)
    client_time_zone: str | None = None
    attach: list[AttachInput] = Field(default_factory=list, max_length=MAX_ATTACHMENTS)
    """Files and folders of the session's folder sent with the prompt (`@` in the composer)."""


class Accepted(WireModel):
    accepted: Literal[True] = True


# session.cancel
class CancelRequest(WireModel):
    session_id: SessionId
    clear_queue: bool = Field(
        default=False,
        description="also drop the queued and steering input (a plain cancel keeps it: the next item starts)",
    )


# session.rename
class RenameRequest(WireModel):
    session_id: SessionId
    title: str = Field(max_length=1000)


class RenameValue(WireModel):
    title: str
    seq: int


# session.fork
class ForkRequest(WireModel):
    session_id: SessionId
    at_seq: int | None = Field(default=None, ge=0, le=MAX_SEQ)
    restore_files: bool = Field(
        default=False,
        description="also put the files later turns changed back as the fork's last turn left them"
        " (`files.restorePreview` shows what; refused with `revert-conflict`)",
    )


# session.rewind (docs/decisions.md, "Rewind in place")
class RewindRequest(WireModel):
    """Rewind the session in place to the user message at `atSeq`: it and every turn after it leave
    what the model is sent (they stay in the history, folded and marked), and with `restoreFiles`
    the files are put back as they were before that message (`files.restorePreview` with `atSeq`
    shows what)."""

    session_id: SessionId
    at_seq: int = Field(ge=0, le=MAX_SEQ)
    restore_files: bool = False


class RewindValue(WireModel):
    text: str
    """The rewound message's text, for the composer (attached files left out)."""
    restored_files: list[RestoredFile]
    conflicts: list[FileConflict]
    """Files that kept their content because they changed since (as a fork's restore names them):
    then no file was put back, all or nothing; the conversation is rewound all the same."""


# session.delete
class SessionDeleted(WireModel):
    deleted: Literal[True] = True


# session.search
class SearchRequest(WireModel):
    """Every matching message, a page at a time (docs/decisions.md, "Store"): across sessions
    newest first, or with `sessionId` within that session in reading order (with `total`)."""

    query: str
    session_id: SessionId | None = None
    cursor: str | None = Field(default=None, max_length=40, pattern=r"^[0-9]+$")
    """`cursor` of the previous page: the next page starts after it."""
    limit: int = Field(default=20, ge=1, le=20)

    @field_validator("query")
    @classmethod
    def _trimmed(cls, v: str) -> str:
        v = v.strip()
        if not 1 <= len(v) <= 500:
            raise ValueError("query must be 1..500 characters after trimming")
        if "\x00" in v:
            raise ValueError("query must not contain NUL")
        return v


class SearchHit(WireModel):
    session_id: SessionId
    snippet: str = Field(max_length=240)
    seq: int = Field(ge=0, description="the event (a user or assistant message) the snippet is from")


class SearchValue(WireModel):
    items: list[SearchHit] = Field(max_length=20)
    has_more: bool
    cursor: str | None = None
    """Pass it back for the next page (present when `hasMore`)."""
    total: int | None = Field(default=None, ge=0)
    """With `sessionId`: how many of the session's messages match (the "n of N")."""


# session.models / session.selectModel
class ModelSelection(WireModel):
    provider: str = Field(min_length=1)
    model: str = Field(min_length=1)
    reasoning_effort: str | None = None


class ModelsValue(WireModel):
    """The current selection and the catalogue of every route (advice, not an allowlist)."""

    current: ModelSelection
    routable: bool
    groups: list[ModelProviderGroup]
    failures: list[ModelCatalogFailure]


class SelectModelRequest(WireModel):
    session_id: SessionId
    provider: str = Field(min_length=1)
    model: str = Field(min_length=1)
    reasoning_effort: str | None = None


class SelectModelValue(WireModel):
    selected: ModelSelection


# session.updateQueue
class EditAction(WireModel):
    kind: Literal["edit"] = "edit"
    content: list[PromptContent] = Field(min_length=1)
    attach: list[AttachInput] = Field(default_factory=list, max_length=MAX_ATTACHMENTS)
    """Files and folders to send with the edited message (read now), as `session.prompt`'s: a
    queued message's attached files stay attachments through an edit."""


class RemoveAction(WireModel):
    kind: Literal["remove"] = "remove"


class SteerAction(WireModel):
    kind: Literal["steer"] = "steer"


QueueAction = Annotated[Union[EditAction, RemoveAction, SteerAction], Field(discriminator="kind")]


class UpdateQueueRequest(WireModel):
    session_id: SessionId
    item_id: str = Field(min_length=1)
    action: QueueAction


# session.attachment
class AttachmentRequest(WireModel):
    session_id: SessionId
    attachment_id: str = Field(min_length=1)


class AttachmentValue(WireModel):
    attachment: AttachmentRef
    data: str = Field(description="base64")


# session.export (carrier-level GET/HEAD, not in the method map)
class ExportQuery(WireModel):
    session_id: SessionId
    include_descendants: bool = False


# session.import (docs/decisions.md, "Import in the app")
MAX_IMPORT_BYTES = 20 * 1024 * 1024
"""The largest archive `session.import` takes: base64 in a JSON body (4/3 of it) stays under the
carrier's 32 MiB body cap. `harnessdesk import` with no window open has no such cap."""
_MAX_IMPORT_CHARS = 4 * -(-MAX_IMPORT_BYTES // 3)


class ImportRequest(WireModel):
    """An archive from `harnessdesk export` or the Export button, imported into a registered
    workspace: its sessions work in that folder, never where the archive says."""

    data: str = Field(min_length=1, max_length=_MAX_IMPORT_CHARS, description="the .zip file, base64")
    workspace_id: Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:-]+$")]
    file_name: str | None = Field(default=None, max_length=300, description="for messages only")
    as_copy: bool = Field(
        default=False,
        description="import under new session ids, titled “(copy)”: for an archive whose sessions are here",
    )

    @field_validator("data")
    @classmethod
    def _base64(cls, value: str) -> str:
        try:
            decoded = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError("the file is not base64") from exc
        if not decoded:
            raise ValueError("the file is empty")
        return value

    def archive_bytes(self) -> bytes:
        return base64.b64decode(self.data, validate=True)


class ImportValue(WireModel):
    session_id: SessionId = Field(description="the archive's main session, to open")
    session_ids: list[SessionId] = Field(description="every session imported, the main one first")
    workspace_id: str
