"""`permission.*`: the permission modes and a session's scoped "Allow always" rules.

One permission model, four modes (docs/decisions.md, "Sandbox and the four modes"): Read-only,
Auto (the default where the sandbox works), Ask and Full access. A session is pinned to a mode
when it is created (`permission/preset`, `sandbox/mode` and `approval/policy` are logged, with
what really applies: the sandbox's mechanism and the network switch); `permission.set` switches
the mode or the session's "Allow network" switch. "Allow always" remembers `(tool, scope)`
host-side: for `bash` the command's leading words, for file tools the workspace, never every call
of a tool. The session projection `permissions` lists the preset and the rules; `permission.revoke` drops one.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from contract._base import WireModel
from contract.approvals import ScopeWords

PermissionPreset = Literal["read-only", "auto", "workspace-write", "danger-full-access"]
SandboxMode = Literal["read-only", "workspace-write", "danger-full-access"]
ApprovalPolicy = Literal["ask", "on-request", "never"]
"""`on-request` (Auto): asks only to go outside the sandbox."""

PRESET_TEXT: dict[str, tuple[str, str]] = {
    "read-only": ("Read-only", "Reads and runs read-only commands in the sandbox; never writes."),
    "auto": ("Auto", "Runs inside this folder, asks before anything else."),
    "workspace-write": ("Ask", "Runs inside this folder like Auto, and asks before every write and command."),
    "danger-full-access": (
        "Full access",
        "No sandbox, never asks: commands run with all your rights on this computer.",
    ),
}
"""Each mode's display name and one line, as the picker, the badge and Settings show them."""

FULL_ACCESS_WARNING = (
    "Full access turns the sandbox off and never asks: every command the agent runs can read your"
    " keys and passwords, change or delete any of your files and reach the network, with your rights."
)
"""What choosing Full access means, shown before a person confirms it."""

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
    words: ScopeWords | None = None
    """`label` as parts, for a client's own language (docs/decisions.md, "Languages")."""


class SandboxStatus(WireModel):
    kind: Literal["bwrap", "landlock", "none"]
    """What this machine offers; `none`: no sandboxed mode is offered."""
    reason: str
    """One sentence ("bubblewrap 0.8.0 at /usr/bin/bwrap")."""


class PermissionsProjection(WireModel):
    options: list[PresetOption]
    """The modes a person can choose here (no sandboxed mode where there is no sandbox)."""
    current_value: str
    """The mode that applies (the pin, capped by the agent preset; Auto runs as Ask without a sandbox)."""
    rules: list[PermissionRule]
    badge: str = ""
    """The header's one line, what will happen ("Auto — runs inside this folder, asks before …")."""
    network: bool = False
    """The session's "Allow network" switch (commands reach the network without asking)."""
    sandbox: SandboxStatus | None = None
    full_access_warning: str = FULL_ACCESS_WARNING


# permission.set
class PermissionSetRequest(WireModel):
    """Switch an open or stored session's mode and/or its "Allow network" switch (privileged: it
    can loosen what runs unasked). Absent fields stay as they are."""

    session_id: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:-]+$")
    preset: PermissionPreset | None = None
    network: bool | None = None
    confirm_full_access: bool = False
    """Must be true to switch to Full access: the person saw FULL_ACCESS_WARNING and confirmed."""

    @model_validator(mode="after")
    def _full_access_confirmed(self) -> PermissionSetRequest:
        if self.preset == "danger-full-access" and not self.confirm_full_access:
            raise ValueError("switching to Full access needs confirmFullAccess: true (the person confirmed)")
        return self


class PermissionSetValue(WireModel):
    permissions: PermissionsProjection


# permission.revoke
class RevokeRequest(WireModel):
    session_id: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:-]+$")
    tool: str = Field(min_length=1, max_length=200)
    scope: str = Field(max_length=10_000)


class RevokeValue(WireModel):
    revoked: bool
    """False when no such rule existed (already revoked): nothing changed."""
