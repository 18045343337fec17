"""Veto records and hook events (docs/architecture.md, "Prompt gates").

- `prompt/blocked`: a person's prompt that a prompt gate (a `UserPromptSubmit` hook or another
  pre-step policy) refused; logged inside the turn it opened, right before
  `turn/end {reason: {kind: blocked}}` (the turn has zero steps). Log-only, never model input.
- `hook/invoked` / `hook/result`: one pair around each command hook a hook bridge runs inside an
  open turn. Log-only.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from contract._base import OpenModel
from contract.content import ContentBlock, MessageSource

HookDialect = Literal["claude", "codex"]

STDERR_SUMMARY_CHARS = 500
"""`hook/result.stderrSummary` keeps this many characters of the trimmed stderr, then `…`."""


class PromptBlocked(OpenModel):
    content: list[ContentBlock]
    """The original prompt (nothing a person wrote is lost)."""
    source: MessageSource
    reason: str = Field(min_length=1)


class HookInvoked(OpenModel):
    turn: int = Field(ge=0)
    point: str = Field(min_length=1)
    dialect: HookDialect
    matcher: str | None = None
    """Omitted for match-all groups."""
    handler_id: str = Field(min_length=1)
    command: str | None = None
    """The hook's command line, shown in the conversation's hook row (HarnessDesk's addition to
    the reference shape; docs/decisions.md, "Hook rows")."""


class HookResult(OpenModel):
    turn: int = Field(ge=0)
    point: str = Field(min_length=1)
    handler_id: str = Field(min_length=1)
    decision: str = Field(min_length=1)
    """The hook's parsed decision (`approve`, `block`, `allow`, `deny`, `ask`), else `stop`
    (`continue: false`), else `pass`."""
    exit_code: int | None = None
    """Omitted when the process could not run."""
    stderr_summary: str | None = Field(default=None, min_length=1, max_length=STDERR_SUMMARY_CHARS + 1)
    duration_ms: float = Field(ge=0)


def stderr_summary(stderr: str, limit: int = STDERR_SUMMARY_CHARS) -> str | None:
    """The trimmed stderr cut at `limit` characters with a trailing `…`; None when empty."""
    text = stderr.strip()
    if not text:
        return None
    return text if len(text) <= limit else text[:limit] + "…"
