"""What the tools that reach beyond the folder's files are given when the engine builds them
(docs/architecture.md, "Tools"): the web, images for the model, and the language servers. Each is
a narrow protocol the engine implements; a tool set built without one simply lacks those tools
(and `write_file`/`edit_file` then report no diagnostics)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from contract.content import AttachmentRef
from host.engine.sandbox import SandboxPolicy
from host.engine.tools.web_access.fetch import Page
from host.engine.tools.web_access.search import Hit


class WebReach(Protocol):
    def searchable(self) -> bool: ...

    async def fetch(self, session_id: str, url: str) -> tuple[Page, bool]: ...

    async def search(self, query: str) -> list[Hit]: ...


class ImageSupport(Protocol):
    def accepts(self, session_id: str) -> bool:
        """Whether the model the session runs now reads images."""
        ...

    def keep(self, ref: AttachmentRef, data: bytes) -> None:
        """Store the image once (content-addressed), like a person's attachment."""
        ...


class CodeIntel(Protocol):
    """The language servers (host/engine/integrations/lsp/)."""

    async def diagnostics(self, cwd: Path, path: Path, sandbox: SandboxPolicy | None) -> str | None:
        """The file's errors after a write, as lines for the tool result (None: no server, or none)."""
        ...

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
        """One `lsp` tool call's answer (raises ToolError when no server serves the file)."""
        ...

    def available(self, cwd: Path) -> bool:
        """Whether any language server could serve this folder (else `lsp` is not offered)."""
        ...


@dataclass(frozen=True)
class Reach:
    web: WebReach | None = None
    images: ImageSupport | None = None
    code: CodeIntel | None = None
