"""`engine.reach`: what the agent reaches beyond the folder's files — the web, images for the model,
the language servers — built once by `Engine.open()` from exactly what each uses, handed to the
tools (`build_tools(reach)`) and reported to Settings (`lsp.status`). docs/architecture.md,
"Tools"; docs/decisions.md, "Web fetch and private addresses", "Language servers", "Images the
agent reads"."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from contract.content import AttachmentRef
from contract.lsp import LanguageServerView, LspStatusValue
from host.engine.integrations.lsp.manager import LanguageServers
from host.engine.sandbox import support
from host.engine.tools.reach import Reach
from host.engine.tools.web_access.access import WebAccess


class ModelImages:
    """`ImageSupport`: whether the session's model reads images now, and where an image is kept."""

    def __init__(
        self, accepts: Callable[[str], bool], keep: Callable[[AttachmentRef, bytes], object]
    ) -> None:
        self._accepts = accepts
        self._keep = keep

    def accepts(self, session_id: str) -> bool:
        return self._accepts(session_id)

    def keep(self, ref: AttachmentRef, data: bytes) -> None:
        self._keep(ref, data)


class AgentReach:
    """What the agent reaches beyond the folder's files: the web, images, language servers."""

    def __init__(self, web: WebAccess, images: ModelImages, servers: LanguageServers) -> None:
        self._servers = servers
        self._tasks: set[asyncio.Task[None]] = set()
        self.tools = Reach(web=web, images=images, code=servers)
        """What the tools are built with."""

    async def lsp_status(self) -> LspStatusValue:
        views = [LanguageServerView.model_validate(row) for row in self._servers.status()]
        return LspStatusValue(servers=views, sandboxed=support().available)

    def settings_changed(self) -> None:
        """The `lsp` namespace changed: a server turned off stops now (in a task of its own)."""
        task = asyncio.get_running_loop().create_task(self._servers.settings_changed())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        await self._servers.close()
