"""The configuration plane: namespaced settings, credentials by reference, and the LLM routes
they declare (docs/architecture.md, "Settings"; docs/decisions.md, "Configuration")."""

from __future__ import annotations

from contract.namespaces import (
    AGENT_PRESETS,
    EXPOSED,
    PERMISSION,
    SECTIONS,
)
from host.engine.llm.deepseek import DEEPSEEK_BASE
from host.engine.settings.sections import Namespace
from host.engine.tools.permissions.modes import DEFAULT_PRESET

BASES = {
    "llm-deepseek": DEEPSEEK_BASE,
    PERMISSION: {"defaultPreset": DEFAULT_PRESET},
    AGENT_PRESETS: {"default": "standard"},
}
"""The shipped layer of each namespace that has one (between the model's defaults and the user)."""


def registered_namespaces() -> list[Namespace]:
    """Every namespace the host registers, in registration order (exposed ones first)."""
    ordered = [*EXPOSED, *(ns for ns in SECTIONS if ns not in EXPOSED)]
    # Every namespace applies live: even `llm-local` (threads, context size) reloads the built-in
    # model on its next turn (docs/decisions.md, "The built-in model's settings apply live").
    return [Namespace(ns, SECTIONS[ns], BASES.get(ns), "live") for ns in ordered]
