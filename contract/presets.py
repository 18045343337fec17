"""The `agentPreset.*` domain: the roster of agent presets and a session's choice among them.

A preset is a directory on the host (`docs/architecture.md`, "Agent presets"); no path and no
composition text crosses the wire except `read`'s `content` (the `preset.toml` text, to a
privileged caller). Trust comes from the root a preset was found in, never from the preset.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from contract._base import OpenModel, WireModel

PRESET_ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
"""A preset directory's name; other directories in a root are skipped."""

PresetRef = Annotated[str, Field(min_length=1, max_length=200)]
"""A preset id in a request. Not pattern-checked here: an unknown or malformed id is answered
`agent-preset-not-found` (or `agent-preset-invalid` for a new id), with the ids that exist."""

Trust = Literal["system", "user"]


class AgentPresetEntry(WireModel):
    id: str = Field(min_length=1)
    trust: Trust
    is_default: bool
    name: str | None = None
    description: str | None = None
    broken: str | None = Field(default=None, min_length=1)
    """Why this directory cannot run a session (it still holds the id and can be removed)."""


# agentPreset.list
class PresetListRequest(WireModel):
    pass


class PresetListValue(WireModel):
    presets: list[AgentPresetEntry]
    authorable: bool
    """Some root is the user's (copies can be made)."""
    has_document: bool
    """`openDocument` opens the folder natively (else it answers the path as text)."""


# agentPreset.select
class PresetSelectRequest(WireModel):
    session_id: Annotated[str, Field(min_length=1, max_length=200)]
    agent_preset: PresetRef


class PresetRefValue(WireModel):
    agent_preset: str


# agentPreset.read / openDocument / remove
class PresetRequest(WireModel):
    agent_preset: PresetRef


class PresetReadValue(WireModel):
    agent_preset: str
    trust: Trust
    content: str
    """`preset.toml` exactly as stored."""
    name: str | None = None
    description: str | None = None


# agentPreset.copy
class PresetCopyRequest(WireModel):
    from_: PresetRef = Field(alias="from")
    agent_preset: PresetRef
    name: str | None = Field(default=None, min_length=1, max_length=200)


class PresetOpenValue(WireModel):
    opened: bool
    path: str | None = None
    """Present when `opened` is false: the folder, for the user to open by hand."""


class PresetRemoved(WireModel):
    pass


# ---- the session event and the host frame ---------------------------------------------------


class AgentPresetSelected(OpenModel):
    """`agent-preset/selected`: the preset a blank session runs from now on (log-only)."""

    agent_preset: str = Field(min_length=1)
