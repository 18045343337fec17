"""The configuration plane as the engine serves it: settings, credentials, routes, catalogue.

Every change is announced on the host stream (docs/architecture.md, "Settings"):
`host/settings-changed {ns}` for any raw-section change (an RPC write or a hand edit of
settings.json), then `host/models-changed` when the namespace configures a route or is
`agent-default-model`; `host/credentials-changed {ref}` (never a value), then
`host/models-changed` when a route uses that ref.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from contract.credentials import CredentialView
from contract.frames import (
    HostConfigFileChanged,
    HostCredentialsChanged,
    HostModelsChanged,
    HostSettingsChanged,
)
from contract.llm import (
    ConfigurableProviderView,
    DiscoveredModelView,
    DiscoverModelsRequest,
    ModelCatalogFailure,
    ModelProviderGroup,
)
from contract.namespaces import (
    AGENT_DEFAULT_MODEL,
    AGENT_PRESETS,
    EXPOSED,
    LLM_DEEPSEEK,
    LLM_LOCAL,
    LLM_OPENAI_COMPATIBLE,
    PERMISSION,
    UI_APPEARANCE,
    AgentPresetsSection,
    AppearanceSection,
    PermissionSection,
)
from contract.settings import (
    ConfigFile,
    ConfigFileView,
    SetOp,
    SettingsDescribeValue,
    SettingsNamespaceView,
    SettingsPathOp,
    UnsetOp,
)
from host.engine.errors import ModelUnavailable
from host.engine.llm import models as catalogue
from host.engine.llm.discovery import discover
from host.engine.llm.local import InstalledFile
from host.engine.llm.overrides import LlmSummary, RuntimeOverrides
from host.engine.llm.registry import AdapterRegistry, route_supports_tools
from host.engine.llm.routes import Route, build_routes
from host.engine.sessions.bus import Bus
from host.engine.settings import registered_namespaces
from host.engine.settings.credentials import CredentialStore
from host.engine.settings.migrate import migrate
from host.engine.settings.sections import deep_merge, set_path, unset_path
from host.engine.settings.selection import Selections
from host.engine.settings.store import SettingsStore
from host.engine.store import StoreTimeout
from host.workers import WorkerPool

log = logging.getLogger(__name__)

OPEN_TIMEOUT = 15.0
"""Bound on creating the data dir and reading settings.json and credentials.json at start (a
stuck disk, a FIFO put in a file's place), as for the database (docs/decisions.md, "Reliability")."""
_OPENING = WorkerPool("harnessdesk-settings-open", workers=1, spares=2)
"""Daemon threads: a read stuck in the OS never holds up the process's exit."""

CHAT_PRESET = "chat"
"""The shipped preset that offers no tools (host/engine/presets/shipped/chat)."""
LLM_NAMESPACES = frozenset({LLM_LOCAL, LLM_DEEPSEEK, LLM_OPENAI_COMPATIBLE})
Opener = Callable[[str], Awaitable[None]]
"""Opens a host path in the user's editor; raises OSError (or any Exception) when it cannot."""


class ConfigPlane:
    def __init__(
        self,
        data_dir: Path,
        bus: Bus,
        overrides: RuntimeOverrides | None = None,
        *,
        environ: Mapping[str, str] | None = None,
        poll_interval: float | None = None,
        adapter_options: dict[str, Any] | None = None,
        opener: Opener | None = None,
        can_open: Callable[[], bool] | None = None,
        migrate_files: bool = True,
        pinned_settings: Mapping[str, dict[str, Any]] | None = None,
        installed: Callable[[], Sequence[InstalledFile]] = tuple,
    ) -> None:
        """`migrate_files=False` reads a version-1 configuration as empty instead of converting.
        `can_open` says whether the opener can reach a desktop right now (a display may come and
        go); without it an opener always can. `installed`: the model library's installed
        models (routes `local:<id>`)."""
        self.overrides = overrides or RuntimeOverrides()
        self._bus = bus
        self._opener = opener
        self._can_open = can_open
        if migrate_files:
            migrate(Path(data_dir))
        poll = {} if poll_interval is None else {"poll_interval": poll_interval}
        self.settings = SettingsStore(
            data_dir, registered_namespaces(), is_exposed=self.is_exposed, pinned=pinned_settings, **poll
        )
        self.credentials = CredentialStore(data_dir, environ, **poll)
        self.registry = AdapterRegistry(self.routes, self.credentials.value, adapter_options=adapter_options)
        self.installed = installed
        """The installed models (the engine's model library, read before the plane is built)."""
        self._routes: tuple[Any, tuple[Route, ...]] | None = None
        """The routes last built and what they were built from (`routes`)."""
        self.settings.on_change(self._settings_changed)
        self.credentials.on_change(self._credentials_changed)
        self.settings.on_file_change(lambda problem: self._file_changed("settings.json", problem))
        self.credentials.on_file_change(lambda problem: self._file_changed("credentials.json", problem))

    @classmethod
    async def open(
        cls,
        data_dir: Path,
        bus: Bus,
        overrides: RuntimeOverrides | None = None,
        *,
        bound: float = OPEN_TIMEOUT,
        **options: Any,
    ) -> ConfigPlane:
        """Create `data_dir` and read the files off the event loop; StoreTimeout (one sentence
        naming the folder) when that takes more than `bound` seconds."""

        def build() -> ConfigPlane:
            data_dir.mkdir(parents=True, exist_ok=True)
            return cls(data_dir, bus, overrides, **options)

        try:
            return await asyncio.wait_for(_OPENING.run(build), bound)
        except TimeoutError:
            raise StoreTimeout(
                f"the settings in {data_dir} were not read within {bound:g}s; the disk may be"
                " stuck or settings.json or credentials.json there is not a regular file"
            ) from None

    def start(self) -> None:
        """Start watching the files for outside edits (needs the running loop)."""
        self.settings.watch.start()
        self.credentials.watch.start()

    async def aclose(self) -> None:
        await self.settings.watch.stop()
        await self.credentials.watch.stop()
        await self.registry.aclose()

    # ---- routes -------------------------------------------------------------------------------

    def routes(self) -> list[Route]:
        """Every route; built again only when what they are built from changed (their three
        settings sections, the installed models, the overrides), not at each adapter lookup: a
        turn looks its adapter up several times (docs/decisions/turn-start-work-once.md)."""
        s = self.settings
        installed = tuple(self.installed())
        key = (
            s.stamp(LLM_LOCAL),
            s.stamp(LLM_DEEPSEEK),
            s.stamp(LLM_OPENAI_COMPATIBLE),
            installed,
            self.overrides,
        )
        if self._routes is None or self._routes[0] != key:
            built = build_routes(
                s.section(LLM_LOCAL),
                s.section(LLM_DEEPSEEK),
                s.section(LLM_OPENAI_COMPATIBLE),
                self.overrides,
                installed,
            )
            self._routes = (key, tuple(built))
        return list(self._routes[1])

    def check_overrides(self) -> None:
        """Refuse a `--provider` that names no route (a typo must not silently run elsewhere)."""
        wanted = self.overrides.provider
        keys = [r.key for r in self.routes()]
        if wanted is not None and wanted not in keys:
            known = ", ".join([*keys, "openai-compatible (with --base-url)"])
            raise ModelUnavailable(
                wanted, self.overrides.model or "", f"unknown provider {wanted!r}; use {known}"
            )

    def is_exposed(self, ns: str) -> bool:
        return ns in EXPOSED

    def default_preset(self) -> str:
        section: PermissionSection = self.settings.section(PERMISSION)
        return section.default_preset

    def editor(self) -> str:
        """`ui-appearance.editor`: the command that opens a file in the person's editor ("")."""
        section: AppearanceSection = self.settings.section(UI_APPEARANCE)
        return section.editor

    def default_agent_preset(self) -> str:
        """`agent-presets.default`: the agent preset new sessions run (the roster falls back to
        the shipped default when it names no usable preset). Until the person picks one, a
        default model that cannot use tools (the built-in chat model) starts sessions on the
        Chat preset: an agent it cannot be must not be offered (docs/decisions.md, "Offline
        agent")."""
        section: AgentPresetsSection = self.settings.section(AGENT_PRESETS)
        if "default" not in (self.settings.view(AGENT_PRESETS).user or {}) and not self.default_model_acts():
            return CHAT_PRESET
        return section.default

    def default_model_acts(self) -> bool:
        """Whether the model new sessions start on is offered tools."""
        selection = Selections(self.settings, self.registry, self.overrides).default()
        return self.model_acts(selection.provider)

    def model_acts(self, provider: str) -> bool:
        """Whether a route's models are offered tools (an unknown route: assume so)."""
        route = self.registry.route(provider)
        return route is None or route_supports_tools(route)

    def chosen_agent_preset(self) -> str | None:
        """The agent preset the person set as the default in settings, if any."""
        if "default" not in (self.settings.view(AGENT_PRESETS).user or {}):
            return None
        section: AgentPresetsSection = self.settings.section(AGENT_PRESETS)
        return section.default

    def acting_agent_preset(self) -> str:
        """The default agent preset for a model that can use tools (never the automatic Chat)."""
        section: AgentPresetsSection = self.settings.section(AGENT_PRESETS)
        return section.default

    async def forget_agent_preset(self, preset_id: str) -> None:
        """A removed preset stops being the user's default (the shipped one applies again)."""
        if (self.settings.view(AGENT_PRESETS).user or {}).get("default") == preset_id:
            await self.mutate(AGENT_PRESETS, [UnsetOp(op="unset", path=["default"])], None)

    # ---- settings.* ---------------------------------------------------------------------------

    def describe(self) -> SettingsDescribeValue:
        views = [self.settings.view(ns) for ns in self.settings.namespaces() if self.is_exposed(ns)]
        has_document = self.can_open_document()
        return SettingsDescribeValue(
            writable=self.settings.writable,
            has_document=has_document,
            namespaces=views,
            file=self.file_view("settings.json"),
        )

    def file_view(self, file: ConfigFile) -> ConfigFileView:
        store = self.settings if file == "settings.json" else self.credentials
        return ConfigFileView(file=file, path=str(store.path), problem=store.problem)

    async def reset_document(self, file: ConfigFile) -> str | None:
        """Set `file` aside when it cannot be used and start it afresh; the kept name or None."""
        store = self.settings if file == "settings.json" else self.credentials
        return await store.reset()

    async def update(self, ns: str, patch: dict[str, Any], expected: int | None) -> SettingsNamespaceView:
        return await self.settings.write(ns, lambda section: deep_merge(section, patch), expected)

    async def replace(self, ns: str, section: dict[str, Any], expected: int | None) -> SettingsNamespaceView:
        return await self.settings.write(ns, lambda _: dict(section), expected)

    async def mutate(self, ns: str, ops: list[SettingsPathOp], expected: int | None) -> SettingsNamespaceView:
        def apply(section: dict[str, Any]) -> dict[str, Any]:
            for op in ops:
                if isinstance(op, SetOp):
                    section = set_path(section, op.path, op.value)
                else:
                    section = unset_path(section, op.path)
            return section

        return await self.settings.write(ns, apply, expected)

    def can_open_document(self) -> bool:
        """hasDocument: settings.json can be opened for the user (an opener that reaches a desktop)."""
        return self._opener is not None and (self._can_open is None or self._can_open())

    async def open_document(self, file: ConfigFile = "settings.json") -> None:
        """Open settings.json (or credentials.json) in the user's editor; settings.json is
        written first when it does not exist yet (never over a file that cannot be read)."""
        path = self.settings.path if file == "settings.json" else self.credentials.path
        if file == "settings.json" and not path.exists():
            await self.settings.ensure_document()
        if self._opener is None or not self.can_open_document():
            raise OSError("this host cannot open files in an editor")
        if not path.exists():
            raise OSError(f"{file} does not exist yet")
        await self._opener(str(path))

    # ---- credentials.* ------------------------------------------------------------------------

    def credential_views(self, refs: list[str]) -> dict[str, CredentialView]:
        return {ref: self.credentials.view(ref) for ref in refs}

    async def set_credential(self, ref: str, value: str) -> None:
        await self.credentials.set(ref, value)

    async def unset_credential(self, ref: str) -> None:
        await self.credentials.unset(ref)

    async def move_credential(self, ref: str, to: str) -> None:
        await self.credentials.move(ref, to)

    # ---- llm.* --------------------------------------------------------------------------------

    def providers(self) -> list[ConfigurableProviderView]:
        return self.registry.views()

    async def models(self) -> tuple[list[ModelProviderGroup], list[ModelCatalogFailure]]:
        return await catalogue.catalogue(self.registry)

    async def discover(self, req: DiscoverModelsRequest) -> list[DiscoveredModelView]:
        return await discover(self.registry, self.credentials.value, req)

    # ---- change announcements -----------------------------------------------------------------

    def _settings_changed(self, ns: str) -> None:
        self._bus.publish("host", HostSettingsChanged(ns=ns))
        if ns in LLM_NAMESPACES or ns == AGENT_DEFAULT_MODEL:
            self._bus.publish("host", HostModelsChanged())

    def _file_changed(self, file: ConfigFile, problem: str | None) -> None:
        self._bus.publish("host", HostConfigFileChanged(file=file, problem=problem))

    def _credentials_changed(self, ref: str) -> None:
        self._bus.publish("host", HostCredentialsChanged(ref=ref))
        if any(r.key_ref == ref for r in self.routes()):
            self._bus.publish("host", HostModelsChanged())


def read_llm_settings(data_dir: Path, overrides: RuntimeOverrides | None = None) -> LlmSummary:
    """The default selection's route and whether it can serve, read without opening the engine or
    changing a file (for `doctor`: another instance may own the data dir, and a version-1
    configuration stays as it is until the app starts). A `--provider` that names no route
    raises ModelUnavailable, as it does when the app starts."""
    plane = ConfigPlane(Path(data_dir), Bus(), overrides, migrate_files=False)
    plane.check_overrides()
    selection = Selections(plane.settings, plane.registry, plane.overrides).default()
    route = plane.registry.route(selection.provider)
    active, problem = plane.registry.status(selection.provider)
    base_url = route.base_url if route is not None else None
    return LlmSummary(selection.provider, selection.model, base_url, active, problem)
