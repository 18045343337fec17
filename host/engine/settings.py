"""Settings and credentials as the engine serves them to the configuration page.

Files are written on a worker thread (the event loop never waits on disk). Every change is
announced on the host stream (`host/settings-changed` or `host/credentials-changed`, then
`host/models-changed`) so every open window converges without polling.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from contract.frames import HostCredentialsChanged, HostModelsChanged, HostSettingsChanged
from contract.settings import CredentialView, SettingsPatch, SettingsValue
from host.engine.bus import Bus
from host.engine.config import Config
from host.engine.wiring import Registry


class SettingsService:
    def __init__(self, config: Config, registry: Registry, bus: Bus) -> None:
        self._config = config
        self._registry = registry
        self._bus = bus

    def describe(self) -> SettingsValue:
        return SettingsValue(
            values=self._config.llm(),
            user=self._config.user_fields(),
            revision=self._config.revision,
            providers=self._registry.providers(),
        )

    async def update(
        self, patch: SettingsPatch, unset: Sequence[str], expected_revision: int | None
    ) -> SettingsValue:
        """Write the user layer; raises SettingsConflict or SettingsRejected (nothing written)."""
        values = patch.model_dump(mode="json", by_alias=True, exclude_unset=True)
        await asyncio.to_thread(self._config.update, values, tuple(unset), expected_revision)
        self._bus.publish("host", HostSettingsChanged(ns="llm"))
        self._bus.publish("host", HostModelsChanged())
        return self.describe()

    def credentials(self) -> list[CredentialView]:
        return self._config.describe_credentials()

    async def set_credential(self, ref: str, value: str) -> CredentialView:
        """Store a key; raises CredentialRejected. The value is never returned or announced."""
        view = await asyncio.to_thread(self._config.set_credential, ref, value)
        return self._credential_changed(view)

    async def unset_credential(self, ref: str) -> CredentialView:
        view = await asyncio.to_thread(self._config.unset_credential, ref)
        return self._credential_changed(view)

    def _credential_changed(self, view: CredentialView) -> CredentialView:
        self._bus.publish("host", HostCredentialsChanged(ref=view.ref))
        self._bus.publish("host", HostModelsChanged())
        return view
