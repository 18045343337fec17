"""The permission preset table: what each preset lets the agent do (docs/decisions.md, "Configuration").

- `workspace-write` (the default): reads run freely; writes and shell commands ask, and "Allow
  always" remembers a scoped rule.
- `read-only`: `write_file`, `edit_file` and `bash` (every tool that needs approval) are refused
  with a tool error the model and the user can read; nothing asks.
- `danger-full-access`: nothing asks. File tools still stay inside the session's folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from contract.permissions import PRESET_TEXT, ApprovalPolicy, PermissionPreset, PresetOption, SandboxMode

DEFAULT_PRESET: PermissionPreset = "workspace-write"


@dataclass(frozen=True)
class Preset:
    name: PermissionPreset
    sandbox: SandboxMode
    approval: ApprovalPolicy
    title: str
    description: str

    def option(self) -> PresetOption:
        return PresetOption(value=self.name, name=self.title, description=self.description)


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("workspace-write", "workspace-write", "ask", *PRESET_TEXT["workspace-write"]),
        Preset("read-only", "read-only", "ask", *PRESET_TEXT["read-only"]),
        Preset("danger-full-access", "danger-full-access", "never", *PRESET_TEXT["danger-full-access"]),
    )
}
if tuple(PRESETS) != get_args(PermissionPreset):
    raise RuntimeError("the preset table does not match the contract's preset names")


def preset(name: str | None) -> Preset:
    """The named preset; an unknown name (an edited database) falls back to the default."""
    return PRESETS.get(name or "", PRESETS[DEFAULT_PRESET])


def options() -> list[PresetOption]:
    return [p.option() for p in PRESETS.values()]


LEVEL = {"read-only": 0, "workspace-write": 1, "danger-full-access": 2}
"""How much a preset allows; an agent preset can only lower it."""


def capped(name: str, sandbox: str | None, approval: str | None) -> Preset:
    """The stricter of the pinned preset and an agent preset's `sandbox` / `approval` (a preset that
    asks cannot be full access, which never asks)."""
    level = LEVEL[preset(name).name]
    if sandbox in LEVEL:
        level = min(level, LEVEL[sandbox])
    if approval == "ask":
        level = min(level, LEVEL["workspace-write"])
    return next(p for p in PRESETS.values() if LEVEL[p.name] == level)
