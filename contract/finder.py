"""The `finder.*` domain: `@` in the composer, a fuzzy finder over the session's folder
(docs/architecture.md, "The @ finder"). What a prompt attaches is session.prompt's `attach`
(contract/sessions.py) and a text part's `attached` (contract/content.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from contract._base import WireModel
from contract.sessions import SessionId

ATTACH_CAP_BYTES = 64 * 1024
"""What one attached file contributes at most; a longer file is cut (and says so)."""
LISTING_CAP = 500
"""Entries one attached folder listing shows at most."""


# finder.find
class FindRequest(WireModel):
    session_id: SessionId
    query: str = Field(default="", max_length=200)
    """Letters to find in order (case-insensitive; spaces ignored); empty: the top of the folder."""
    limit: int = Field(default=30, ge=1, le=100)


class FoundResource(WireModel):
    """An MCP resource of one of the session's ready servers (`resources/list`)."""

    server: str
    uri: str
    name: str
    title: str | None = None
    mime_type: str | None = None
    description: str | None = None


class FoundEntry(WireModel):
    path: str
    """Relative to the session's folder, "/"-separated (a folder without a trailing slash); a
    resource's label `server:name`, what the query was matched against."""
    kind: Literal["file", "folder", "resource"]
    size: int | None = Field(default=None, ge=0)
    """A file's size in bytes (null for a folder, or when it went away meanwhile); a resource's
    size when its server says it."""
    hits: list[int] = Field(default_factory=list)
    """Where the query's letters matched in `path` (character offsets), for highlighting."""
    resource: FoundResource | None = None
    """Set for `kind: "resource"`: which MCP server offers it, and its uri."""


class FindValue(WireModel):
    matches: list[FoundEntry]
    indexed: int = Field(ge=0)
    """Entries in the folder's index (ignored files and version-control folders left out)."""
    partial: bool
    """The folder has more entries than one index keeps: some are not offered."""
    attach_cap_bytes: int = Field(ge=0)
    """A file larger than this is attached cut to its first `attachCapBytes` bytes."""
    resource_problems: list[str] = Field(default_factory=list)
    """MCP servers whose resources could not be listed in time or at all (one line each)."""
