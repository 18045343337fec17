"""The configuration plane's part of the `Engine` facade (settings, credentials, routes,
permission rules): the API layer calls these methods, never the stores behind them."""

from __future__ import annotations

from typing import Any

from contract.credentials import CredentialView
from contract.llm import (
    ConfigurableProviderView,
    DiscoveredModelView,
    DiscoverModelsRequest,
    ModelCatalogFailure,
    ModelProviderGroup,
)
from contract.settings import SettingsDescribeValue, SettingsNamespaceView, SettingsPathOp
from host.engine.errors import SessionNotFound
from host.engine.permissions.policy import PermissionService
from host.engine.settings.plane import ConfigPlane
from host.engine.store import Store


class ConfigurationDoor:
    _plane: ConfigPlane
    permissions: PermissionService
    store: Store

    # ---- settings.* ---------------------------------------------------------------------------

    def settings(self) -> SettingsDescribeValue:
        return self._plane.describe()

    async def update_settings(
        self, ns: str, patch: dict[str, Any], expected: int | None
    ) -> SettingsNamespaceView:
        """Deep-merge into the user section; raises SettingsNotExposed/Rejected/Conflict."""
        return await self._plane.update(ns, patch, expected)

    async def replace_settings(
        self, ns: str, section: dict[str, Any], expected: int | None
    ) -> SettingsNamespaceView:
        return await self._plane.replace(ns, section, expected)

    async def mutate_settings(
        self, ns: str, ops: list[SettingsPathOp], expected: int | None
    ) -> SettingsNamespaceView:
        return await self._plane.mutate(ns, ops, expected)

    async def open_settings_document(self) -> None:
        """Open settings.json in the user's editor; raises OSError when it cannot."""
        await self._plane.open_document()

    # ---- credentials.* ------------------------------------------------------------------------

    def credentials(self, refs: list[str]) -> dict[str, CredentialView]:
        return self._plane.credential_views(refs)

    async def set_credential(self, ref: str, value: str) -> None:
        """Store a secret under `ref`; raises CredentialRejected. Never returned or announced."""
        await self._plane.set_credential(ref, value)

    async def unset_credential(self, ref: str) -> None:
        await self._plane.unset_credential(ref)

    # ---- llm.* --------------------------------------------------------------------------------

    def providers(self) -> list[ConfigurableProviderView]:
        return self._plane.providers()

    async def catalogue(self) -> tuple[list[ModelProviderGroup], list[ModelCatalogFailure]]:
        return await self._plane.models()

    async def discover_models(self, request: DiscoverModelsRequest) -> list[DiscoveredModelView]:
        """Ask a draft endpoint for its models; raises ModelDiscoveryFailed. Stores nothing."""
        return await self._plane.discover(request)

    # ---- permission.* -------------------------------------------------------------------------

    async def revoke_permission(self, session_id: str, tool: str, scope: str) -> bool:
        """Drop one "Allow always" rule of a session (False when it had none such)."""
        if await self.store.header(session_id) is None:
            raise SessionNotFound(session_id)
        return await self.permissions.revoke(session_id, tool, scope)
