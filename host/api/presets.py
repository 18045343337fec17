"""`agentPreset.*`: the preset roster and a session's choice among the presets (the engine's
door for them is `engine.presets`, host/engine/services/presets.py)."""

from __future__ import annotations

from contract import presets as ap
from contract.methods import (
    AGENT_PRESET_COPY,
    AGENT_PRESET_LIST,
    AGENT_PRESET_OPEN_DOCUMENT,
    AGENT_PRESET_READ,
    AGENT_PRESET_REMOVE,
    AGENT_PRESET_SELECT,
)
from host.api.registry import implements
from host.engine.engine import Engine
from host.fetch.caller import caller_privileged


@implements(AGENT_PRESET_LIST)
async def list_presets(engine: Engine, p: ap.PresetListRequest) -> ap.PresetListValue:
    return await engine.presets.list_presets()


@implements(AGENT_PRESET_SELECT)
async def select(engine: Engine, p: ap.PresetSelectRequest) -> ap.PresetRefValue:
    chosen = await engine.presets.select_preset(p.session_id, p.agent_preset, privileged=caller_privileged())
    return ap.PresetRefValue(agent_preset=chosen)


@implements(AGENT_PRESET_READ)
async def read(engine: Engine, p: ap.PresetRequest) -> ap.PresetReadValue:
    return await engine.presets.read_preset(p.agent_preset)


@implements(AGENT_PRESET_COPY)
async def copy(engine: Engine, p: ap.PresetCopyRequest) -> ap.PresetRefValue:
    return ap.PresetRefValue(agent_preset=await engine.presets.copy_preset(p.from_, p.agent_preset, p.name))


@implements(AGENT_PRESET_OPEN_DOCUMENT)
async def open_document(engine: Engine, p: ap.PresetRequest) -> ap.PresetOpenValue:
    opened, path = await engine.presets.open_preset(p.agent_preset)
    return ap.PresetOpenValue(opened=True) if opened else ap.PresetOpenValue(opened=False, path=str(path))


@implements(AGENT_PRESET_REMOVE)
async def remove(engine: Engine, p: ap.PresetRequest) -> ap.PresetRemoved:
    await engine.presets.remove_preset(p.agent_preset)
    return ap.PresetRemoved()
