"""The four permission modes (docs/decisions.md, "Sandbox and the four modes").

- `read-only`: the sandbox is read-only; the agent reads and runs read-only commands, never
  writes (file writes are refused; without a sandbox no command runs at all).
- `auto` (the default where the sandbox works): sandboxed writes in the folder; file edits and
  commands inside it run without asking; only going outside the sandbox (network, full access
  for one command) asks. Without a sandbox a session in Auto runs as Ask.
- `workspace-write` ("Ask"): sandboxed like Auto, and every write and command asks.
- `danger-full-access`: no sandbox, nothing asks. File tools still stay inside the folder.

An agent preset's old `sandbox` / `approval` fields map onto a mode that caps the session (it
can only make it stricter).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from contract.permissions import PRESET_TEXT, ApprovalPolicy, PermissionPreset, PresetOption, SandboxMode

DEFAULT_PRESET: PermissionPreset = "auto"


@dataclass(frozen=True)
class Preset:
    name: PermissionPreset
    sandbox: SandboxMode
    approval: ApprovalPolicy
    title: str
    description: str

    def option(self) -> PresetOption:
        return PresetOption(value=self.name, name=self.title, description=self.description)

    @property
    def sandboxed(self) -> bool:
        """Its commands run inside the sandbox (every mode but Full access)."""
        return self.sandbox != "danger-full-access"


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("read-only", "read-only", "ask", *PRESET_TEXT["read-only"]),
        Preset("auto", "workspace-write", "on-request", *PRESET_TEXT["auto"]),
        Preset("workspace-write", "workspace-write", "ask", *PRESET_TEXT["workspace-write"]),
        Preset("danger-full-access", "danger-full-access", "never", *PRESET_TEXT["danger-full-access"]),
    )
}
if tuple(PRESETS) != get_args(PermissionPreset):
    raise RuntimeError("the preset table does not match the contract's preset names")


def preset(name: str | None) -> Preset:
    """The named mode; an unknown name (an edited database) falls back to the safest that
    writes, Ask."""
    return PRESETS.get(name or "", PRESETS["workspace-write"])


def options(sandbox_available: bool = True) -> list[PresetOption]:
    """The modes a person can choose: no Auto where there is no sandbox to run it in."""
    return [p.option() for p in PRESETS.values() if sandbox_available or p.name != "auto"]


LEVEL = {"read-only": 0, "workspace-write": 1, "auto": 2, "danger-full-access": 3}
"""How loose a mode is (read-only < workspace-write < auto < danger-full-access); an agent preset
can only lower it."""


def agent_mode(sandbox: str | None, approval: str | None) -> str | None:
    """The mode an agent preset's old `sandbox` / `approval` fields mean (None: no cap)."""
    if sandbox == "read-only":
        return "read-only"
    if approval == "ask":
        return "workspace-write"
    if sandbox == "workspace-write":
        return "auto"
    return None


def capped(name: str, sandbox: str | None, approval: str | None) -> Preset:
    """The stricter of the pinned mode and the mode an agent preset's old fields map onto."""
    pinned = preset(name)
    cap = agent_mode(sandbox, approval)
    if cap is not None and LEVEL[cap] < LEVEL[pinned.name]:
        return PRESETS[cap]
    return pinned


def applied(mode: Preset, sandbox_available: bool) -> Preset:
    """What really runs: Auto needs the sandbox; without one it asks like Ask."""
    if mode.name == "auto" and not sandbox_available:
        return PRESETS["workspace-write"]
    return mode
