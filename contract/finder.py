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


class FoundEntry(WireModel):
    path: str
    """Relative to the session's folder, "/"-separated (a folder without a trailing slash)."""
    kind: Literal["file", "folder"]
    size: int | None = Field(default=None, ge=0)
    """A file's size in bytes (null for a folder, or when it went away meanwhile)."""
    hits: list[int] = Field(default_factory=list)
    """Where the query's letters matched in `path` (character offsets), for highlighting."""


class FindValue(WireModel):
    matches: list[FoundEntry]
    indexed: int = Field(ge=0)
    """Entries in the folder's index (ignored files and version-control folders left out)."""
    partial: bool
    """The folder has more entries than one index keeps: some are not offered."""
    attach_cap_bytes: int = Field(ge=0)
    """A file larger than this is attached cut to its first `attachCapBytes` bytes."""
