"""The `session.*` domain: each method's request payload and response value, once."""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any, Literal, Union

from pydantic import Field, SerializerFunctionWrapHandler, field_validator, model_serializer, model_validator

from contract._base import WireModel
from contract.content import AttachmentRef, MediaType
from contract.host import is_fully_qualified
from contract.llm import ModelCatalogFailure, ModelProviderGroup
from contract.paths import HostPath
from contract.remotes import HostId
from contract.views import HistoryEntry

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
    host_id: str | None = None
    """The remote host the session lives on (docs/decisions.md, "Remote hosts"); null: this one."""

    @model_serializer(mode="wrap")
    def _keep_host(self, handler: SerializerFunctionWrapHandler) -> Any:
        """`hostId: null` names this host: never dropped by `exclude_none` (issue 43's wire)."""
        data = handler(self)
        if isinstance(data, dict):
            data.setdefault("hostId", None)
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


PromptContent = Annotated[Union[TextInput, ImageInput], Field(discriminator="type")]

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
