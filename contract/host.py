"""The `host.*` domain: describe, the directory picker (native or browse) and open-path.

The picker has two capabilities, and a host serves exactly one: `native` (one OS folder dialog on
the host's display: `pickDirectory`) or `browse` (list/create primitives for an in-page folder
browser: `listDirectory`, `createDirectory`). A call for the other kind answers
`directory-picker-unavailable {capability}` naming the kind the host does serve.
"""

from __future__ import annotations

import os
import re
from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, field_validator, model_serializer

from contract._base import WireModel
from contract.paths import HostPath, PathSegment
from contract.permissions import PresetOption, SandboxStatus
from contract.remotes import HostId

PickerCapability = Literal["native", "browse"]


def is_fully_qualified(path: str, windows: bool = os.name == "nt") -> bool:
    """POSIX-absolute on POSIX; on Windows a drive path (`C:\\…`) or a full UNC path
    (`\\\\server\\share…`). Relative, empty, drive-less rooted and partial UNC values are not: a
    path from the wire is never resolved against the host's own working directory."""
    if not windows:
        return path.startswith("/")
    if re.match(r"^[A-Za-z]:[\\/]", path):
        return True
    return re.match(r"^[\\/]{2}[^\\/]+[\\/][^\\/]+", path) is not None


class DescribeRequest(WireModel):
    pass


class DescribeValue(WireModel):
    version: str
    cwd: str
    home: str = Field(description="the host user's home directory")
    provider: str | None = None
    model: str | None = None
    attached_sessions: int = Field(ge=0, description="sessions loaded in this host process")
    can_open_path: bool = Field(description="host.openPath can reach a desktop here")
    host_instance_id: str
    new_session_mode: PresetOption | None = Field(
        default=None,
        description="the permission mode a new session starts in here (Auto is Ask without a sandbox)",
    )
    sandbox: SandboxStatus | None = Field(
        default=None, description="the sandbox this machine offers (`none`: no sandboxed mode here)"
    )


FileKind = Literal["gguf"]
"""A kind of file a picker may ask for instead of a folder: `gguf`, a model file (`*.gguf`)."""


# host.pickDirectory
class PickDirectoryRequest(WireModel):
    file: FileKind | None = Field(
        default=None,
        description="pick one file of this kind (the dialog filters by it) instead of a folder",
    )


class PickDirectoryValue(WireModel):
    path: str | None = Field(description="the chosen directory; null when the user cancelled")

    @model_serializer(mode="wrap")
    def _keep_null(self, handler: SerializerFunctionWrapHandler) -> Any:
        """`{path: null}` is the answer to a cancel: never dropped by `exclude_none`."""
        data = handler(self)
        if isinstance(data, dict):
            data.setdefault("path", None)
        return data


# host.listDirectory
class DirectoryEntry(WireModel):
    name: str = Field(description="basename; the root crumb's name is its full path")
    path: str = Field(description="absolute; clients never join path segments themselves")
    hidden: bool


class ListDirectoryRequest(WireModel):
    path: HostPath | None = Field(default=None, description="absent = the host's home")
    files: FileKind | None = Field(default=None, description="also list the files of this kind")
    host_id: HostId | None = Field(
        default=None,
        description="a remote host's id (remote.list): the call is made there; absent: this host",
    )


class DirectoryListing(WireModel):
    path: str
    home: str
    crumbs: list[DirectoryEntry] = Field(description="filesystem root down to `path`, inclusive")
    entries: list[DirectoryEntry] = Field(description="child directories (symlinks to them too), by name")
    truncated: bool
    files: list[DirectoryEntry] = Field(
        default_factory=list,
        description="with `files`: the files of that kind (symlinks to them too), by name",
    )


# host.createDirectory
class CreateDirectoryRequest(WireModel):
    path: HostPath = Field(description="the existing parent directory")
    name: PathSegment
    host_id: HostId | None = Field(
        default=None,
        description="a remote host's id (remote.list): the call is made there; absent: this host",
    )

    @field_validator("name")
    @classmethod
    def _one_segment(cls, v: str) -> str:
        name = v.strip()
        if not name:
            raise ValueError("name must not be blank")
        if name in (".", ".."):
            raise ValueError("name must not be . or ..")
        if "/" in name or "\\" in name:
            raise ValueError("name must be one path segment (no / or \\)")
        if "\x00" in name:
            raise ValueError("name must not contain NUL")
        return name


class DirectoryPath(WireModel):
    path: str


# host.openPath
class OpenPathRequest(WireModel):
    path: HostPath = Field(min_length=1)
    editor: bool = False
    """Open a file in the person's editor (`ui-appearance.editor`) when one is set, rather than
    the system's default program (the Files pane's Open in editor)."""


class OpenPathValue(WireModel):
    opened: Literal[True] = True


# host.focus
class FocusRequest(WireModel):
    """The sessions a page shows (docs/decisions/performance-under-load.md): its `events.mux`
    stream (`stream/opened`) then carries streamed chunks of these sessions only; every other
    frame of every session still comes."""

    stream_id: str = Field(min_length=1, max_length=64)
    session_ids: list[str] = Field(max_length=64)


class FocusValue(WireModel):
    open: bool
    """Whether the stream is open on this host (False: it ended; the next one is focused anew)."""
