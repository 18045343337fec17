"""Agent presets: which tools, prompt, model and permission defaults a session runs with; skills
and which presets mount the goal stack."""

from host.engine.presets.roster import FALLBACK_DEFAULT, SHIPPED_ROOT, PresetRoot, PresetRoster
from host.engine.presets.spec import PresetSpec

__all__ = ["FALLBACK_DEFAULT", "SHIPPED_ROOT", "PresetRoot", "PresetRoster", "PresetSpec"]
