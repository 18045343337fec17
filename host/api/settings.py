"""`settings.*`: the namespaced settings. Secret fields never leave the host (redacted views).

Every change is announced on the host stream by the engine, so every open window converges.
"""

from __future__ import annotations

from contract import settings as st
from contract.methods import (
    SETTINGS_DESCRIBE,
    SETTINGS_MUTATE,
    SETTINGS_OPEN_DOCUMENT,
    SETTINGS_REPLACE,
    SETTINGS_RESET_DOCUMENT,
    SETTINGS_UPDATE,
)
from host.api.registry import implements
from host.engine.engine import Engine
from host.engine.errors import HostActionFailed


@implements(SETTINGS_DESCRIBE)
async def describe(engine: Engine, p: st.SettingsDescribeRequest) -> st.SettingsDescribeValue:
    return engine.config.settings()


@implements(SETTINGS_OPEN_DOCUMENT)
async def open_document(engine: Engine, p: st.OpenDocumentRequest) -> st.Opened:
    try:
        await engine.config.open_settings_document(p.file)
    except OSError as exc:
        raise HostActionFailed(f"cannot open {p.file}: {exc.strerror or exc}") from None
    return st.Opened()


@implements(SETTINGS_RESET_DOCUMENT)
async def reset_document(engine: Engine, p: st.ResetDocumentRequest) -> st.ResetDocumentValue:
    try:
        kept = await engine.config.reset_settings_document(p.file)
    except OSError as exc:
        raise HostActionFailed(f"cannot reset {p.file}: {exc.strerror or exc}") from None
    return st.ResetDocumentValue(kept_as=kept)


@implements(SETTINGS_UPDATE)
async def update(engine: Engine, p: st.UpdateRequest) -> st.SettingsNamespaceView:
    return await engine.config.update_settings(p.ns, p.patch, p.expected_revision)


@implements(SETTINGS_REPLACE)
async def replace(engine: Engine, p: st.ReplaceRequest) -> st.SettingsNamespaceView:
    return await engine.config.replace_settings(p.ns, p.section, p.expected_revision)


@implements(SETTINGS_MUTATE)
async def mutate(engine: Engine, p: st.MutateRequest) -> st.SettingsNamespaceView:
    return await engine.config.mutate_settings(p.ns, p.ops, p.expected_revision)
