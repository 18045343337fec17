"""Which agent presets mount the goal stack (docs/decisions.md, "Goals")."""

from __future__ import annotations

GOAL_PRESETS = frozenset({"standard"})
"""The agent presets whose composition mounts the goal stack (docs/decisions.md, "Goals")."""


def mounted(preset_id: str | None) -> bool:
    return (preset_id or "standard") in GOAL_PRESETS
