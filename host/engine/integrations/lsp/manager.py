"""`LanguageServers`: one server per (server, folder), started on first use inside the sandbox
(read-only, no network, the engine's masks), asked for a file's errors after each write and for
the `lsp` tool's answers (docs/decisions.md, "Language servers").

Without a sandbox on this machine no language server starts (it would run the project's code —
plugins, build scripts — with the person's rights and unasked); without an installed server for a
file's language nothing changes: the write's result is as before.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from host.engine.integrations.lsp.client import LspClient, LspError
from host.engine.integrations.lsp.render import hover_text, locations, new_errors, symbols
from host.engine.integrations.lsp.servers import SPECS, ServerSpec, find, for_file
from host.engine.sandbox import Confinement, SandboxPolicy, SandboxUnavailable, support, wrap
from host.engine.sandbox.secret_values import child_environment
from host.engine.tools.common import ToolError

log = logging.getLogger(__name__)

FIRST_BOUND = 15.0
"""The first diagnostics of a server that just started (it indexes first)."""
NEXT_BOUND = 5.0
RETRY_AFTER = 60.0
"""A server that failed to start is tried again this long after."""


@dataclass
class Running:
    spec: ServerSpec
    folder: str
    client: LspClient
    ready: asyncio.Future[None]


class LanguageServers:
    def __init__(
        self,
        confinement: Confinement,
        disabled: Callable[[], Sequence[str]],
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._confinement = confinement
        self._disabled = disabled
        self._running: dict[tuple[str, str], Running] = {}
        self._failed: dict[tuple[str, str], tuple[float, str]] = {}
        self._clock = clock or (lambda: asyncio.get_running_loop().time())

    # ---- what the tools ask (tools/reach.py, CodeIntel) ------------------------------------

    def available(self, cwd: Path) -> bool:
        off = frozenset(self._disabled())
        return support().available and any(s.id not in off and find(s) for s in SPECS)

    async def diagnostics(self, cwd: Path, path: Path, sandbox: SandboxPolicy | None) -> str | None:
        """The errors `path` has now that it did not have before this write (at most 20 lines),
        or None: no server for it, none started, or it found none."""
        server = await self._server(cwd, path)
        if server is None:
            return None
        try:
            text = await asyncio.to_thread(path.read_text, "utf-8", "replace")
        except OSError:
            return None
        client = server.client
        uri = path.as_uri()
        before = list(client.diagnostics.get(uri, [])) if uri in client.versions else []
        fresh = uri not in client.versions
        try:
            if not await client.sync(path, text, server.spec.languages[path.suffix.lower()]):
                return None
        except LspError as exc:
            log.info("language server %s: %s", server.spec.id, exc)
            return None
        published = await client.published(path, FIRST_BOUND if fresh else NEXT_BOUND)
        if published is None:
            return None
        shown = path.relative_to(server.folder) if path.is_relative_to(server.folder) else path
        return new_errors(before, published, shown=str(shown), server=server.spec.id)

    async def query(
        self,
        cwd: Path,
        operation: str,
        path: Path | None,
        line: int,
        column: int,
        query: str,
        sandbox: SandboxPolicy | None,
    ) -> str:
        target = path
        if target is None:  # workspace symbols: any server of the folder will do
            target = next((p for p in self._any_file(cwd)), None)
            if target is None:
                raise ToolError("No language server runs for this folder.", "UNAVAILABLE")
        server = await self._server(cwd, target)
        if server is None:
            raise ToolError(
                f"No language server serves {target.suffix or 'this file'} here (none installed, turned off"
                " in Settings, or no sandbox on this machine).",
                "UNAVAILABLE",
            )
        client = server.client
        try:
            if path is not None:
                text = await asyncio.to_thread(path.read_text, "utf-8", "replace")
                await client.sync(path, text, server.spec.languages[path.suffix.lower()])
            position = {"line": max(line - 1, 0), "character": max(column - 1, 0)}
            document = {"uri": target.as_uri()}
            if operation == "definition":
                result = await client.request(
                    "textDocument/definition", {"textDocument": document, "position": position}
                )
                return locations(result, cwd, "definition")
            if operation == "references":
                params = {
                    "textDocument": document,
                    "position": position,
                    "context": {"includeDeclaration": True},
                }
                return locations(await client.request("textDocument/references", params), cwd, "reference")
            if operation == "hover":
                result = await client.request(
                    "textDocument/hover", {"textDocument": document, "position": position}
                )
                return hover_text(result)
            if operation == "document_symbols":
                result = await client.request("textDocument/documentSymbol", {"textDocument": document})
                return symbols(result, cwd)
            result = await client.request("workspace/symbol", {"query": query})
            return symbols(result, cwd)
        except LspError as exc:
            raise ToolError(f"The language server {server.spec.id} failed: {exc}", "LSP_FAILED") from None

    # ---- Settings ---------------------------------------------------------------------------

    def status(self) -> list[dict[str, Any]]:
        """Each known server: found where, turned off or not, the folders it runs for."""
        off = frozenset(self._disabled())
        out = []
        for spec in SPECS:
            folders = sorted(
                r.folder for (sid, _), r in self._running.items() if sid == spec.id and r.client.alive
            )
            failed = [why for (sid, _), (_, why) in self._failed.items() if sid == spec.id]
            out.append(
                {
                    "id": spec.id,
                    "command": find(spec),
                    "languages": sorted(set(spec.languages.values())),
                    "enabled": spec.id not in off,
                    "folders": folders,
                    "problem": failed[0] if failed else None,
                }
            )
        return out

    async def settings_changed(self) -> None:
        """A server turned off stops now."""
        off = frozenset(self._disabled())
        for key, running in list(self._running.items()):
            if running.spec.id in off:
                del self._running[key]
                await running.client.close()

    async def close(self) -> None:
        running, self._running = list(self._running.values()), {}
        await asyncio.gather(*(r.client.close() for r in running), return_exceptions=True)

    # ---- the servers ------------------------------------------------------------------------

    def _any_file(self, cwd: Path) -> list[Path]:
        folder = os.path.realpath(cwd)
        return [
            Path(folder) / f"any{next(iter(r.spec.languages))}"
            for r in self._running.values()
            if r.folder == folder
        ]

    async def _server(self, cwd: Path, path: Path) -> Running | None:
        if not support().available:
            return None
        found = for_file(path, frozenset(self._disabled()))
        if found is None:
            return None
        spec, program = found
        folder = await asyncio.to_thread(os.path.realpath, cwd)
        key = (spec.id, folder)
        running = self._running.get(key)
        if running is not None:
            await running.ready  # one start per (server, folder); its joiners wait for it
            if self._running.get(key) is running and running.client.alive:
                return running
            if self._running.get(key) is running:
                del self._running[key]  # it ended: start it again
        failed = self._failed.get(key)
        if failed is not None and self._clock() - failed[0] < RETRY_AFTER:
            return None
        policy = self._confinement.policy(Path(folder), write=False, network=False)
        try:
            argv = wrap([program, *spec.argv[1:]], policy)
        except SandboxUnavailable:
            return None
        client = LspClient(argv, Path(folder), child_environment())
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        running = Running(spec, folder, client, ready)
        self._running[key] = running
        try:
            await client.start()
        except (LspError, OSError) as exc:
            why = f"{spec.id} did not start: {exc}"
            log.warning("%s (%s)", why, client.stderr_tail.decode(errors="replace")[-300:])
            self._failed[key] = (self._clock(), why)
            del self._running[key]
            ready.set_result(None)
            await client.close()
            return None
        self._failed.pop(key, None)
        ready.set_result(None)
        return running
