"""Open a whole host in one call: engine + ApiProxy + the fetch app. Used by every front end
(`serve`, the desktop window, `prompt`, the self-test) so they all run the same thing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp

from host.api.proxy import HostApiProxy
from host.engine.engine import Engine
from host.engine.llm.overrides import RuntimeOverrides
from host.engine.workspaces.folders import NativePicker
from host.fetch.handler import to_fetch_handler
from host.relay import RelayApi
from host.server.peers import SandboxPeers


@dataclass
class HostRuntime:
    engine: Engine
    api: RelayApi
    """The engine's methods, and every connected remote host's relayed (docs/decisions.md, "Remote hosts")."""
    app: ASGIApp
    peers: SandboxPeers
    """Who is inside this host's sandboxes: the loopback site's fence asks (`build_site`)."""

    async def close(self, bound: float | None = None) -> None:
        """End running turns as aborted (disposed), flush and close the store (within `bound` s)."""
        await self.engine.close(bound)
        await self.api.aclose()


async def open_host(
    data_dir: Path,
    overrides: RuntimeOverrides | None = None,
    *,
    heartbeat: float = 15.0,
    dev_validate: bool | None = None,
    picker: NativePicker | None = None,
    masked: tuple[Path, ...] = (),
    peers: SandboxPeers | None = None,
    **engine_options: Any,
) -> HostRuntime:
    """`picker`: the desktop window's native folder dialog; without one the host serves the
    in-page folder browser (`host.listDirectory` / `host.createDirectory`). `dev_validate`: see
    `to_fetch_handler` (None: on when `$HARNESSDESK_DEV_VALIDATE` is `1`). `engine_options` go
    to `Engine.open` (tests: `local_probes`, `adapter_options`, …). `masked`: the files and
    folders the command line named, hidden in every sandbox (docs/threat-model.md); `peers`: the
    fence's view of the sandboxes (a new one when the caller has none yet)."""
    peers = peers or SandboxPeers()
    engine = await Engine.open(
        data_dir, overrides, picker=picker, masked=masked, on_network_sandbox=peers.expect, **engine_options
    )
    api = RelayApi(HostApiProxy(engine), engine.remotes, engine.remotes.host_ids)
    app = to_fetch_handler(api, heartbeat_interval=heartbeat, dev_validate=dev_validate)
    return HostRuntime(engine=engine, api=api, app=app, peers=peers)
