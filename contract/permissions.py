"""`permission.*`: the permission presets and a session's scoped "Allow always" rules.

A session is pinned to a preset when it is created (`permission/preset`, `sandbox/mode` and
`approval/policy` are logged). "Allow always" remembers `(tool, scope)` host-side: for `bash`
the command's leading words, for file tools the workspace, never every call of a tool. The
session projection `permissions` lists the preset and the rules; `permission.revoke` drops one.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from contract._base import WireModel

PermissionPreset = Literal["workspace-write", "read-only", "danger-full-access"]
SandboxMode = Literal["read-only", "workspace-write", "danger-full-access"]
ApprovalPolicy = Literal["ask", "never"]

PRESET_TEXT: dict[str, tuple[str, str]] = {
    "workspace-write": ("Ask before changes", "Reads freely; asks before it writes files or runs commands."),
    "read-only": ("Read-only", "Reads and searches only; writing files and running commands are refused."),
    "danger-full-access": (
        "Full access (never asks)",
        "Writes files and runs commands without asking. Use only in a folder you can restore.",
    ),
}
"""Each preset's display name and description, as the Settings page and the session show them."""

LOOSENESS_ORDER = ("read-only", "workspace-write", "auto", "danger-full-access")
"""From strictest to loosest: a move right lets more run without asking, so it is privileged
(docs/decisions.md, "Loosening is privileged"). `auto` (sandboxed writes that never ask) is
named before its preset exists so it slots in; the host reads this in `looseness()` only."""

PERMISSIONS_KEY = "permissions"
"""The session projection key (`session/projection`, `session.history` projections)."""


class PresetOption(WireModel):
    value: str
    name: str
    description: str | None = None


class PermissionRule(WireModel):
    tool: str
    scope: str
    """Opaque to clients: echo it to `permission.revoke`."""
    label: str
    """What the rule allows, in words (`bash: npm test …`)."""
    created_at: int


class PermissionsProjection(WireModel):
    options: list[PresetOption]
    current_value: str
    rules: list[PermissionRule]


# permission.revoke
class RevokeRequest(WireModel):
    session_id: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:-]+$")
    tool: str = Field(min_length=1, max_length=200)
    scope: str = Field(max_length=10_000)


class RevokeValue(WireModel):
    revoked: bool
    """False when no such rule existed (already revoked): nothing changed."""
