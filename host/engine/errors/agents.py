"""Agent presets and models: presets, adapters, discovery, downloads, installed models."""

from __future__ import annotations

from contract.errors import (
    DiscoveryDetails,
    DownloadDetails,
    LocalModelDetails,
    ModelUnavailableDetails,
    PresetConflictDetails,
    PresetLockedDetails,
    PresetNotFoundDetails,
    PresetReasonDetails,
    ReasonDetails,
)
from host.engine.errors.base import EngineError


class AgentPresetNotFound(EngineError[PresetNotFoundDetails]):
    code = "agent-preset-not-found"

    def __init__(self, agent_preset: str, available: list[str]) -> None:
        details = PresetNotFoundDetails(agent_preset=agent_preset, available=available)
        super().__init__(
            f"no agent preset {agent_preset!r} (available: {', '.join(available) or 'none'})", details
        )


class AgentPresetInvalid(EngineError[PresetReasonDetails]):
    """A new id that is malformed or taken; a preset that is broken."""

    code = "agent-preset-invalid"

    def __init__(self, agent_preset: str, reason: str) -> None:
        super().__init__(reason, PresetReasonDetails(agent_preset=agent_preset, reason=reason))


class AgentPresetReadOnly(EngineError[PresetReasonDetails]):
    """A shipped preset (or no user root) where a change was asked for."""

    code = "agent-preset-read-only"

    def __init__(self, agent_preset: str, reason: str) -> None:
        super().__init__(reason, PresetReasonDetails(agent_preset=agent_preset, reason=reason))


class AgentPresetLocked(EngineError[PresetLockedDetails]):
    """`select` on a session that has run a turn; `agentPreset` is the preset it runs."""

    code = "agent-preset-locked"

    def __init__(self, session_id: str, agent_preset: str) -> None:
        message = f"the session already ran a turn with preset {agent_preset!r}; start a new session"
        super().__init__(message, PresetLockedDetails(session_id=session_id, agent_preset=agent_preset))


class AgentPresetConflict(EngineError[PresetConflictDetails]):
    code = "agent-preset-conflict"

    def __init__(self, session_id: str, requested: str, existing: str | None) -> None:
        details = PresetConflictDetails(
            session_id=session_id, requested_preset=requested, existing_preset=existing
        )
        super().__init__(
            f"session {session_id} exists with preset {existing or '(none)'}, not {requested}", details
        )


class ModelUnavailable(EngineError[ModelUnavailableDetails]):
    code = "model-unavailable"

    def __init__(self, provider: str, model: str, message: str | None = None) -> None:
        details = ModelUnavailableDetails(provider=provider, model=model)
        super().__init__(message or f"no adapter serves {provider}/{model}", details)


class ModelDiscoveryFailed(EngineError[DiscoveryDetails]):
    """Every `llm.discoverModels` failure; the message is the adapter's own, never the key."""

    code = "model-discovery-failed"

    def __init__(self, settings_ns: str, base_url: str | None, message: str) -> None:
        super().__init__(message, DiscoveryDetails(settings_ns=settings_ns, base_url=base_url))


class ModelDownloadNotFound(EngineError[DownloadDetails]):
    """No download of that id (it finished and was dismissed, or never existed)."""

    code = "model-download-not-found"

    def __init__(self, download_id: str) -> None:
        super().__init__(f"no model download {download_id!r}", DownloadDetails(download_id=download_id))


class ModelDownloadRefused(EngineError[ReasonDetails]):
    """A download that cannot start: not enough free space, a bad source, already running."""

    code = "model-download-refused"

    def __init__(self, reason: str) -> None:
        super().__init__(reason, ReasonDetails(reason=reason))


class LocalModelNotFound(EngineError[LocalModelDetails]):
    code = "local-model-not-found"

    def __init__(self, model_id: str) -> None:
        super().__init__(f"no installed model {model_id!r}", LocalModelDetails(model_id=model_id))
