"""`engine.config`, the configuration plane's service (a session's model, settings,
credentials, routes, permission rules): the API layer calls these methods, never the stores
behind them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from contract.credentials import CredentialView
from contract.llm import (
    ConfigurableProviderView,
    DiscoveredModelView,
    DiscoverModelsRequest,
    ModelCatalogFailure,
    ModelProviderGroup,
)
from contract.permissions import PermissionsProjection
from contract.sessions import ModelSelection, ModelsValue
from contract.settings import (
    ConfigFile,
    ConfigFileView,
    SettingsDescribeValue,
    SettingsNamespaceView,
    SettingsPathOp,
)
from host.engine.agent.model_choice import ModelChoice
from host.engine.agent.pool import AgentPool
from host.engine.errors import SessionNotFound
from host.engine.llm import models as model_info
from host.engine.llm.registry import AdapterRegistry
from host.engine.sessions.lookup import Header
from host.engine.settings.configuration import ConfigPlane
from host.engine.settings.selection import Selections
from host.engine.store import Store
from host.engine.tools.permissions.policy import PermissionService


class Configuration:
    """A session's model; settings, credentials, providers and their catalogue; permission modes and
    rules."""

    def __init__(
        self,
        pool: AgentPool,
        store: Store,
        header: Header,
        models: ModelChoice,
        selections: Selections,
        registry: AdapterRegistry,
        plane: ConfigPlane,
        permissions: PermissionService,
        follow_model: Callable[[str, str], Awaitable[None]],
    ) -> None:
        self._pool = pool
        self._store = store
        self._header = header
        self._models = models
        self._selections = selections
        self._registry = registry
        self._plane = plane
        self._permissions = permissions
        self._follow_model = follow_model

    # ---- a session's model ----------------------------------------------------------------------

    async def models(self, session_id: str) -> ModelsValue:
        header = await self._header(session_id)
        agent = self._pool.get(session_id)
        current = self._models.current(session_id, agent.journal if agent else None, header)
        return await model_info.describe(self._registry, current)

    async def select_model(
        self, session_id: str, provider: str, model: str, reasoning_effort: str | None = None
    ) -> ModelSelection:
        """Validate and apply from the next request; also the host default for new sessions."""
        await self._header(session_id)
        selected = await self._selections.select(session_id, provider, model, reasoning_effort)
        await self._follow_model(session_id, provider)
        return selected

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

    async def open_settings_document(self, file: ConfigFile = "settings.json") -> None:
        """Open settings.json (or credentials.json) in the user's editor; raises OSError when it
        cannot."""
        await self._plane.open_document(file)

    async def reset_settings_document(self, file: ConfigFile) -> str | None:
        """Set a configuration file the host cannot use aside (`<name>.broken-<time>`, returned)
        and start it afresh; None when the file was usable. Raises OSError."""
        return await self._plane.reset_document(file)

    def config_file(self, file: ConfigFile) -> ConfigFileView:
        """How the host read settings.json or credentials.json (its problem, if any)."""
        return self._plane.file_view(file)

    # ---- credentials.* ------------------------------------------------------------------------

    def credentials(self, refs: list[str]) -> dict[str, CredentialView]:
        return self._plane.credential_views(refs)

    async def set_credential(self, ref: str, value: str) -> None:
        """Store a secret under `ref`; raises CredentialRejected. Never returned or announced."""
        await self._plane.set_credential(ref, value)

    async def unset_credential(self, ref: str) -> None:
        await self._plane.unset_credential(ref)

    async def move_credential(self, ref: str, to: str) -> None:
        """An endpoint's key slot follows its new name (`credentials.move`)."""
        await self._plane.move_credential(ref, to)

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
        if await self._store.header(session_id) is None:
            raise SessionNotFound(session_id)
        return await self._permissions.revoke(session_id, tool, scope)

    async def set_permission(
        self, session_id: str, preset: str | None, network: bool | None
    ) -> PermissionsProjection:
        """Switch a session's mode and/or its "Allow network" switch (the request checked that
        Full access was confirmed). The session is attached so that its log records it."""
        await self._header(session_id)
        await self._pool.attach(session_id)
        if preset is not None:
            self._permissions.switch(session_id, preset)
        if network is not None:
            self._permissions.set_network(session_id, network)
        await self._store.flush()  # the answer says it applies: it is on disk
        return await self._permissions.projection(session_id)
